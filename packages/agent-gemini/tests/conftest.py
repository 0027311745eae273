"""The Gemini agent in a sandbox; ``gemini_fixtures`` (on pytest's pythonpath) holds the capture paths."""

from __future__ import annotations

from pathlib import Path

import pytest
from entire_agent_google_gemini.agent import GeminiAgent
from entire_core.testing.pytest_plugin import MakeAgent
from entire_core.testing.runner import Sandbox


@pytest.fixture
def repo(sandbox: Sandbox) -> Path:
    return sandbox.repo


@pytest.fixture
def home(sandbox: Sandbox) -> Path:
    return sandbox.home


@pytest.fixture
def agent(make_agent: MakeAgent) -> GeminiAgent:
    """The agent with its repository and home in the sandbox; no gemini binary on PATH."""
    return make_agent(GeminiAgent, PATH="/usr/bin:/bin")
