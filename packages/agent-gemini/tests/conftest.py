"""Fixtures of the Gemini agent's tests; ``gemini_fixtures`` holds the capture paths they share."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# With --import-mode=importlib test modules cannot import their neighbours; make this one importable.
sys.path.insert(0, str(Path(__file__).parent))

from entire_agent_google_gemini.agent import GeminiAgent


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def agent(repo: Path, home: Path) -> GeminiAgent:
    """The agent with its repository and home in a temporary directory."""
    return GeminiAgent(
        env={"ENTIRE_REPO_ROOT": str(repo), "HOME": str(home), "PATH": "/usr/bin:/bin"}, cwd=str(repo)
    )
