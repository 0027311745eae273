"""The per-file lock: serialises editors across processes, times out, leaves nothing near the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from entire_core.config import _lock
from entire_core.config._lock import lock_file_for, locked
from entire_core.errors import ConfigError

WRITER = textwrap.dedent(
    """
    import sys, time
    from entire_core.config.json import edit_json

    path, name = sys.argv[1], sys.argv[2]
    for i in range(20):
        with edit_json(path) as doc:
            time.sleep(0.002)  # widen the read-modify-write window a lost update would need
            doc.data[f"{name}-{i}"] = i
    """
)


def test_two_processes_editing_one_file_lose_no_update(tmp_path: Path) -> None:
    path = tmp_path / "hooks.json"
    path.write_text("{}\n")
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), name], env=os.environ.copy())
        for name in ("first", "second")
    ]
    assert [writer.wait(timeout=60) for writer in writers] == [0, 0]
    data = json.loads(path.read_text())
    assert sorted(data) == sorted(f"{name}-{i}" for name in ("first", "second") for i in range(20))
    assert os.listdir(tmp_path) == ["hooks.json"]


def test_waiting_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_lock, "_TIMEOUT_SECONDS", 0.1)
    path = tmp_path / "settings.json"
    expected = r"^timed out waiting for the lock on .*settings\.json$"
    with locked(path), pytest.raises(ConfigError, match=expected), locked(path):
        pass  # pragma: no cover


def test_lock_is_released_after_an_exception(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    with pytest.raises(RuntimeError), locked(path):
        raise RuntimeError
    with locked(path):
        pass


def test_lock_file_lives_in_the_temp_dir_while_held_and_is_shared_through_symlinks(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    link = tmp_path / "link.json"
    link.symlink_to(target)
    lock_file = lock_file_for(link)
    assert lock_file == lock_file_for(target)
    assert Path(lock_file).parent == Path(tempfile.gettempdir())
    before = set(os.listdir(tempfile.gettempdir()))
    with locked(link):
        assert Path(lock_file).exists()
    assert sorted(os.listdir(tmp_path)) == ["link.json"]
    assert set(os.listdir(tempfile.gettempdir())) == before - {Path(lock_file).name}  # nothing of ours stays


def test_unusable_lock_directory_is_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setattr(tempfile, "tempdir", str(blocker))
    with (
        pytest.raises(ConfigError, match=r"^cannot lock .*settings\.json: "),
        locked(tmp_path / "settings.json"),
    ):
        pass  # pragma: no cover


def test_importing_the_editors_loads_no_heavy_module() -> None:
    code = (
        "import sys, entire_core.config, entire_core.config.json, entire_core.config.toml,"
        " entire_core.config.textblock\n"
        "print(sorted({'tomlkit', 'yaml', 'fcntl', 'msvcrt', 'tomllib', 'pydantic'} & set(sys.modules)))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
