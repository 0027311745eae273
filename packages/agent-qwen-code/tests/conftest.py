"""The Qwen Code agent in a sandbox; ``qwen_fixtures`` (on pytest's pythonpath) holds the capture paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from entire_agent_qwen_code.agent import QwenCodeAgent
from entire_core.testing.pytest_plugin import MakeAgent


@pytest.fixture
def agent(make_agent: MakeAgent) -> QwenCodeAgent:
    """The agent with its repository and home in the sandbox; no qwen binary on PATH."""
    return make_agent(QwenCodeAgent, PATH="/usr/bin:/bin")


@pytest.fixture
def repo(agent: QwenCodeAgent) -> Path:
    """The sandbox's repository, the agent's."""
    return Path(agent.repo_root)
