"""The inter-process lock serialises writers and is released when its holder dies."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from entire_core import locks
from entire_core.errors import AgentError

WRITER = """
import sys, time
from entire_core import locks
path, log, name, remove = sys.argv[1:5]
for i in range(20):
    with locks.exclusive(path, remove=remove == "remove"):
        with open(log, "a") as f:
            f.write(name + " begin\\n")
            f.flush()
            time.sleep(0.001)  # on purpose: widens the window an interleaving writer would need
            f.write(name + " end\\n")
"""


@pytest.mark.parametrize("remove", ["keep", "remove"])
def test_writers_never_interleave(tmp_path: Path, remove: str) -> None:
    log = tmp_path / "log"
    lock = tmp_path / "locks" / "lock"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(lock), str(log), name, remove]) for name in "abc"
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0]
    lines = log.read_text().splitlines()
    assert len(lines) == 120
    for begin, end in zip(lines[::2], lines[1::2], strict=True):
        assert begin.endswith("begin") and end == begin.replace("begin", "end")
    # A removed lock leaves nothing; a kept one stays beside what it guards.
    assert os.listdir(lock.parent) == ([] if remove == "remove" else ["lock"])


def test_a_removed_lock_is_gone_once_released_and_taken_again_after(tmp_path: Path) -> None:
    path = tmp_path / "state" / "drain.lock"
    with locks.exclusive(str(path), remove=True):
        assert path.is_file()
    assert not path.exists()
    with locks.exclusive(str(path), remove=True):
        assert path.is_file()
    assert not path.exists()


def test_a_waiter_whose_file_was_removed_locks_the_one_now_there(tmp_path: Path) -> None:
    # What a waiter sees when the holder removes the file it waited on: it must not run beside the next holder.
    path = tmp_path / "lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    path.unlink()  # the holder before us removed it as it let go
    path.write_text("")  # and a newcomer made a new one
    assert not locks._still_named(fd, str(path))  # pyright: ignore[reportPrivateUsage]
    os.close(fd)
    with locks.exclusive(str(path), remove=True):
        assert path.is_file()


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


@pytest.mark.parametrize("at", ["lock.taken", "lock.release"])
def test_a_lock_file_a_killed_holder_left_blocks_no_one_and_goes_with_the_next_holder(
    tmp_path: Path, at: str
) -> None:
    # flock dies with its holder; what may stay is the file of a lock deleted on release (remove=True).
    path = tmp_path / "state" / "drain.lock"
    code = f"from entire_core import locks\nwith locks.exclusive({str(path)!r}, remove=True):\n    pass"
    env = {**os.environ, "ENTIRE_FAULT_AT": at}
    assert subprocess.run([sys.executable, "-c", code], env=env, timeout=60, check=False).returncode == -9
    assert path.is_file()  # the killed holder could not delete it
    with locks.exclusive(str(path), wait=0, remove=True):  # at once: nobody holds it
        pass
    assert os.listdir(path.parent) == []


def test_a_removed_lock_deletes_what_killed_holders_of_its_family_left(tmp_path: Path) -> None:
    # Killed holders (an uninstall killed before it deleted its config lock) left two; a third is held.
    shared = tmp_path / "tmp"
    shared.mkdir()
    for name in ("entire-config-aaa.lock", "entire-config-bbb.lock", "entire-other.lock", "notes-1.lock"):
        (shared / name).write_text("")
    held = shared / "entire-config-ccc.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", f"from entire_core import locks\nimport sys\nwith locks.exclusive({str(held)!r}):\n"
         "    print('held', flush=True)\n    sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        with locks.exclusive(str(shared / "entire-config-ddd.lock"), wait=0, remove=True):
            pass
        assert sorted(os.listdir(shared)) == ["entire-config-ccc.lock", "entire-other.lock", "notes-1.lock"]
    finally:
        holder.kill()
        holder.wait()
        for stream in (holder.stdin, holder.stdout):
            if stream is not None:
                stream.close()
    with locks.exclusive(str(shared / "entire-config-ddd.lock"), wait=0):  # kept: not a removed lock
        pass
    assert "entire-config-ccc.lock" in os.listdir(shared)
