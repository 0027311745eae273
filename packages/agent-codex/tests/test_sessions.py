"""Sessions live in Codex's dated rollout tree; restoring puts a rollout back where ``codex resume`` looks."""

from __future__ import annotations

import base64
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from codex_fixtures import CHILD, ROLLOUT_CHILD, S1
from entire_agent_openai_codex import home
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_core.errors import InvalidInput
from entire_core.protocol import AgentSession


def test_codex_home_defaults_to_dot_codex() -> None:
    assert home.codex_home({"HOME": "/h"}) == "/h/.codex"
    assert home.codex_home({"HOME": "/h", "CODEX_HOME": "/c"}) == "/c"
    assert home.codex_home({"HOME": "/h", "USERPROFILE": "/u"}) == "/h/.codex"


def test_codex_home_on_windows_is_under_userprofile(monkeypatch: pytest.MonkeyPatch) -> None:
    # Codex (Rust's home_dir) ignores HOME on Windows; Git Bash sets it, sometimes elsewhere.
    monkeypatch.setattr(sys, "platform", "win32")
    assert home.codex_home({"HOME": "/h", "USERPROFILE": "/u"}) == "/u/.codex"
    assert home.codex_home({"HOME": "/h"}) == "/h/.codex"


def test_uuid7_ids_carry_their_creation_time() -> None:
    assert home.uuid7_time(S1) == datetime(2026, 11, 30, 3, 2, 53, 932000, tzinfo=UTC)
    assert home.uuid7_time("test-session-123") is None
    assert home.uuid7_time("01a22a67-c6ec-47d0-98ce-b28638e49364") is None  # a v4 id


def test_resolve_session_file(agent: OpenAICodexAgent, tmp_path: Path) -> None:
    sessions = agent.get_session_dir(str(agent.repo_root))
    assert sessions == str(tmp_path / "codex" / "sessions")
    local = home.uuid7_time(CHILD)
    assert local is not None
    local = local.astimezone()
    expected = Path(
        sessions,
        f"{local:%Y}",
        f"{local:%m}",
        f"{local:%d}",
        f"rollout-{local:%Y-%m-%dT%H-%M-%S}-{CHILD}.jsonl",
    )
    assert agent.resolve_session_file(sessions, CHILD) == str(expected)
    other = Path(
        sessions, f"{local:%Y}", f"{local:%m}", f"{local:%d}", f"rollout-2000-01-01T00-00-00-{CHILD}.jsonl"
    )
    other.parent.mkdir(parents=True)
    other.write_bytes(b"{}\n")
    assert agent.resolve_session_file(sessions, CHILD) == str(other)  # an existing rollout wins
    assert "plain-id" in agent.resolve_session_file(sessions, "plain-id")
    with pytest.raises(InvalidInput):
        agent.resolve_session_file(sessions, "../x")


def session(agent: OpenAICodexAgent, ref: str, repo_path: str | None = None) -> AgentSession:
    data = {"session_id": CHILD, "agent_name": agent.name, "repo_path": agent.repo_root if repo_path is None else repo_path,
            "session_ref": ref, "start_time": "0001-01-01T00:00:00Z",
            "native_data": base64.b64encode(ROLLOUT_CHILD.read_bytes()).decode(),
            "modified_files": None, "new_files": None, "deleted_files": None}  # fmt: skip
    return AgentSession.model_validate_json(json.dumps(data))


def test_write_session_restores_into_the_dated_tree(agent: OpenAICodexAgent, tmp_path: Path) -> None:
    sessions = agent.get_session_dir(agent.repo_root)
    target = agent.resolve_session_file(sessions, CHILD)
    agent.write_session(session(agent, target))
    assert Path(target).read_bytes() == ROLLOUT_CHILD.read_bytes()
    # A path recorded on another machine: refused when the CLI names the repository (as its own
    # pre-flight does), restored where this machine's Codex looks when it does not.
    foreign = f"/home/someone/.codex/sessions/2026/11/30/{ROLLOUT_CHILD.name}"
    with pytest.raises(InvalidInput, match="outside the session directory"):
        agent.write_session(session(agent, foreign))
    os.remove(target)
    agent.write_session(session(agent, foreign, repo_path=""))
    assert Path(target).read_bytes() == ROLLOUT_CHILD.read_bytes()
    with pytest.raises(InvalidInput):
        agent.write_session(session(agent, f"{sessions}/../escape.jsonl"))
    assert not (tmp_path / "codex" / "escape.jsonl").exists()


def test_resume_command_and_detect(agent: OpenAICodexAgent) -> None:
    assert agent.format_resume_command(S1) == f"codex resume {S1}"
    assert not agent.detect()
    Path(agent.repo_root, ".codex").mkdir()
    assert agent.detect()
