"""Real chats from the older Gemini CLI versions of the support window (0.38.2, 0.45.2), read exactly.

Made by the end-to-end test (``e2e/test_gemini_e2e.py``) against the scripted API in a loopback-only
namespace: a session of two turns (four model calls writing one.txt, two.txt and three.txt; then, resumed,
big.txt with a near-full context window, a compression, and small.txt), and a session whose turn ran a
subagent that wrote sub.txt. 0.38.2 writes one JSON document (positions count messages), 0.45.2 JSONL
(positions count lines). Paths inside name ``/srv/gemini-<version>``. Every scripted call uses 100
prompt tokens (40 cached), 10 output and 3 thought tokens; big.txt's call reports 950 000 prompt tokens.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from entire_agent_google_gemini import sessions
from entire_agent_google_gemini.agent import GeminiAgent
from entire_agent_google_gemini.versions import WINDOW
from entire_core.testing.window import older_tested
from entire_core.types import TokenUsage

DATA = Path(__file__).parent / "data"
FILES = ["one.txt", "two.txt", "three.txt", "big.txt", "small.txt"]
PROMPTS = ["Write three files one by one", "Write big.txt, then compress the chat"]
TWO_CALLS = TokenUsage(120, 0, 80, 26, 2)

CAPTURES: dict[str, dict[str, Any]] = {
    "0.38.2": {
        "multi": "session-2026-12-01T14-51-62ab00cd.json",
        "subagent": "session-2026-12-01T14-50-6080d5e4.json",
        "subagent_id": "6080d5e4-1ce3-4cd1-a680-2dfe0f24dd82",
        "turns": (0, 5, 9),  # where each turn started, and the end
        "subagent_end": 3,
        # the subagent ran as the tool "generalist"; its chat (etgxtn.json) is found by its first prompt
        "subagent_files": ["sub.txt"],
        "subagent_tokens": TWO_CALLS,
    },
    "0.45.2": {
        "multi": "session-2026-12-01T14-51-5ac40bb7.jsonl",
        "subagent": "session-2026-12-01T14-51-53e59b75.jsonl",
        "subagent_id": "53e59b75-d877-4086-8bc3-222c239e18da",
        "turns": (2, 25, 41),
        "subagent_end": 11,
        "subagent_files": ["sub.txt"],
        "subagent_tokens": TWO_CALLS,
    },
}


@pytest.fixture(params=older_tested(WINDOW))  # each older tested version must have captures here
def version(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def agent_for(version: str) -> GeminiAgent:
    return GeminiAgent(
        env={"ENTIRE_REPO_ROOT": f"/srv/gemini-{version}/repo", "HOME": "/nonexistent"}, cwd="/"
    )


def chat(version: str, which: str) -> str:
    return str(DATA / f"v{version}" / "chats" / CAPTURES[version][which])


def test_two_turns_with_a_compression(version: str) -> None:
    agent, path = agent_for(version), chat(version, "multi")
    first, second, end = CAPTURES[version]["turns"]
    data = Path(path).read_bytes()
    assert agent.get_transcript_position(path) == end
    assert agent.extract_prompts(path, first) == PROMPTS
    assert agent.extract_prompts(path, second) == PROMPTS[1:]
    assert agent.extract_prompts(path, end) == []
    assert agent.extract_modified_files(path, first) == (FILES, end)
    assert agent.extract_modified_files(path, second) == (FILES[3:], end)
    assert agent.extract_modified_files(path, end) == ([], end)
    assert agent.calculate_tokens(data, first) == TokenUsage(950_320, 0, 280, 91, 7)
    assert agent.calculate_tokens(data, second) == TokenUsage(950_080, 0, 120, 39, 3)
    assert agent.calculate_tokens(data, end) == TokenUsage()
    assert agent.extract_summary(path) == "I wrote big.txt and small.txt."


def test_a_turn_with_a_subagent(version: str) -> None:
    agent, path = agent_for(version), chat(version, "subagent")
    capture = CAPTURES[version]
    end = capture["subagent_end"]
    data = Path(path).read_bytes()
    subagents = str(Path(path).parent / capture["subagent_id"] / "subagents")  # as the Entire CLI passes it
    assert agent.get_transcript_position(path) == end
    assert agent.extract_prompts(path, 0) == ["Use a subagent to create sub.txt"]
    assert agent.extract_modified_files(path, 0) == ([], end)  # the subagent wrote the file
    assert agent.extract_all_modified_files(data, 0, subagents) == capture["subagent_files"]
    total = agent.calculate_total_tokens(data, 0, subagents)
    assert total == TokenUsage(120, 0, 80, 26, 2, subagent_tokens=capture["subagent_tokens"])
    assert agent.extract_summary(path) == "The subagent created sub.txt."


def test_a_legacy_subagent_chat_answers_one_task(tmp_path: Path) -> None:
    chats = DATA / "v0.38.2" / "chats"
    sub = chats / CAPTURES["0.38.2"]["subagent_id"] / "etgxtn.json"
    shutil.copy(sub, tmp_path / "aaaaaa.json")
    main = json.loads(sub.read_text()) | {"kind": "main"}  # the same first prompt, but not a subagent's
    (tmp_path / "bbbbbb.json").write_text(json.dumps(main))
    (tmp_path / "notes.txt").write_text("not a chat")
    task = "Create sub.txt and report back."
    found = sessions.legacy_subagent_chats(str(tmp_path / "subagents"), [task, task])
    assert [c.metadata()["sessionId"] for c in found] == ["etgxtn"]
    assert sessions.legacy_subagent_chats(str(tmp_path), ["another task"]) == []
    assert sessions.legacy_subagent_chats(str(tmp_path / "missing" / "subagents"), [task]) == []
    assert sessions.legacy_subagent_chats("", [task]) == []
