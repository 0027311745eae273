"""Real captures from the older Codex versions of the support window (0.130.0, 0.139.0), read exactly.

Made by the end-to-end driver (``e2e/codex_driver.py``) against the scripted server, in a loopback-only
namespace: session one is two turns with a resume that compacted first (the rollout as Codex wrote it,
before the restore), session two a parent that spawned a child, and the child. Paths inside name
``/srv/codex-<version>`` (the capture's ``w/`` directory). The numbers follow from the scripted server:
each model call at step ``n`` uses ``1000 * (n + 1)`` input tokens, a quarter cached, ``40 + n`` output.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from entire_agent_openai_codex import transcript
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_agent_openai_codex.versions import WINDOW
from entire_core.testing.window import older_tested
from entire_core.types import TokenUsage

DATA = Path(__file__).parent / "data"
PROMPT_ONE = "EDIT-ONE: create hello.txt, update README.md, then write shell.txt"
PROMPT_TWO = "EDIT-TWO: add second.txt, delete shell.txt, rename hello.txt to greeting.txt"
PROMPT_SPAWN = "SPAWN-CHILD: have a subagent create child.txt, wait for it, then report"
PROMPT_CHILD = "CHILD-TASK: create child.txt"
TURN_TWO = TokenUsage(4500, 0, 1500, 123, 3)
"""From the end of turn one: the compaction's call (step 2) and turn two's two calls."""
CHILD_USAGE = TokenUsage(2250, 0, 750, 81, 2)

CAPTURES: dict[str, dict[str, Any]] = {
    "0.130.0": {
        "one": "rollout-2026-12-01T14-43-55-01a2320f-f095-7253-966f-d6e346deefae.jsonl",
        "parent": "rollout-2026-12-01T14-44-05-01a23210-18ec-7910-92b5-1356db786217.jsonl",
        "child": "rollout-2026-12-01T14-44-05-01a23210-1a6c-7d42-8162-681a99e29c28.jsonl",
        "positions": (34082, 48172, 33604, 32289),
        # 0.130 has no subagent hooks: the child's thread fires them as a session of its own (11-13)
        "events": [1, 2, 3, None, 4, 1, 2, 3, 1, 2, None, None, None, 3],
    },
    "0.139.0": {
        "one": "rollout-2026-12-01T14-43-13-01a2320f-4e18-7e32-8d18-280867748c85.jsonl",
        "parent": "rollout-2026-12-01T14-43-23-01a2320f-7620-7c20-85f0-5464e260a4f2.jsonl",
        "child": "rollout-2026-12-01T14-43-24-01a2320f-7769-7181-8a6c-1560915803d3.jsonl",
        "positions": (33566, 47611, 33172, 32352),
        # SessionStart "compact" (7) and the child's prompt (13, with agent_id) are not events
        "events": [1, 2, 3, None, 4, 1, None, 2, 3, 1, 2, 6, None, 7, 3],
    },
}
VERSIONS = older_tested(WINDOW)
"""Every tested version below the newest: each must have its captures here (a KeyError otherwise)."""


def rollout(version: str, which: str) -> str:
    return str(DATA / f"v{version}" / "rollouts" / CAPTURES[version][which])


@pytest.fixture(params=VERSIONS)
def version(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def old_agent(version: str, tmp_path: Path) -> OpenAICodexAgent:
    """The agent with the capture's repository as its repository and its rollouts in CODEX_HOME."""
    day = tmp_path / "codex" / "sessions" / "2026" / "12" / "01"
    day.mkdir(parents=True)
    for path in (DATA / f"v{version}" / "rollouts").iterdir():
        shutil.copy(path, day / path.name)
    env = {"ENTIRE_REPO_ROOT": f"/srv/codex-{version}/repo", "HOME": str(tmp_path / "home"),
           "CODEX_HOME": str(tmp_path / "codex"), "XDG_DATA_HOME": str(tmp_path / "data")}  # fmt: skip
    return OpenAICodexAgent(env=env, cwd="/")


def test_two_turns_with_a_compaction(old_agent: OpenAICodexAgent, version: str) -> None:
    path = rollout(version, "one")
    turn_one_byte, end_byte, _, _ = CAPTURES[version]["positions"]
    data = Path(path).read_bytes()
    assert end_byte == len(data)
    turn_one_end, end = data[:turn_one_byte].count(b"\n"), data.count(b"\n")  # lines, as the CLI counts
    assert old_agent.get_transcript_position(path) == end
    assert old_agent.extract_prompts(path, 0) == [PROMPT_ONE, PROMPT_TWO]
    assert old_agent.extract_prompts(path, turn_one_end) == [PROMPT_TWO]
    assert old_agent.extract_prompts(path, end) == []
    both = ["README.md", "hello.txt", "greeting.txt", "second.txt", "shell.txt"]
    assert old_agent.extract_modified_files(path, 0) == (both, end)
    assert old_agent.extract_modified_files(path, turn_one_end) == (both[1:], end)
    assert old_agent.calculate_tokens(data, 0) == TokenUsage(9000, 0, 3000, 246, 6)
    assert old_agent.calculate_tokens(data, turn_one_end) == TURN_TWO
    assert old_agent.calculate_tokens(data, end) == TokenUsage()
    assert old_agent.extract_summary(path) == (
        "Turn two done: second.txt added, shell.txt deleted, hello.txt renamed."
    )


def test_a_parent_and_its_child(old_agent: OpenAICodexAgent, version: str) -> None:
    parent, child = rollout(version, "parent"), rollout(version, "child")
    _, _, parent_end, child_end = CAPTURES[version]["positions"]
    data = Path(parent).read_bytes()
    assert parent_end == len(data) and child_end == len(Path(child).read_bytes())
    parent_end, child_end = data.count(b"\n"), Path(child).read_bytes().count(b"\n")
    assert old_agent.extract_prompts(parent, 0) == [PROMPT_SPAWN]
    assert old_agent.extract_modified_files(parent, 0) == ([], parent_end)  # the child made the edit
    assert old_agent.extract_all_modified_files(data, 0, "") == ["child.txt"]
    assert old_agent.calculate_total_tokens(data, 0, "") == TokenUsage(
        4500, 0, 1500, 123, 3, subagent_tokens=CHILD_USAGE
    )
    assert old_agent.extract_summary(parent) == "The subagent created child.txt."
    assert old_agent.extract_prompts(child, 0) == [PROMPT_CHILD]
    assert old_agent.extract_modified_files(child, 0) == (["child.txt"], child_end)
    assert old_agent.calculate_tokens(Path(child).read_bytes(), 0) == CHILD_USAGE
    assert old_agent.extract_summary(child) == "child finished: child.txt created"
    meta = [transcript.session_meta(transcript.head(p)) for p in (rollout(version, "one"), parent, child)]
    assert [transcript.is_subagent_thread(m) for m in meta] == [False, False, True]


def test_every_captured_payload(old_agent: OpenAICodexAgent, version: str) -> None:
    """Each real payload, its transcript_path pointing at the fixture copy, maps to the expected event."""
    hooks = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit", "Stop": "stop",
             "PreCompact": "pre-compact", "PostCompact": "post-compact", "SubagentStart": "subagent-start",
             "SubagentStop": "subagent-stop"}  # fmt: skip
    day = Path(old_agent.env["CODEX_HOME"], "sessions", "2026", "12", "01")
    got: list[int | None] = []
    for path in sorted((DATA / f"v{version}" / "hooks").iterdir()):
        payload = json.loads(path.read_text(encoding="utf-8"))
        for key in ("transcript_path", "agent_transcript_path"):
            if isinstance(payload.get(key), str):
                payload[key] = str(day / Path(payload[key]).name)
        event = old_agent.parse_hook(hooks[payload["hook_event_name"]], payload)
        got.append(event.type if event else None)
        if event and event.type in (2, 3):
            assert event.session_ref == payload["transcript_path"]
    assert got == CAPTURES[version]["events"]
