"""``generate-text`` under the host's kill: a stand-in agent that hangs, and what a call leaves behind.

The Entire CLI kills a plugin call at 30 s with SIGKILL. ``hanging_agent`` writes a stand-in for an
agent's binary that hangs with a grandchild that ignores SIGTERM, writing both process ids to a file;
``call_and_kill`` runs the plugin's console script as the host does and SIGKILLs it after a (shorter,
for tests) limit; ``leftovers`` lists what still runs of the stand-in and what is left in the TMPDIR.
Linux only: a process is told running from ``/proc`` (a zombie no one reaped is not running).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

_HANGING = """#!{python}
import os, subprocess, sys, time
args = sys.argv[1:]
for prefix, code, out in {answers!r}:
    if args[: len(prefix)] == prefix:
        sys.stdout.write(out)
        sys.exit(code)
grandchild = subprocess.Popen([sys.executable, "-c",
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)"])
with open({pids!r}, "a") as f:
    f.write(f"{{os.getpid()}}\\n{{grandchild.pid}}\\n")
time.sleep(300)
"""


def hanging_agent(
    bin_dir: Path, program: str, pids: Path, answers: list[tuple[list[str], int, str]] | None = None
) -> Path:
    """``bin_dir/program``: answers the argv prefixes in ``answers`` (``(prefix, exit code, stdout)``) at
    once, and for anything else starts a grandchild, writes both ids to ``pids`` and hangs."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    path = bin_dir / program
    path.write_text(_HANGING.format(python=sys.executable, answers=answers or [], pids=str(pids)))
    path.chmod(0o755)
    return path


def alive(pid: int) -> bool:
    """True while ``pid`` runs."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def wait_for(predicate: Callable[[], bool], seconds: float) -> bool:
    """Poll ``predicate`` until it holds or ``seconds`` pass; its last value."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def started(pids: Path) -> list[int]:
    """The process ids the stand-in wrote (none before it started)."""
    try:
        return [int(line) for line in pids.read_text().split()]
    except FileNotFoundError:
        return []


def call_and_kill(argv: list[str], env: Mapping[str, str], pids: Path, *, kill_after: float) -> float:
    """Run the plugin with the prompt on stdin, SIGKILL it ``kill_after`` s after the stand-in started,
    as the host does; return how long the plugin ran."""
    begin = time.monotonic()
    plugin = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=dict(env))  # fmt: skip
    try:
        assert plugin.stdin is not None
        plugin.stdin.write(b"summarise this")
        plugin.stdin.close()
        if not wait_for(lambda: len(started(pids)) == 2, 20):
            raise AssertionError(f"the stand-in agent never started (plugin exit {plugin.poll()})")
        time.sleep(kill_after)
        plugin.kill()
        plugin.wait()
    finally:
        if plugin.poll() is None:
            plugin.kill()
            plugin.wait()
    return time.monotonic() - begin


def leftovers(pids: Path, tmp: Path, *, grace: float = 5) -> list[str]:
    """What is left within ``grace`` s: the stand-in's processes still running, entries left in ``tmp``."""
    left: list[str] = []

    def clean() -> bool:
        left[:] = [f"process {pid}" for pid in started(pids) if alive(pid)]
        left.extend(f"file {name}" for name in sorted(os.listdir(tmp)))
        return not left

    wait_for(clean, grace)
    for entry in left:  # never leave the stand-in running past the test
        if entry.startswith("process "):
            with contextlib.suppress(OSError):
                os.kill(int(entry.split()[1]), 9)
    return left
