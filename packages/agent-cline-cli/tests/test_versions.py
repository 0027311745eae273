"""The support window: the contract kit's standard tests over ``versions.WINDOW``.

AGENT AUTHOR: set ``version_line`` to what ``cline --version`` prints, and add the agent's own
cases (its doctor's lines for a version in, below and past the window) here.
"""

from __future__ import annotations

from pathlib import Path

from entire_agent_cline_cli.agent import ClineCliAgent
from entire_agent_cline_cli.versions import WINDOW
from entire_core.testing.window import SupportWindowContract


class TestClineCliAgentWindow(SupportWindowContract):
    window = WINDOW
    agent_cls = ClineCliAgent
    package_dir = Path(__file__).parents[1]
    binary = "cline"
    version_line = "{version}"
    hooks_installed = 5
