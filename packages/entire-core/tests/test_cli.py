"""The dispatcher's IO rules, observed from outside the process as the Entire CLI sees them."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from entire_core.cli import SUBCOMMANDS
from entire_core.testing.checks import assert_one_line_error
from entire_core.testing.runner import ScriptRunner


def test_info_is_one_json_value_and_a_newline(sample: ScriptRunner) -> None:
    result = sample("info")
    assert result.code == 0 and result.stderr == b""
    assert result.stdout.endswith(b"}\n") and result.stdout.count(b"\n") == 1
    assert json.loads(result.stdout)["protocol_version"] == 1


def test_no_event_is_the_literal_null(sample: ScriptRunner) -> None:
    assert sample("parse-hook", "--hook", "stop", stdin=b"").stdout == b"null\n"
    assert sample("parse-hook", "--hook", "stop", stdin=None).stdout == b"null\n"


def test_parse_hook_does_not_hang_on_a_silent_open_pipe(sample_script: Path, sample: ScriptRunner) -> None:
    read_end, write_end = os.pipe()
    try:
        started = time.monotonic()
        proc = subprocess.run(
            [str(sample_script), "parse-hook", "--hook", "stop"],
            stdin=read_end, capture_output=True, env=sample.sandbox.env, cwd=sample.sandbox.repo, timeout=20,
        )  # fmt: skip
        elapsed = time.monotonic() - started
    finally:
        os.close(read_end)
        os.close(write_end)
    assert (proc.returncode, proc.stdout) == (0, b"null\n")
    assert elapsed < 15  # bounded, not a timing claim: without the bound this would hang until the timeout


def test_parse_hook_reads_a_payload_written_in_parts_and_leaves_the_pipe_blocking(
    sample_script: Path, sample: ScriptRunner
) -> None:
    """Part of the payload is there at start-up, the rest comes later: all of it is read, and the
    pipe (shared with whoever holds its other end) is left in blocking mode as it was found."""
    import threading

    payload = json.dumps({"session_id": "s-1", "transcript_path": "", "prompt": "x" * 200_000}).encode()
    read_end, write_end = os.pipe()
    first = 4096

    def rest() -> None:
        time.sleep(0.2)  # not a timing claim: the answer must be the same whenever the rest arrives
        os.write(write_end, payload[first:])  # beyond a pipe's buffer: this blocks until the plugin reads
        os.close(write_end)

    os.write(write_end, payload[:first])
    writer = threading.Thread(target=rest)
    writer.start()
    try:
        proc = subprocess.run(
            [str(sample_script), "parse-hook", "--hook", "prompt"],
            stdin=read_end, capture_output=True, env=sample.sandbox.env, cwd=sample.sandbox.repo, timeout=20,
        )  # fmt: skip
        writer.join()
        assert os.get_blocking(read_end)
    finally:
        os.close(read_end)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["prompt"] == "x" * 200_000


def test_raw_answers_are_byte_exact(sample: ScriptRunner, tmp_path: Path) -> None:
    data = bytes(range(256)) + b"\r\n\r\nno newline"
    path = tmp_path / "t.bin"
    path.write_bytes(data)
    assert sample("read-transcript", "--session-ref", str(path)).stdout == data
    chunks = json.loads(sample("chunk-transcript", "--max-size", "100", stdin=data).stdout)
    assert sample("reassemble-transcript", stdin=json.dumps(chunks).encode()).stdout == data


def test_agent_output_cannot_reach_stdout(sample: ScriptRunner) -> None:
    # The sample's doctor is a human command and prints; protocol subcommands must never do that.
    # ``generate-text`` runs agent code; a print() there must land on stderr, not in the answer.
    result = sample("generate-text", "--model", "m", stdin=b"hello")
    assert json.loads(result.stdout) == {"text": "sample answer (m): hello"}


def test_usage_errors(sample: ScriptRunner) -> None:
    for args in ([], ["nope"], ["--nope"], ["info", "--x"], ["info", "extra"]):
        result = sample(*args)
        assert result.code != 0 and result.stdout == b""
        assert_one_line_error(result)


def test_help_lists_subcommands_and_human_commands(sample: ScriptRunner) -> None:
    result = sample("--help")
    assert result.code == 0
    for name in SUBCOMMANDS:
        assert name.encode() in result.stdout
    assert b"doctor" in result.stdout


def test_human_command(sample: ScriptRunner) -> None:
    result = sample("doctor")
    assert result.code == 1 and result.stderr == b""
    assert result.text.splitlines()[1].startswith("FAIL  ")  # the sandbox is no git repository
    assert "      fix: `git init`\n" in result.text


def test_debug_env_shows_a_traceback(sample: ScriptRunner) -> None:
    sample.sandbox.env["ENTIRE_AGENT_DEBUG"] = "1"
    result = sample("read-transcript", "--session-ref", "/nonexistent/x")
    assert result.code == 1 and b"Traceback" in result.stderr and result.stdout == b""


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_every_subcommand_survives_hostile_input(sample: ScriptRunner, name: str) -> None:
    """Truncated JSON, wrong types, huge values, hostile ids and paths: a clean failure or a valid answer."""
    spec = SUBCOMMANDS[name]
    hostile_values = {"string": ["../../etc/passwd", "", "a\nb", "x" * 5000], "int": ["-1", "1e3", "9" * 30]}
    stdins = [
        b'{"session_id":',
        b'{"session_id": 5, "native_data": 7}',
        b"\xff\xfe\x00",
        b"[" * 5000,
        b"null",
    ]
    before = sample.sandbox.snapshot()
    for flag, kind in spec.flags.items():
        for value in hostile_values.get(kind, []):
            for stdin in stdins:
                result = sample(name, f"--{flag}", value, stdin=stdin)
                if result.code != 0:
                    assert result.stdout == b"", result
                    assert_one_line_error(result)
    for stdin in stdins:
        result = sample(name, stdin=stdin)
        if result.code != 0:
            assert result.stdout == b"", result
            assert_one_line_error(result)
    if name not in ("install-hooks", "uninstall-hooks"):
        assert sample.sandbox.snapshot() == before


EXIT_NOW = """
import os, sys
from entire_core.cli import exit_now

class Finalized:
    def __del__(self):
        os.write(2, b"finalized")

kept = Finalized()  # torn down, and so announced, only by the interpreter's clean-up
{setup}
print("answer", end="")
sys.stderr.write("note")
exit_now(3)
"""


@pytest.mark.parametrize(
    ("setup", "cleaned_up"),
    [
        ("", False),
        ("import atexit; atexit.register(lambda: os.write(2, b'|atexit|'))", True),
        ("import threading; threading.Thread(target=__import__('time').sleep, args=(0.2,)).start()", True),
    ],
    ids=["nothing-to-do", "atexit-callback", "another-thread"],
)
def test_exit_now_skips_clean_up_only_when_nothing_needs_it(setup: str, cleaned_up: bool) -> None:
    import sys

    code = EXIT_NOW.format(setup=setup)
    # -I: no PYTHON* variables, so no coverage or other start-up hook registers exit work of its own
    proc = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, timeout=30, check=False)
    assert proc.returncode == 3
    assert proc.stdout == b"answer"  # buffered output is flushed either way
    assert b"note" in proc.stderr
    assert (b"finalized" in proc.stderr) == cleaned_up
    if "atexit" in setup:
        assert b"|atexit|" in proc.stderr
