"""The standard contract tests on every captured Gemini chat file and hook payload, in-process and black-box."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from entire_agent_google_gemini.agent import GeminiAgent
from entire_core.testing.cases import HookCase, TranscriptCase, UsageCase
from entire_core.testing.contract import AgentContract
from entire_core.testing.runner import write_launcher
from gemini_fixtures import (
    LEGACY_CHAT,
    RUN1,
    RUN1_CHAT,
    RUN3,
    RUN3_FINAL_MAIN,
    RUN3_RESUMED_CHAT,
    RUN3_STRAY_CHAT,
    RUN3_SUBAGENT_CHAT,
    RUN3_SUBAGENT_DIR,
    RUN3_SUBAGENT_MAIN,
    RUN3_TURN1_CHAT,
    usage,
)

R1_HELLO = "/srv/gcap/run1/repo/hello.txt"
R3_HELLO = "/srv/gcap/run3/repo/hello.txt"
R3_SUB = "/srv/gcap/run3/repo/sub.txt"
TURN1_USAGE = usage(
    372, 128, 53, 2
)  # (200 in, 25+11 out) + (300-128 in, 12+5 out); Gemini's own -o json agrees
TURN2_USAGE = usage(422, 128, 56, 2)
SUBAGENT_TURN_USAGE = usage(432, 128, 41, 2)
SUBAGENT_USAGE = usage(290, 0, 35, 2)
SUBAGENT_TASK = "Create sub.txt in the repository root and report back."

TRANSCRIPTS = [
    # run1: two turns in one file (same-minute resume appended a second header and a checkpoint)
    TranscriptCase(RUN1_CHAT, position=24, modified_files=[R1_HELLO],
                   prompts=["Create a file hello.txt containing a greeting", "Now change hello to goodbye"],
                   summary="I changed hello to goodbye in hello.txt.", tokens=usage(794, 256, 109, 4),
                   all_modified_files=[R1_HELLO], total_tokens=usage(794, 256, 109, 4)),
    # turn 2 of run1 began at line 15 (BeforeAgent came right after the resume checkpoint)
    TranscriptCase(RUN1_CHAT, offset=15, modified_files=[R1_HELLO], prompts=["Now change hello to goodbye"],
                   tokens=TURN2_USAGE, all_modified_files=[R1_HELLO], total_tokens=TURN2_USAGE),
    # an offset past the end (the file was replaced) reads from the start again
    TranscriptCase(RUN1_CHAT, offset=999, modified_files=[R1_HELLO], tokens=usage(794, 256, 109, 4)),
    TranscriptCase(RUN3_TURN1_CHAT, offset=2, position=11, modified_files=[R3_HELLO],
                   prompts=["Create a file hello.txt containing a greeting"],
                   summary="I created hello.txt with a greeting.", tokens=TURN1_USAGE),
    # cross-minute resume: the session continued in the older file from line 11
    TranscriptCase(RUN3_RESUMED_CHAT, offset=11, position=22, modified_files=[R3_HELLO],
                   prompts=["Now change hello to goodbye"], summary="I changed hello to goodbye in hello.txt.",
                   tokens=TURN2_USAGE),
    # the stray file start-up wrote for the new minute reads as the real session next to it; the
    # token calculators only see their stdin (which read-transcript fills from the real file)
    TranscriptCase(RUN3_STRAY_CHAT, position=22, modified_files=[R3_HELLO],
                   prompts=["Create a file hello.txt containing a greeting", "Now change hello to goodbye"],
                   summary="I changed hello to goodbye in hello.txt.", tokens=usage(0, 0, 0, 0)),
    # a subagent turn: the main chat only has invoke_agent; the subagent's write is in its own chat
    TranscriptCase(RUN3_SUBAGENT_MAIN, offset=2, position=11, modified_files=[],
                   prompts=["Use a subagent to create sub.txt"], summary="The subagent finished its task.",
                   tokens=SUBAGENT_TURN_USAGE, all_modified_files=[R3_SUB],
                   subagents_dir=str(RUN3_SUBAGENT_DIR / "subagents"),
                   total_tokens={**SUBAGENT_TURN_USAGE, "subagent_tokens": SUBAGENT_USAGE}),
    TranscriptCase(RUN3_SUBAGENT_MAIN, offset=2, all_modified_files=[], subagents_dir="",
                   total_tokens=SUBAGENT_TURN_USAGE),
    # after --list-sessions Gemini appended a title: a $set record, not activity
    TranscriptCase(RUN3_FINAL_MAIN, offset=2, position=12, modified_files=[], summary="The subagent finished its task.",
                   tokens=SUBAGENT_TURN_USAGE),
    TranscriptCase(RUN3_SUBAGENT_CHAT, position=12, modified_files=[R3_SUB], prompts=[SUBAGENT_TASK], summary="",
                   tokens=SUBAGENT_USAGE),
    # legacy single-JSON chat: offsets are message indexes
    TranscriptCase(LEGACY_CHAT, position=7, modified_files=["/home/dev/legacy-repo/README.md", "src/main.py"],
                   prompts=["Add a README and fix main.py", "Now edit main.py with edit_file"],
                   summary="Edited src/main.py.", tokens=usage(1310, 2400, 145, 3)),
    TranscriptCase(LEGACY_CHAT, offset=4, modified_files=["src/main.py"], prompts=["Now edit main.py with edit_file"],
                   tokens=usage(300, 1200, 45, 1)),
]  # fmt: skip

HOOK_OF_EVENT = {
    "SessionStart": "session-start",
    "BeforeAgent": "before-agent",
    "AfterAgent": "after-agent",
    "PreCompress": "pre-compress",
    "SessionEnd": "session-end",
    "BeforeTool": "before-tool",
    "AfterTool": "after-tool",
}
SUBAGENT_TOOL_ID = "gemini-a8c8c6b1add952dc839c9910"
SUBAGENT_ID = "5a2688cd-e48c-4868-9748-e3fc82329408"
SUBAGENT_INPUT = {"agent_name": "generalist", "prompt": SUBAGENT_TASK}


def expected_event(path: Path) -> dict[str, Any] | None:
    """The exact event for a captured payload (the capture's paths do not exist in the sandbox)."""
    p = json.loads(path.read_bytes())
    event = p["hook_event_name"]
    common = {"session_id": p["session_id"], "timestamp": p["timestamp"]}
    if event in ("SessionStart", "AfterAgent", "SessionEnd"):
        return {"type": {"SessionStart": 1, "AfterAgent": 3, "SessionEnd": 5}[event], **common,
                "session_ref": p["transcript_path"]}  # fmt: skip
    if event == "BeforeAgent":
        return {"type": 2, **common, "session_ref": p["transcript_path"], "prompt": p["prompt"]}
    if event == "PreCompress":
        return None  # trigger "auto" before every model call, and no compression in these runs
    if p["tool_name"] != "invoke_agent":
        return None
    subagent = {"tool_use_id": SUBAGENT_TOOL_ID, "subagent_type": "generalist", "task_description": SUBAGENT_TASK,
                "tool_input": SUBAGENT_INPUT}  # fmt: skip
    if event == "BeforeTool":
        return {"type": 6, **common, "session_ref": p["transcript_path"], **subagent}
    return {"type": 7, **common, "subagent_id": SUBAGENT_ID, **subagent}


HOOKS = [
    HookCase(HOOK_OF_EVENT[path.stem.split("-", 2)[2]], path, expected_event(path))
    for run in (RUN1, RUN3)
    for path in sorted((run / "hook-payloads").glob("*.json"))
    if path.stem.split("-", 2)[2] in HOOK_OF_EVENT
]


class TestGeminiContract(AgentContract):
    agent_cls = GeminiAgent
    hook_config = ".gemini/settings.json"
    hook_config_originals: ClassVar[dict[str, bytes | None]] = {
        "the user's switch on": b'{\n  "hooksConfig": {"enabled": true}\n}\n',
        "the user's switch off (refused)": b'{"hooksConfig": {"enabled": false}}\n',
        "the user's settings with comments": (
            b'{\n  // my theme\n  "ui": {"theme": "GitHub"}, /* mine */\n  "general": {"vimMode": true}\n}\n'
        ),
        # Gemini reads settings with strip-json-comments and JSON.parse: no trailing comma, no empty file.
        "a trailing comma Gemini would not read (refused)": b'{\n  "ui": {"theme": "GitHub"},\n}\n',
    }
    hook_config_refused = AgentContract.hook_config_refused | {
        name for name in hook_config_originals if name.endswith("(refused)")
    }
    transcript_cases = TRANSCRIPTS
    hook_cases = HOOKS

    def sample_session_bytes(self) -> bytes:
        return RUN1_CHAT.read_bytes()

    def usage_case(self) -> UsageCase:
        return UsageCase(_cached_call(), prompt_tokens=4230, cache_read_tokens=3100, cache_creation_tokens=0,
                         output_tokens=300, reasoning_tokens=240, note="gemini: a call with cached content and thoughts")  # fmt: skip


def _cached_call() -> bytes:
    """run1's chat cut to its first prompt and model call, the call's usage a cached one with thoughts.

    Gemini CLI records ``usageMetadata`` as ``tokens`` (``chatRecordingService.recordMessageTokens``):
    input = ``promptTokenCount``, which includes ``cachedContentTokenCount`` (cached); output =
    ``candidatesTokenCount``, without the ``thoughtsTokenCount`` (thoughts); total = their sum (the
    capture's 200 + 25 + 11 = 236). Here: 4230 in, 3100 of them cached; 60 out and 240 thoughts.
    Entire: input 4230 - 3100 = 1130, cache_read 3100, output 60 + 240 = 300.
    """
    lines = RUN1_CHAT.read_bytes().split(b"\n")
    call = json.loads(next(line for line in lines if b'"type":"gemini"' in line))
    call["tokens"] = {"input": 4230, "output": 60, "cached": 3100, "thoughts": 240, "tool": 0, "total": 4530}
    prompt = next(line for line in lines if b'"type":"user"' in line and b"Create a file" in line)
    return b"\n".join([lines[0], prompt, json.dumps(call, separators=(",", ":")).encode()]) + b"\n"


class TestGeminiContractBlackBox(TestGeminiContract):
    """The same standard tests with one real process per call, as the Entire CLI runs the plugin."""

    script = str(
        write_launcher(Path(__file__).parent / ".bin", "google-gemini", "entire_agent_google_gemini:main")
    )


def test_every_payload_of_an_installed_event_is_a_case() -> None:
    # 81 captured payloads, 36 of them BeforeModel/AfterModel/BeforeToolSelection (3 per model call: 4 + 8)
    assert len(HOOKS) == 81 - 36
    # 5 sessions x (SessionStart, BeforeAgent, AfterAgent, SessionEnd) + SubagentStart/End
    assert sum(1 for case in HOOKS if case.expected is not None) == 22
