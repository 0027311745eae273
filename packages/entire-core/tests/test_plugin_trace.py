"""``ENTIRE_PLUGIN_TRACE``: one JSON line per protocol call, for the ``host`` tests' recordings; nothing when unset."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from entire_core.testing.runner import Sandbox, ScriptRunner


def test_each_protocol_call_appends_one_line_with_its_flags_and_digests(
    sample: ScriptRunner, sandbox: Sandbox, tmp_path: Path
) -> None:
    trace = tmp_path / "trace.jsonl"
    sandbox.env["ENTIRE_PLUGIN_TRACE"] = str(trace)
    payload = b'{"session_id": "s1"}'
    info = sample("info")
    hook = sample("parse-hook", "--hook", "stop", stdin=payload)
    bad = sample("calculate-total-tokens", "--offset", "x")
    records = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert [r["subcommand"] for r in records] == ["info", "parse-hook", "calculate-total-tokens"]
    assert records[0]["answer"] == info.stdout.decode() and records[0]["code"] == 0
    assert records[1]["args"] == ["--hook", "stop"] and isinstance(records[1]["host_pid"], int)
    assert records[1]["stdin_sha256"] == hashlib.sha256(payload).hexdigest() and records[1][
        "stdin_len"
    ] == len(payload)
    assert records[1]["stdin"] == payload.decode()
    assert records[1]["answer_sha256"] == hashlib.sha256(hook.stdout).hexdigest()
    assert records[2]["code"] == bad.code != 0
    assert "--offset" in records[2]["args"]


def test_large_inputs_but_hook_payloads_are_kept_as_digests_only(
    sample: ScriptRunner, sandbox: Sandbox, tmp_path: Path
) -> None:
    trace = tmp_path / "trace.jsonl"
    sandbox.env["ENTIRE_PLUGIN_TRACE"] = str(trace)
    big = b'{"session_id": "' + b"x" * 5000 + b'"}'
    sample("parse-hook", "--hook", "stop", stdin=big)
    record = json.loads(trace.read_text(encoding="utf-8"))
    assert record["stdin_len"] == len(big) and record["stdin"] == big.decode()  # hook payloads are kept whole
    sample("write-session", stdin=big)
    last = json.loads(trace.read_text(encoding="utf-8").splitlines()[-1])
    assert last["subcommand"] == "write-session" and last["stdin_len"] == len(big)
    assert "stdin" not in last and last["stdin_sha256"] == hashlib.sha256(big).hexdigest()


def test_unset_writes_nothing(sample: ScriptRunner, sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.env.pop("ENTIRE_PLUGIN_TRACE", None)
    assert sample("info").code == 0
    assert not list(tmp_path.glob("*.jsonl"))


def test_an_unwritable_trace_does_not_change_the_answer(
    sample: ScriptRunner, sandbox: Sandbox, tmp_path: Path
) -> None:
    sandbox.env["ENTIRE_PLUGIN_TRACE"] = str(tmp_path / "missing-dir" / "trace.jsonl")
    plain = sample("info")
    assert plain.code == 0 and plain.stderr == b""
    assert json.loads(plain.stdout)["protocol_version"] == 1


def test_a_hook_records_the_files_it_names_as_they_stood(
    sample: ScriptRunner, sandbox: Sandbox, tmp_path: Path
) -> None:
    trace = tmp_path / "trace.jsonl"
    sandbox.env["ENTIRE_PLUGIN_TRACE"] = str(trace)
    native = tmp_path / "native.jsonl"
    native.write_bytes(b'{"a": 1}\n')
    payload = json.dumps({"session_id": "s1", "transcript_path": str(native)}).encode()
    sample("parse-hook", "--hook", "stop", stdin=payload)
    record = json.loads(trace.read_text(encoding="utf-8"))
    assert record["files"][str(native)] == [9, hashlib.sha256(b'{"a": 1}\n').hexdigest()]
    assert (
        tmp_path / "trace.jsonl.files" / hashlib.sha256(b'{"a": 1}\n').hexdigest()
    ).read_bytes() == b'{"a": 1}\n'


def test_a_copy_that_cannot_be_kept_leaves_the_trace_whole(
    sample: ScriptRunner, sandbox: Sandbox, tmp_path: Path
) -> None:
    trace = tmp_path / "trace.jsonl"
    sandbox.env["ENTIRE_PLUGIN_TRACE"] = str(trace)
    (tmp_path / "trace.jsonl.files").write_bytes(b"a file where the directory would be")
    native = tmp_path / "native.jsonl"
    native.write_bytes(b'{"a": 1}\n')
    payload = json.dumps({"session_id": "s1", "transcript_path": str(native)}).encode()
    assert sample("parse-hook", "--hook", "stop", stdin=payload).code == 0
    assert json.loads(trace.read_text(encoding="utf-8"))["files"][str(native)][0] == 9
