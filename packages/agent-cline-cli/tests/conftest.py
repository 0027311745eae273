"""The Cline CLI agent in a sandbox; ``cline_fixtures`` (on pytest's pythonpath) holds the capture paths."""

from __future__ import annotations

import pytest
from entire_agent_cline_cli.agent import ClineCliAgent
from entire_core.testing.pytest_plugin import MakeAgent


@pytest.fixture
def agent(make_agent: MakeAgent) -> ClineCliAgent:
    """The agent with its repository and home in the sandbox; no cline binary on PATH."""
    return make_agent(ClineCliAgent, PATH="/usr/bin:/bin")
