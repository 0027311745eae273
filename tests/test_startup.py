"""No agent's hot subcommands import pydantic, tomlkit, YAML or lock libraries."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from agent_scripts import InstalledAgent, installed_agents
from entire_core.testing.pytest_plugin import Imports, heavy
from entire_core.testing.runner import Sandbox

AGENTS = installed_agents()


def _hot_calls(agent: InstalledAgent) -> list[tuple[list[str], bytes]]:
    payload = json.dumps({"hook_type": "x", "session_id": "s-1", "session_ref": "", "timestamp": ""}).encode()
    calls: list[tuple[list[str], bytes]] = [(["info"], b""), (["--help"], b""), (["detect"], b"")]
    if agent.cls.has("transcript_analyzer"):
        calls.append((["get-transcript-position", "--path", "/nonexistent"], b""))
    for hook in getattr(agent.cls, "hook_names", ()):
        calls.append((["parse-hook", "--hook", hook], payload))
        calls.append((["parse-hook", "--hook", hook], b""))
    return calls


@pytest.mark.parametrize("agent", AGENTS, ids=[a.name for a in AGENTS])
def test_hot_subcommands_import_nothing_heavy(agent: InstalledAgent, imports: Imports) -> None:
    for args, stdin in _hot_calls(agent):
        modules = imports(Path(agent.script), *args, stdin=stdin)
        assert "entire_core.cli" in modules, args
        assert heavy(modules) == set(), f"{agent.name} {args}"


INFO_NEEDS = {"entire_core.cli", "entire_core.cli_flags", "entire_core.cli_stdio", "entire_core.commands",
              "entire_core.commands.basic", "entire_core._json"}  # fmt: skip
"""What ``info`` loads beyond the interpreter's start-up and the agent's own modules."""


@pytest.mark.parametrize("agent", AGENTS, ids=[a.name for a in AGENTS])
def test_info_imports_only_the_dispatcher_and_its_handler(
    agent: InstalledAgent, imports: Imports, sandbox: Sandbox
) -> None:
    interpreter = Path(agent.script).read_text(encoding="utf-8").splitlines()[0].removeprefix("#!").strip()
    proc = subprocess.run([interpreter, "-X", "importtime", "-c", f"import {agent.cls.__module__}"],
                          capture_output=True, cwd=sandbox.repo, env=sandbox.env, timeout=60, check=True)  # fmt: skip
    lines = proc.stderr.decode(errors="replace").splitlines()
    before = {
        line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:") and "|" in line
    }
    extra = imports(Path(agent.script), "info") - before
    assert {m for m in extra if not m.startswith(agent.cls.__module__.split(".")[0])} == INFO_NEEDS
