"""Fixtures of the simulator's tests: a git repository and a private bin directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from entire_sim.demo import make_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    make_repo(path)
    return path


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    path = tmp_path / "bin"
    path.mkdir()
    return path


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "marker.log"
