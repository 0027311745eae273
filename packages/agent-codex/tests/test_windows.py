"""What a Windows user hits, exercised on Linux: the stand-in rollout's appends and path spelling."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from entire_agent_openai_codex import state
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_core import locks
from entire_core.scratch import Scratch, path_key

SESSION = "019f0000-0000-7000-8000-000000000001"


def prompt(repo: Path, text: str) -> str:
    return state.ephemeral_prompt(
        OpenAICodexAgent(env={"ENTIRE_REPO_ROOT": str(repo)}),
        SESSION,
        text,
        {"turn_id": "t", "cwd": str(repo)},
    )


def test_the_append_waits_for_the_lock(tmp_path: Path) -> None:
    path = state.ephemeral_path(OpenAICodexAgent(env={"ENTIRE_REPO_ROOT": str(tmp_path)}), SESSION)
    os.makedirs(os.path.dirname(path))
    with locks.exclusive(path + ".lock"):
        writer = threading.Thread(target=prompt, args=(tmp_path, "hello"))
        writer.start()
        writer.join(0.5)
        assert writer.is_alive() and not os.path.exists(path)  # blocked while another hook appends
    writer.join(20)
    assert not writer.is_alive()
    kinds = [json.loads(line)["type"] for line in Path(path).read_text().splitlines()]
    assert kinds == ["session_meta", "event_msg", "response_item", "event_msg"]


def test_the_append_asks_for_binary_mode_where_the_os_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binary = 0o100000  # O_LARGEFILE on Linux: harmless, and visible in the flags
    monkeypatch.setattr(os, "O_BINARY", binary, raising=False)
    opened: dict[str, int] = {}
    real_open = os.open

    def spy(path: str, flags: int, mode: int = 0o777) -> int:
        opened[os.fspath(path)] = flags
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", spy)
    path = prompt(tmp_path, "hello")
    assert opened[path] & binary and opened[path] & os.O_APPEND
    assert path + ".lock" in opened


def test_case_variants_of_a_rollout_share_one_turn_file(monkeypatch: pytest.MonkeyPatch) -> None:
    turns = Scratch("/repo", "openai-codex")
    assert turns.file(state.TURN_END, path_key("/R/Rollout.jsonl")) != turns.file(
        state.TURN_END, path_key("/r/rollout.jsonl")
    )
    monkeypatch.setattr(os.path, "normcase", str.lower)  # what ntpath.normcase does to these
    assert turns.file(state.TURN_END, path_key("/R/Rollout.jsonl")) == turns.file(
        state.TURN_END, path_key("/r/rollout.jsonl")
    )
