"""Default session storage: restoring for resume writes exactly, atomically, and only where allowed."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

from entire_core.testing.checks import Env
from entire_core.testing.runner import InProcessRunner, Sandbox
from entire_core.testing.sample_agent import SampleAgent


def _env(tmp_path: Path) -> Env:
    sandbox = Sandbox(tmp_path)
    return Env(sandbox, InProcessRunner(SampleAgent, sandbox))


def _session(**fields: object) -> bytes:
    base = {"session_id": "s-1", "agent_name": "sample", "repo_path": "", "session_ref": "",
            "native_data": base64.b64encode(b"data\n").decode()}  # fmt: skip
    base.update(fields)
    return json.dumps(base).encode()


def test_restore_without_repo_path_or_ref_uses_the_default_file(tmp_path: Path) -> None:
    env = _env(tmp_path)
    env.call("write-session", stdin=_session())
    assert (env.repo / ".entire/tmp/entire-agent-sample/s-1.jsonl").read_bytes() == b"data\n"


def test_relative_ref_is_a_key_inside_the_session_dir(tmp_path: Path) -> None:
    env = _env(tmp_path)
    env.call("write-session", stdin=_session(session_ref="nested/x.jsonl", repo_path=str(env.repo)))
    assert (env.repo / ".entire/tmp/entire-agent-sample/nested/x.jsonl").read_bytes() == b"data\n"
    env.fails("write-session", stdin=_session(session_ref="../../x.jsonl", repo_path=str(env.repo)))
    env.fails("write-session", stdin=_session(session_ref="a/../../x.jsonl"))
    assert not (env.repo / ".entire/x.jsonl").exists()


def test_restore_overwrites_atomically_and_keeps_the_mode(tmp_path: Path) -> None:
    env = _env(tmp_path)
    target = env.repo / ".entire/tmp/entire-agent-sample/s-1.jsonl"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"old")
    target.chmod(0o640)
    env.call("write-session", stdin=_session(session_ref=str(target), repo_path=str(env.repo)))
    assert target.read_bytes() == b"data\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert os.listdir(target.parent) == ["s-1.jsonl"]


def test_null_native_data_writes_nothing(tmp_path: Path) -> None:
    env = _env(tmp_path)
    env.call("write-session", stdin=_session(native_data=None))
    assert not (env.repo / ".entire").exists()


def test_read_session_of_a_missing_file(tmp_path: Path) -> None:
    env = _env(tmp_path)
    answer = env.call("read-session", stdin=b'{"session_id": "s-2"}')
    assert answer["native_data"] is None
    assert answer["session_ref"] == str(env.repo / ".entire/tmp/entire-agent-sample/s-2.jsonl")
    env.fails("read-session", stdin=b"{}")


def test_a_path_recorded_elsewhere_is_restored_inside_the_session_dir(tmp_path: Path) -> None:
    env = _env(tmp_path)
    foreign = str(tmp_path / "other-machine" / "s-1.jsonl")
    env.fails("write-session", stdin=_session(session_ref=foreign, repo_path=str(env.repo)))
    env.call("write-session", stdin=_session(session_ref=foreign, repo_path=""))
    assert not (tmp_path / "other-machine").exists()
    assert (env.repo / ".entire/tmp/entire-agent-sample/s-1.jsonl").read_bytes() == b"data\n"
