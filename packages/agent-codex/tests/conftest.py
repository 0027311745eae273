"""The Codex agent in a sandbox: its own repository, home, Codex home and data directory."""

import pytest
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_core.testing.pytest_plugin import MakeAgent
from entire_core.testing.runner import Sandbox


@pytest.fixture
def agent(make_agent: MakeAgent, sandbox: Sandbox) -> OpenAICodexAgent:
    return make_agent(OpenAICodexAgent, CODEX_HOME=str(sandbox.root / "codex"), TZ="UTC")
