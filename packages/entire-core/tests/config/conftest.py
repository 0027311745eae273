"""Shared fixtures for the config editor tests."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(autouse=True)
def private_tempdir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Keep lock files (which live under the temp dir) inside this test session's own directory."""
    tmp = tmp_path_factory.mktemp("tmpdir")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setenv("TMPDIR", str(tmp))
    yield tmp


@pytest.fixture
def data_file(tmp_path: Path) -> Callable[[str], Path]:
    """Copy a fixture from ``data/`` into a fresh directory and return the copy's path."""

    def copy(name: str) -> Path:
        target = tmp_path / "work" / name
        target.parent.mkdir(exist_ok=True)
        target.write_bytes((DATA / name).read_bytes())
        return target

    return copy
