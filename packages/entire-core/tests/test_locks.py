"""The inter-process lock serialises writers and is released when its holder dies."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from entire_core import locks
from entire_core.errors import AgentError

WRITER = """
import sys, time
from entire_core import locks
path, log, name = sys.argv[1:4]
for i in range(20):
    with locks.exclusive(path):
        with open(log, "a") as f:
            f.write(name + " begin\\n")
            f.flush()
            time.sleep(0.001)  # on purpose: widens the window an interleaving writer would need
            f.write(name + " end\\n")
"""


def test_writers_never_interleave(tmp_path: Path) -> None:
    log = tmp_path / "log"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path / "lock"), str(log), name])
        for name in "ab"
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0]
    lines = log.read_text().splitlines()
    assert len(lines) == 80
    for begin, end in zip(lines[::2], lines[1::2], strict=True):
        assert begin.endswith("begin") and end == begin.replace("begin", "end")


def test_times_out_while_held_and_frees_when_the_holder_dies(tmp_path: Path) -> None:
    path = str(tmp_path / "lock")
    holder = subprocess.Popen(
        [sys.executable, "-c", f"from entire_core import locks\nimport sys\nwith locks.exclusive({path!r}):\n"
         "    print('held', flush=True)\n    sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
    with pytest.raises(AgentError, match="timed out"), locks.exclusive(path, wait=0.2):
        pass
    holder.kill()  # dies holding the lock: the OS frees it
    holder.wait()
    holder.stdout.close()
    assert holder.stdin is not None
    holder.stdin.close()
    with locks.exclusive(path, wait=5):
        pass
