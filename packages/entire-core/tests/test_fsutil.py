"""atomic_write's errors name the file the caller asked for, never the temporary file beside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from entire_core import fsutil


def test_a_directory_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    target = tmp_path / "session.jsonl"
    target.mkdir()
    with pytest.raises(IsADirectoryError) as caught:
        fsutil.atomic_write(str(target), b"x")
    assert caught.value.filename == str(target)
    assert os.listdir(tmp_path) == ["session.jsonl"] and os.listdir(target) == []


def test_a_failure_to_create_the_temporary_file_names_the_target() -> None:
    if not os.path.isdir("/proc/self"):
        pytest.skip("needs /proc")
    with pytest.raises(OSError) as caught:
        fsutil.atomic_write("/proc/self/entire-test-file", b"x")
    assert caught.value.filename == "/proc/self/entire-test-file"


def test_a_failure_to_replace_names_the_target_and_leaves_no_debris(tmp_path: Path) -> None:
    # os.replace of a file onto a non-empty directory fails for real (after the isdir check, a
    # directory appears in place of the target: a race another process can cause).
    target = tmp_path / "config.json"
    real_replace = os.replace

    def racing_replace(src: str, dst: str) -> None:
        os.mkdir(dst)
        (Path(dst) / "inside").write_text("x")
        real_replace(src, dst)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "replace", racing_replace)
        with pytest.raises(OSError) as caught:
            fsutil.atomic_write(str(target), b"x")
    assert caught.value.filename == str(target)
    assert sorted(os.listdir(tmp_path)) == ["config.json"]


def test_fsync_false_skips_the_files_fsync_and_refuses_a_durable_write(tmp_path, monkeypatch):
    from entire_core import fsutil

    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    fsutil.atomic_write(str(tmp_path / "state.json"), b"{}\n", durable=False)
    assert len(synced) == 1
    fsutil.atomic_write(str(tmp_path / "state.json"), b"[]\n", durable=False, fsync=False)
    assert len(synced) == 1 and (tmp_path / "state.json").read_bytes() == b"[]\n"
    with pytest.raises(ValueError):
        fsutil.atomic_write(str(tmp_path / "state.json"), b"x", fsync=False)
    assert (tmp_path / "state.json").read_bytes() == b"[]\n"


def test_scratch_state_is_written_without_fsync(tmp_path, monkeypatch):
    from entire_core.scratch import Scratch

    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    scratch = Scratch(str(tmp_path), "sample")
    scratch.save("turn", "k", {"n": 1})
    assert synced == [] and scratch.load("turn", "k") == {"n": 1}
    scratch.save("queue", "k", {"n": 2}, durable=True)  # more than a hint: the file and its folder
    assert len(synced) == 2 and scratch.load("queue", "k") == {"n": 2}


def test_scratch_reads_the_file_an_earlier_release_named_while_todays_is_missing(tmp_path):
    from entire_core.scratch import Scratch

    scratch = Scratch(str(tmp_path), "sample")
    os.makedirs(scratch.directory)
    with open(scratch.path("state-0123456789abcdef.json"), "w") as f:
        f.write('{"n": 1}')
    assert scratch.load("state", "k", earlier="state-0123456789abcdef.json") == {"n": 1}
    assert scratch.load("state", "k") == {}
    scratch.save("state", "k", {"n": 2})
    assert scratch.load("state", "k", earlier="state-0123456789abcdef.json") == {"n": 2}


def test_only_a_durable_write_fsyncs_its_directory(tmp_path, monkeypatch):
    from entire_core import fsutil

    synced: list[str] = []
    monkeypatch.setattr(fsutil, "_fsync_directory", synced.append)
    fsutil.atomic_write(str(tmp_path / "config.json"), b"{}\n")
    assert synced == [str(tmp_path)]
    fsutil.atomic_write(str(tmp_path / "state.json"), b"{}\n", durable=False)
    assert synced == [str(tmp_path)]
    assert (tmp_path / "state.json").read_bytes() == b"{}\n"


# -- a writer killed between its temporary file and the rename leaves nothing for good -------------------

KILLED_WRITE = "import sys; from entire_core import fsutil; fsutil.atomic_write(sys.argv[1], b'half')"


def _killed_mid_write(target: Path, at: str = "write.written") -> list[str]:
    """Run a real writer of ``target`` that dies (SIGKILL) at ``at``; the temporary files it left."""
    import subprocess
    import sys

    env = {**os.environ, "ENTIRE_FAULT_AT": at}
    done = subprocess.run([sys.executable, "-c", KILLED_WRITE, str(target)], env=env, timeout=60, check=False)
    assert done.returncode == -9
    return sorted(n for n in os.listdir(target.parent) if n.endswith(".tmp"))


def test_a_killed_writers_temporary_file_goes_with_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_bytes(b"old")
    left = _killed_mid_write(target)
    assert len(left) == 1 and left[0].startswith(".state.json.") and target.read_bytes() == b"old"
    fsutil.atomic_write(str(target), b"new")
    assert os.listdir(tmp_path) == ["state.json"] and target.read_bytes() == b"new"


def test_a_write_sweeps_dead_writers_leftovers_and_keeps_everything_else(tmp_path: Path) -> None:
    import subprocess
    import sys
    import time

    from entire_core import liveness

    once = tmp_path / ".turn-end-0a1b.json"  # a file written once: only another write can take its debris
    left = _killed_mid_write(once, "write.synced")
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        running = f"{alive.pid}-{liveness._start_of(alive.pid)}"  # pyright: ignore[reportPrivateUsage]
        kept = [
            f".other.json.{running}-0123abcd.tmp",  # a writer that still runs
            ".state.json.0123456789ab.tmp",  # an older release's, still fresh: its writer may run
            ".other.json.0123456789ab.tmp",  # an older release's of another file: not ours to judge
            "notes.tmp",
            ".state.json.99-1-nothex!.tmp",
        ]
        for name in kept:
            (tmp_path / name).write_text("x")
        old = tmp_path / ".state.json.ba9876543210.tmp"  # an older release's, long left
        old.write_text("x")
        stale = time.time() - fsutil.OLD_TEMP_SECONDS - 1
        os.utime(old, (stale, stale))
        os.utime(tmp_path / ".other.json.0123456789ab.tmp", (stale, stale))
        fsutil.atomic_write(str(tmp_path / "state.json"), b"{}")
        assert sorted(os.listdir(tmp_path)) == sorted([*kept, "state.json"])
        assert not set(left) & set(os.listdir(tmp_path))
    finally:
        alive.kill()
        alive.wait()


def test_a_temporary_name_fits_the_file_system_and_names_its_writer() -> None:
    from entire_core import liveness

    for name in ("s.json", "x" * 250, "é" * 120):
        temp = fsutil.temp_name(name)
        assert len(os.fsencode(temp)) <= 255 and temp.startswith(".") and temp.endswith(".tmp")
        assert fsutil._writer(temp) == liveness.token()  # pyright: ignore[reportPrivateUsage]
    assert fsutil.temp_name("s.json").startswith(".s.json.")
    assert fsutil.sweep("/nonexistent/dir") == []
