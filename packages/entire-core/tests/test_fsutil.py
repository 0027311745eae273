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
