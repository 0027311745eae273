"""Aider's checkpoints under the real Entire CLI (``ENTIRE_BIN``): each of Aider's own commits gets its
turn's prompt, files and tokens, through the launcher; plain ``aider`` gets no wrong checkpoint.

The run is ``e2e/host_driver.py`` (its docstring has the scenario) in a loopback-only network
namespace, with the newest Aider of the support window from PyPI and this checkout's plugin. Without
``ENTIRE_BIN`` every test here skips with one line; with ``ENTIRE_HOST=1`` it fails instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from entire_agent_aider.versions import WINDOW

HERE = Path(__file__).parent
pytestmark = pytest.mark.host


def _unavailable(reason: str) -> None:
    if os.environ.get("ENTIRE_HOST") == "1":
        pytest.fail(f"host: {reason} (required here: ENTIRE_HOST=1)", pytrace=False)
    pytest.skip(f"host: {reason}; ENTIRE_HOST=1 to require")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    entire = os.environ.get("ENTIRE_BIN", "")
    if not entire or not os.access(entire, os.X_OK):
        _unavailable("set ENTIRE_BIN to the Entire CLI binary")
    from entire_sim import e2e

    try:
        aider_bin = e2e.pypi_tool("aider-chat", WINDOW.newest)
    except e2e.Unavailable as exc:
        _unavailable(exc.reason)
        raise
    plugin_bin = Path(sys.executable).parent
    if not (plugin_bin / "entire-agent-aider").exists():
        pytest.fail(f"{plugin_bin}/entire-agent-aider is missing: run 'uv sync --all-packages' first")
    out = tmp_path_factory.mktemp("aider-host")
    env = dict(os.environ, ENTIRE_BIN=entire, AIDER_BIN=str(aider_bin), PLUGIN_BIN=str(plugin_bin))
    command = e2e.in_loopback_namespace([sys.executable, str(HERE / "e2e" / "host_driver.py"), str(out)])
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, f"host driver failed:\n{done.stdout}\n{done.stderr}"
    report: dict[str, Any] = json.loads((out / "report.json").read_text())
    return report


def _failures(report: dict[str, Any], prefix: tuple[str, ...]) -> list[str]:
    checks = [c for c in report["checks"] if c[0].startswith(prefix)]
    assert checks, f"no check starts with {prefix}"
    return [f"{name}: {detail}" for name, ok, detail in checks if not ok]


def test_each_launched_commit_has_its_turns_checkpoint(run: dict[str, Any]) -> None:
    # A1 edit, A2 a new file confirmed mid-turn, B1 "Add file to the chat?" and two model calls, B2 edit:
    # trailer, stored checkpoint, prompt, files, tokens (one 1234/56 call each, B1 two) and session.
    assert _failures(run, ("A:", "B:", "one session id")) == []
    assert len([c for c in run["checks"] if c[0].startswith(("A:", "B:"))]) == 4 * 6


def test_plain_aider_gets_no_wrong_checkpoint(run: dict[str, Any]) -> None:
    assert _failures(run, ("C:",)) == []


def test_a_users_commit_after_the_sessions_carries_no_agent_data(run: dict[str, Any]) -> None:
    assert _failures(run, ("user's end commit",)) == []


def test_status_keeps_the_live_session_and_doctor_finds_none_stuck(run: dict[str, Any]) -> None:
    assert _failures(run, ("entire status", "entire doctor")) == []


def test_every_launched_checkpoint_has_a_transcript_jsonl(run: dict[str, Any]) -> None:
    found, launched = run["transcripts"]
    assert found == launched == 4
