"""Aider's hooks and TurnEnd subcommands import nothing heavy, on a real chat history."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from entire_core.testing.pytest_plugin import Imports, heavy

SCRIPT = Path(sys.executable).parent / "entire-agent-aider"
HISTORY = Path(__file__).parent / "data" / "aider.chat.history.md"
H = str(HISTORY)

HOT: list[tuple[list[str], bytes]] = [
    (["info"], b""),
    (["detect"], b""),
    (["parse-hook", "--hook", "turn-end"], b'{"session_id": "s-1", "session_ref": ""}'),
    (["parse-hook", "--hook", "turn-start"], b""),
    (["get-transcript-position", "--path", H], b""),
    (["prepare-transcript", "--session-ref", H], b""),
    (["read-transcript", "--session-ref", H], b""),
    (["extract-prompts", "--session-ref", H, "--offset", "0"], b""),
    (["extract-modified-files", "--path", H, "--offset", "0"], b""),
    (["calculate-tokens", "--offset", "0"], HISTORY.read_bytes()),
    (
        ["extract-all-modified-files", "--offset", "0", "--subagents-dir", "/nonexistent"],
        HISTORY.read_bytes(),
    ),
    (["calculate-total-tokens", "--offset", "0", "--subagents-dir", "/nonexistent"], HISTORY.read_bytes()),
]


@pytest.mark.parametrize(("args", "stdin"), HOT, ids=[f"{a[0]}-{i}" for i, (a, _) in enumerate(HOT)])
def test_hooks_and_turn_end_import_nothing_heavy(imports: Imports, args: list[str], stdin: bytes) -> None:
    modules = imports(SCRIPT, *args, stdin=stdin)
    assert "entire_agent_aider.agent" in modules  # the measurement itself works
    assert heavy(modules) == set()


def test_install_hooks_does_import_yaml(imports: Imports) -> None:
    # The check above could pass vacuously if importtime output were not read; this one cannot.
    assert "yaml" in imports(SCRIPT, "install-hooks")
