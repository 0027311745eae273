"""No agent's hot subcommands import pydantic, tomlkit, YAML or lock libraries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_scripts import InstalledAgent, installed_agents
from entire_core.testing.pytest_plugin import Imports, heavy

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
