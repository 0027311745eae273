"""The contract kit's standard tests, with the real Qwen Code's recorded sessions and hook payloads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from entire_agent_qwen_code.agent import QwenCodeAgent
from entire_core.testing.cases import HookCase, TranscriptCase, UsageCase
from entire_core.testing.contract import AgentContract
from qwen_fixtures import CAPTURES, PROMPTS, call, calls, chat

HOOK_OF_EVENT = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit", "Stop": "stop",
                 "SubagentStart": "subagent-start", "SubagentStop": "subagent-stop"}  # fmt: skip


def expected_event(path: Path) -> dict[str, Any] | None:
    """What a captured payload must become: turns start only with a prompt; subagent events name the call."""
    p = json.loads(path.read_text())
    event = path.stem.split("-", 1)[1]
    kind = {"SessionStart": 1, "UserPromptSubmit": 2, "Stop": 3, "SubagentStart": 6, "SubagentStop": 7}[event]
    if kind == 2 and not p["prompt"]:
        return None
    out: dict[str, Any] = {"type": kind, "session_id": p["session_id"], "session_ref": p["transcript_path"]}
    if kind == 2:
        out["prompt"] = p["prompt"]
    if event == "SessionStart":
        out["model"] = p["model"]
    if kind in (6, 7):
        out["subagent_id"] = p["agent_id"]
        out["subagent_type"] = p["agent_type"]
        out["tool_use_id"] = p["agent_id"].removeprefix(p["agent_type"] + "-")
    out["timestamp"] = p["timestamp"]
    return out


HOOKS = [
    HookCase(HOOK_OF_EVENT[path.stem.split("-", 1)[1]], path.read_bytes(), expected_event(path))
    for capture in CAPTURES
    for path in sorted((capture.root / "hooks").glob("*.json"))
    if path.stem.split("-", 1)[1] in HOOK_OF_EVENT
]


def _cases() -> list[TranscriptCase]:
    cases: list[TranscriptCase] = []
    for c in CAPTURES:
        notes, sub = f"{c.repo}/notes.txt", f"{c.repo}/sub.txt"
        cases.append(TranscriptCase(c.chat, position=c.lines, modified_files=[notes, sub], prompts=PROMPTS,
                                    summary=c.summary, tokens=calls(c.main_calls)))  # fmt: skip
        last = c.turn_starts[-1]
        cases.append(TranscriptCase(
            c.chat, offset=last, position=c.lines, modified_files=[sub], prompts=PROMPTS[-1:], summary=c.summary,
            tokens=calls(c.main_calls - 7), all_modified_files=[sub],
            subagents_dir=str(c.root / "chats" / c.session_id / "subagents"),
            total_tokens={**calls(c.main_calls - 7), "subagent_tokens": calls(2)},
        ))  # fmt: skip
    return cases


class TestQwenCodeAgentContract(AgentContract):
    agent_cls = QwenCodeAgent
    hook_config = ".qwen/settings.json"
    transcript_cases: ClassVar[list[TranscriptCase]] = _cases()
    hook_cases: ClassVar[list[HookCase]] = [
        *HOOKS,
        HookCase("stop", b'{"transcript_path": "/t.jsonl"}', None),
    ]

    def sample_session_bytes(self) -> bytes:
        return CAPTURES[-1].chat.read_bytes()

    def usage_case(self) -> UsageCase:
        # An OpenAI-compatible backend: 1200 prompt tokens, 1000 of them from its cache; 233 completion
        # tokens, 30 of them reasoning. Qwen records candidates = completion (reasoning included) and the
        # reasoning again as thoughts (convertOpenAIChunkToLlm): Entire's input 200, cache read 1000,
        # output 233 (not 263).
        recorded = {"promptTokenCount": 1200, "candidatesTokenCount": 233, "thoughtsTokenCount": 30,
                    "totalTokenCount": 1433, "cachedContentTokenCount": 1000}  # fmt: skip
        return UsageCase(chat(call(1, recorded, "openai")), prompt_tokens=1200, cache_read_tokens=1000,
                         cache_creation_tokens=0, output_tokens=233, reasoning_tokens=30,
                         note="qwen-code: an OpenAI-compatible call with cache hits and reasoning")  # fmt: skip
