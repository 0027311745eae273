"""Fault points: a real process dies exactly where ENTIRE_FAULT_AT says, and lists where it passed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from entire_core import faults

WRITE = """
import sys
from entire_core import fsutil, locks
target = sys.argv[1]
with locks.exclusive(target + ".lock"):
    fsutil.atomic_write(target, b"new")
fsutil.atomic_write(target, b"newer", durable=False, fsync=False)
print("modules", "entire_core.faults" in sys.modules)
"""


def _run(target: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ENTIRE_FAULT")}
    return subprocess.run([sys.executable, "-c", WRITE, str(target)], capture_output=True, text=True,
                          env={**clean, **env}, timeout=60, check=False)  # fmt: skip


def test_unarmed_points_import_nothing_and_change_nothing(tmp_path: Path) -> None:
    done = _run(tmp_path / "f")
    assert done.returncode == 0 and done.stdout == "modules False\n", done.stderr
    assert (tmp_path / "f").read_bytes() == b"newer"


def test_the_trace_lists_every_point_in_order(tmp_path: Path) -> None:
    trace = tmp_path / "trace"
    done = _run(tmp_path / "f", ENTIRE_FAULT_TRACE=str(trace))
    assert done.returncode == 0, done.stderr
    lines = [line.split("\t") for line in trace.read_text().splitlines()]
    target = str(tmp_path / "f")
    assert {(pid, sub) for pid, sub, _, _ in lines} == {(str(int(lines[0][0])), target)}  # argv[1]
    assert [(point, path) for _, _, point, path in lines] == [
        ("lock.taken", target + ".lock"),
        *[(p, target) for p in ("write.begin", "write.created", "write.written")],
        *[(p, target) for p in ("write.synced", "write.renamed", "write.durable")],
        ("lock.release", target + ".lock"),
        *[(p, target) for p in ("write.begin", "write.created", "write.written", "write.renamed")],
    ]


@pytest.mark.parametrize(
    ("at", "signal", "left"),
    [
        ("write.written", "KILL", None),  # the temporary file written, the target not touched
        ("write.renamed", "KILL", b"new"),  # in place, the directory not synced yet
        ("write.begin@f#2", "TERM", b"new"),  # the second write, as the host's SIGTERM
        ("*#5", "KILL", None),  # the fifth point reached, whatever it is: write.synced
        ("{target}:write.renamed", "KILL", b"new"),  # a process running that subcommand (argv[1])
    ],
)
def test_the_process_dies_at_the_chosen_point(
    tmp_path: Path, at: str, signal: str, left: bytes | None
) -> None:
    done = _run(tmp_path / "f", ENTIRE_FAULT_AT=at.format(target=tmp_path / "f"), ENTIRE_FAULT_SIGNAL=signal)
    assert done.returncode == -faults.SIGNALS[signal] and done.stdout == "", done.stderr
    assert ((tmp_path / "f").read_bytes() if (tmp_path / "f").exists() else None) == left


@pytest.mark.parametrize("at", ["write.renamed@elsewhere", "parse-hook:write.renamed"])
def test_a_point_that_is_never_reached_kills_nothing(tmp_path: Path, at: str) -> None:
    done = _run(tmp_path / "f", ENTIRE_FAULT_AT=at)
    assert done.returncode == 0 and done.stdout == "modules True\n"


@pytest.mark.skipif(not hasattr(os, "WUNTRACED"), reason="SIGSTOP is POSIX")
def test_stop_hangs_the_process_at_the_point_until_something_kills_it(tmp_path: Path) -> None:
    """``STOP``: the process stops where it is, its temporary file written and the target untouched, and
    stays so (a hang, for a caller's timeout to end) until it is killed, as the host's 30 s SIGKILL does."""
    target = tmp_path / "f"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("ENTIRE_FAULT")}
    env = {**clean, "ENTIRE_FAULT_AT": "write.written", "ENTIRE_FAULT_SIGNAL": "STOP"}
    proc = subprocess.Popen([sys.executable, "-c", WRITE, str(target)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # fmt: skip
    try:
        _, status = os.waitpid(proc.pid, os.WUNTRACED)  # returns once the child stops (or ends)
        assert os.WIFSTOPPED(status) and os.WSTOPSIG(status) == faults.SIGNALS["STOP"] == signal.SIGSTOP
        assert not target.exists() and len([p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]) == 1
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=0.5)  # still there: a stopped process does not go on by itself
    finally:
        proc.kill()
        proc.communicate(timeout=10)
    assert proc.returncode == -signal.SIGKILL and not target.exists()


def test_once_kills_only_the_first_process_to_get_there(tmp_path: Path) -> None:
    once = tmp_path / "died"
    first = _run(tmp_path / "f", ENTIRE_FAULT_AT="write.renamed", ENTIRE_FAULT_ONCE=str(once))
    second = _run(tmp_path / "f", ENTIRE_FAULT_AT="write.renamed", ENTIRE_FAULT_ONCE=str(once))
    assert (first.returncode, second.returncode) == (-9, 0) and once.exists()


def test_a_spec_that_is_none_says_what_is_expected() -> None:
    assert faults.parse("write.renamed@state-#3") == ("", "write.renamed", "state-", 3)
    assert faults.parse("parse-hook:*") == ("parse-hook", "*", "", 1)
    assert faults.parse("*@C:\\x#2") == ("", "*", "C:\\x", 2)
    for bad in ("", "#2", "x#0", "x#y"):
        with pytest.raises(ValueError):
            faults.parse(bad)
    assert faults.armed({"ENTIRE_FAULT_TRACE": "/t"}) and not faults.armed({"ENTIRE_FAULT_AT": ""})


def test_a_subcommand_may_name_its_first_arguments_to_pick_one_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    """``parse-hook --hook stop:<point>`` picks the Stop hook's call; ``parse-hook`` alone every hook's."""
    monkeypatch.setattr(sys, "argv", ["entire-agent-x", "parse-hook", "--hook", "stop"])
    assert faults.runs("") and faults.runs("parse-hook") and faults.runs("parse-hook --hook stop")
    assert not faults.runs("parse-hook --hook session-end") and not faults.runs("parse")
    assert not faults.runs("parse-hook --hook stop --more")
    assert faults.parse("parse-hook --hook stop:write.renamed@/.meta/") == (
        "parse-hook --hook stop",
        "write.renamed",
        "/.meta/",
        1,
    )
    monkeypatch.setenv("ENTIRE_FAULT_AT", "parse-hook --hook session-end:write.renamed")
    faults.reached("write.renamed", "/x/state.json")  # another hook's call: this process lives on


def test_a_point_in_process_is_traced_and_passed_when_not_chosen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "trace"
    monkeypatch.setenv("ENTIRE_FAULT_TRACE", str(trace))
    monkeypatch.setenv("ENTIRE_FAULT_AT", "other-subcommand:write.renamed")
    faults.reached("write.renamed", "/x/state.json")  # another subcommand's point: this process lives on
    monkeypatch.setenv("ENTIRE_FAULT_AT", "write.renamed@state#2")
    faults.reached("write.renamed", "/x/state.json")  # the first of two: lives on
    assert [line.split("\t")[2:] for line in trace.read_text().splitlines()] == [
        ["write.renamed", "/x/state.json"],
        ["write.renamed", "/x/state.json"],
    ]
