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
from entire_agent_openai_codex import paths
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_core.errors import InvalidInput
from entire_core.protocol import AgentSession


def test_codex_home_defaults_to_dot_codex() -> None:
    assert paths.codex_home({"HOME": "/h"}) == "/h/.codex"
    assert paths.codex_home({"HOME": "/h", "CODEX_HOME": "/c"}) == "/c"
    assert paths.codex_home({"HOME": "/h", "USERPROFILE": "/u"}) == "/h/.codex"


def test_codex_home_on_windows_is_under_userprofile(monkeypatch: pytest.MonkeyPatch) -> None:
    # Codex (Rust's home_dir) ignores HOME on Windows; Git Bash sets it, sometimes elsewhere.
    monkeypatch.setattr(sys, "platform", "win32")
    assert paths.codex_home({"HOME": "/h", "USERPROFILE": "/u"}) == "/u/.codex"
    assert paths.codex_home({"HOME": "/h"}) == "/h/.codex"


def test_uuid7_ids_carry_their_creation_time() -> None:
    assert paths.uuid7_time(S1) == datetime(2026, 11, 30, 3, 2, 53, 932000, tzinfo=UTC)
    assert paths.uuid7_time("test-session-123") is None
    assert paths.uuid7_time("01a22a67-c6ec-47d0-98ce-b28638e49364") is None  # a v4 id


def test_native_session_file_is_in_the_dated_tree(agent: OpenAICodexAgent, tmp_path: Path) -> None:
    sessions = paths.sessions_dir(agent.env)
    assert sessions == str(tmp_path / "codex" / "sessions")
    local = paths.uuid7_time(CHILD)
    assert local is not None
    local = local.astimezone()
    day = Path(sessions, f"{local:%Y}", f"{local:%m}", f"{local:%d}")
    expected = day / f"rollout-{local:%Y-%m-%dT%H-%M-%S}-{CHILD}.jsonl"
    assert agent.native_session_file(CHILD) == str(expected)
    other = day / f"rollout-2000-01-01T00-00-00-{CHILD}.jsonl"
    other.parent.mkdir(parents=True)
    other.write_bytes(b"{}\n")
    assert agent.native_session_file(CHILD) == str(other)  # an existing rollout wins
    assert "plain-id" in agent.native_session_file("plain-id")
    with pytest.raises(InvalidInput):
        agent.native_session_file("../x")


def test_the_cli_records_views_outside_the_repository(agent: OpenAICodexAgent, tmp_path: Path) -> None:
    views = agent.get_session_dir(agent.repo_root)
    assert views.startswith(str(tmp_path / "home" / ".local" / "state" / "entire-agent-openai-codex"))
    assert not views.startswith(agent.repo_root)
    assert agent.resolve_session_file(views, CHILD) == os.path.join(views, f"{CHILD}.jsonl")


def session(agent: OpenAICodexAgent, ref: str, repo_path: str | None = None) -> AgentSession:
    data = {"session_id": CHILD, "agent_name": agent.name, "repo_path": agent.repo_root if repo_path is None else repo_path,
            "session_ref": ref, "start_time": "0001-01-01T00:00:00Z",
            "native_data": base64.b64encode(ROLLOUT_CHILD.read_bytes()).decode(),
            "modified_files": None, "new_files": None, "deleted_files": None}  # fmt: skip
    return AgentSession.model_validate_json(json.dumps(data))


def test_write_session_restores_into_the_dated_tree(agent: OpenAICodexAgent, tmp_path: Path) -> None:
    views = agent.get_session_dir(agent.repo_root)
    target = agent.resolve_session_file(views, CHILD)
    rollout = Path(agent.native_session_file(CHILD))
    agent.write_session(session(agent, target))
    assert rollout.read_bytes() == ROLLOUT_CHILD.read_bytes()  # where `codex resume` looks
    assert Path(target).read_bytes() == ROLLOUT_CHILD.read_bytes()  # and the view the CLI recorded
    # A path recorded on another machine: refused when the CLI names the repository (as its own
    # pre-flight does), restored where this machine's Codex looks when it does not.
    foreign = f"/home/someone/.local/state/entire-agent-openai-codex/views/x/{CHILD}.jsonl"
    with pytest.raises(InvalidInput, match="outside the session directory"):
        agent.write_session(session(agent, foreign))
    os.remove(rollout)
    agent.write_session(session(agent, foreign, repo_path=""))
    assert rollout.read_bytes() == ROLLOUT_CHILD.read_bytes()
    with pytest.raises(InvalidInput):
        agent.write_session(session(agent, f"{views}/../escape.jsonl"))
    assert not Path(views).parent.joinpath("escape.jsonl").exists()


def test_resume_command_and_detect(agent: OpenAICodexAgent) -> None:
    assert agent.format_resume_command(S1) == f"codex resume {S1}"
    assert not agent.detect()
    Path(agent.repo_root, ".codex").mkdir()
    assert agent.detect()


def test_write_session_restores_the_rollout_the_view_followed(agent: OpenAICodexAgent) -> None:
    """Codex names a rollout by its own creation second, which the id's timestamp may miss by one."""
    from entire_core import views
    from entire_core.types import EventType

    local = paths.uuid7_time(CHILD)
    assert local is not None
    day = Path(paths.sessions_dir(agent.env), f"{local.astimezone():%Y/%m/%d}")
    day.mkdir(parents=True)
    original = day / f"rollout-1999-01-01T00-00-00-{CHILD}.jsonl"  # not the id's own second
    original.write_bytes(ROLLOUT_CHILD.read_bytes())
    view = views.attach(agent, CHILD, str(original), EventType.TURN_END)
    original.rename(original.with_suffix(".moved"))  # the user lost it; Entire restores it
    agent.write_session(session(agent, view))
    assert original.read_bytes() == ROLLOUT_CHILD.read_bytes()
    assert agent.native_session_file(CHILD) == str(original)  # where `codex resume` finds it
