"""The agent packages installed in this environment, found through the ``entire.agents`` entry points."""

from __future__ import annotations

import os
import shutil
import sys
from importlib.metadata import entry_points
from pathlib import Path

from entire_core.agent import Agent


class InstalledAgent:
    """One agent class and the console script that runs it."""

    def __init__(self, name: str, cls: type[Agent], script: str) -> None:
        self.name = name
        self.cls = cls
        self.script = script


def installed_agents() -> list[InstalledAgent]:
    """Every registered agent; ``ENTIRE_AGENT_SCRIPT_<NAME>`` points a test at another installed script."""
    found: list[InstalledAgent] = []
    for ep in sorted(entry_points(group="entire.agents"), key=lambda e: e.name):
        cls = ep.load()
        variable = "ENTIRE_AGENT_SCRIPT_" + ep.name.upper().replace("-", "_")
        script = os.environ.get(variable) or shutil.which(
            f"entire-agent-{ep.name}", path=str(Path(sys.executable).parent)
        )
        assert script, f"entire-agent-{ep.name} is registered but not installed next to {sys.executable}"
        found.append(InstalledAgent(ep.name, cls, script))
    return found
