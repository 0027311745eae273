"""``SessionsContract``: the contract kit's standard tests of sessions.

Session ids, the session directory and file, ``write-session`` and ``read-session`` round trips,
hostile ids and broken input refused without a trace, and the resume command.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from entire_core.testing.cases import HOSTILE_IDS
from entire_core.testing.checks import Env
from entire_core.testing.contract_base import ContractBase, b64
from entire_core.testing.runner import ScriptRunner


class SessionsContract(ContractBase):
    """Standard tests of session ids, files, storage and resume."""

    def test_get_session_id(self, env: Env) -> None:
        payload = {
            "hook_type": "agent-spawn",
            "session_id": "test-session-abc",
            "session_ref": "",
            "timestamp": "",
        }
        assert env.call("get-session-id", stdin=json.dumps(payload).encode())["session_id"]
        payload["session_id"] = ""
        env.call("get-session-id", stdin=json.dumps(payload).encode())

    def test_session_dir_and_file(self, env: Env) -> None:
        session_dir = env.call("get-session-dir", "--repo-path", str(env.repo))["session_dir"]
        assert session_dir
        session_file = env.call(
            "resolve-session-file", "--session-dir", session_dir, "--session-id", "abc-123"
        )["session_file"]
        assert "abc-123" in session_file

    @pytest.mark.parametrize("hostile", HOSTILE_IDS)
    def test_hostile_session_ids_are_refused(self, env: Env, hostile: str) -> None:
        if "\0" in hostile and isinstance(env.runner, ScriptRunner):
            pytest.skip("a NUL byte cannot be passed in argv")
        before = env.sandbox.snapshot()
        env.fails("resolve-session-file", "--session-dir", str(env.repo), "--session-id", hostile)
        env.fails("format-resume-command", "--session-id", hostile)
        session = {"session_id": hostile, "agent_name": self.agent_cls.name, "repo_path": str(env.repo),
                   "session_ref": "", "native_data": b64(b"x")}  # fmt: skip
        env.fails("write-session", stdin=json.dumps(session).encode())
        hook_input = {"hook_type": "agent-spawn", "session_id": hostile, "session_ref": "", "timestamp": ""}
        env.fails("read-session", stdin=json.dumps(hook_input).encode())
        assert env.sandbox.snapshot() == before

    def test_write_then_read_session(self, env: Env) -> None:
        session_dir = env.call("get-session-dir", "--repo-path", str(env.repo))["session_dir"]
        ref = env.call("resolve-session-file", "--session-dir", session_dir, "--session-id", "roundtrip-1")[
            "session_file"
        ]
        data = self.sample_session_bytes()
        # Exactly what the newest CLI sends on resume: null lists and Go's zero time.
        session = {"session_id": "roundtrip-1", "agent_name": self.agent_cls.name, "repo_path": str(env.repo),
                   "session_ref": ref, "start_time": "0001-01-01T00:00:00Z", "native_data": b64(data),
                   "modified_files": None, "new_files": None, "deleted_files": None}  # fmt: skip
        env.call("write-session", stdin=json.dumps(session).encode())
        assert Path(ref).read_bytes() == data
        hook_input = {
            "hook_type": "agent-spawn",
            "session_id": "roundtrip-1",
            "session_ref": ref,
            "timestamp": "",
        }
        read = env.call("read-session", stdin=json.dumps(hook_input).encode())
        assert read["session_id"] == "roundtrip-1"
        assert read["agent_name"] == self.agent_cls.name
        assert read["repo_path"] == str(env.repo)
        assert read["session_ref"] == ref
        assert base64.b64decode(read["native_data"]) == data
        assert read["modified_files"] == [] and read["new_files"] == [] and read["deleted_files"] == []

    def test_write_session_outside_session_dir_is_refused(self, env: Env) -> None:
        outside = env.sandbox.root / "elsewhere" / "x.json"
        session = {"session_id": "s-1", "agent_name": self.agent_cls.name, "repo_path": str(env.repo),
                   "session_ref": str(outside), "native_data": b64(b"x")}  # fmt: skip
        env.fails("write-session", stdin=json.dumps(session).encode())
        session["session_ref"] = str(env.repo / ".." / "x.json")
        env.fails("write-session", stdin=json.dumps(session).encode())
        assert not outside.exists() and not (env.sandbox.root / "x.json").exists()

    @pytest.mark.parametrize(
        ("subcommand", "stdin"),
        [
            ("get-session-id", b'{"session_id":'),
            ("read-session", b'{"session_id":'),
            ("write-session", b'{"session_id":'),
            ("write-session", b'{"session_id": 5}'),
            ("write-session", b'{"session_id": "s", "native_data": "-__-"}'),
            ("write-session", b"[]"),
            ("reassemble-transcript", b'{"chunks":'),
            ("reassemble-transcript", b'{"chunks": ["not base64!"]}'),
            ("reassemble-transcript", b'{"chunks": "abc"}'),
            ("read-session", b""),
        ],
    )
    def test_bad_json_input_fails_cleanly(self, env: Env, subcommand: str, stdin: bytes) -> None:
        before = env.sandbox.snapshot()
        env.fails(subcommand, stdin=stdin)
        assert env.sandbox.snapshot() == before

    def test_format_resume_command(self, env: Env) -> None:
        import shlex

        command = env.call("format-resume-command", "--session-id", "test-session-123")["command"]
        assert "test-session-123" in command
        words = shlex.split(command)  # one POSIX command line, no shell syntax
        assert words and all(w and not set(w) & set(";&|<>$`'\"\\()\n") for w in words), command
        env.fails("format-resume-command")
        env.fails("format-resume-command", "--session-id", "../../etc")
