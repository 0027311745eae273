"""``followed.native_file``: where a restored session goes back on the machine whose view followed it."""

from __future__ import annotations

import json
from pathlib import Path

from entire_core import followed, views
from entire_core.protocol import AgentSession
from entire_core.testing.sample_agent import SampleAgent, ViewedSampleAgent
from entire_core.types import EventType


def _agent(tmp_path: Path, cls: type[SampleAgent] = ViewedSampleAgent) -> SampleAgent:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True, exist_ok=True)
    env = {
        "ENTIRE_REPO_ROOT": str(repo),
        "HOME": str(tmp_path / "home"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    return cls(env=env, cwd=str(repo))


def _native(tmp_path: Path) -> Path:
    native = tmp_path / "tree" / "2026" / "11" / "rollout-2026-11-30T10-00-01-s-1.jsonl"
    native.parent.mkdir(parents=True)
    records = [
        {"type": "meta", "session": "s-1"},
        {"type": "user", "text": "hi"},
        {"type": "assistant", "text": "yo"},
    ]
    native.write_text("".join(json.dumps(r) + "\n" for r in records))
    return native


def test_the_file_a_view_followed_inside_the_agents_tree(tmp_path: Path) -> None:
    agent = _agent(tmp_path)
    native = _native(tmp_path)
    ref = views.attach(agent, "s-1", str(native), EventType.TURN_END)
    assert views.is_view_path(agent, ref)
    repo = agent.repo_root
    by_ref = AgentSession(session_id="s-1", session_ref=ref, repo_path=repo, native_data=b"x")
    by_id = AgentSession(session_id="s-1", repo_path=repo, native_data=b"x")  # the view found by id
    for session in (by_ref, by_id):
        assert followed.native_file(agent, session, str(tmp_path / "tree")) == str(native)
        assert followed.native_file(agent, session, str(tmp_path / "tree" / "2026" / "11")) == str(native)
        assert followed.native_file(agent, session, str(tmp_path / "elsewhere")) is None
    native.unlink()  # the agent's clean-up deleted it: it still goes back under its own name
    assert followed.native_file(agent, by_ref, str(tmp_path / "tree")) == str(native)


def test_no_view_means_no_followed_file(tmp_path: Path) -> None:
    agent = _agent(tmp_path)
    _native(tmp_path)
    never_viewed = AgentSession(session_id="s-2", repo_path=agent.repo_root, native_data=b"x")
    assert followed.native_file(agent, never_viewed, str(tmp_path)) is None
    plain = _agent(tmp_path, SampleAgent)  # an agent without views hands the CLI its own files
    session = AgentSession(session_id="s-1", repo_path=plain.repo_root, native_data=b"x")
    assert followed.native_file(plain, session, str(tmp_path)) is None
