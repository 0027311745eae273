"""Shared fixtures; also makes ``codex_fixtures`` (the real captures) importable by the test modules."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from entire_agent_openai_codex.agent import OpenAICodexAgent


@pytest.fixture
def agent(tmp_path: Path) -> OpenAICodexAgent:
    """The agent in a fresh repository, with its own home, Codex home and data directory."""
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        "ENTIRE_REPO_ROOT": str(repo),
        "HOME": str(tmp_path / "home"),
        "CODEX_HOME": str(tmp_path / "codex"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "TZ": "UTC",
    }
    return OpenAICodexAgent(env=env, cwd=str(repo))
