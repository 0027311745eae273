"""The version ``info`` reports is the package's, which the lockstep release tool bumps and checks."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import entire_agent_aider
from entire_agent_aider.agent import AiderAgent

PYPROJECT = Path(__file__).parents[1] / "pyproject.toml"


def test_agent_version_is_the_package_version() -> None:
    # tools/release/bump.py sets and checks pyproject's version and __init__.__version__; the agent
    # class must follow them rather than hold a literal of its own.
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    assert AiderAgent.version == entire_agent_aider.__version__ == project["version"]


def test_version_flag_reports_the_package_version(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "entire-agent-aider"
    done = subprocess.run([str(script), "--version"], capture_output=True, cwd=tmp_path, check=True)
    assert done.stdout.decode().split()[:2] == ["entire-agent-aider", entire_agent_aider.__version__]
