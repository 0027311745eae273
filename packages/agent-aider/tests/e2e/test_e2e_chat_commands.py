"""Real Aider, interactive, with chat commands that log more than one input block: one prompt each.

Aider logs the command as typed and then its text again as an input block of its own; the plugin
reports it once, in the typed form. Runs ``chat_commands_driver.py`` in a loopback-only network
namespace against the scripted model server, for every Aider version of the support window.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from entire_agent_aider.versions import WINDOW
from entire_sim import e2e

HERE = Path(__file__).parent
pytestmark = pytest.mark.e2e

QUESTION = "What does greet do?"


def _drive(version: str, scenario: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    venv = e2e.pypi_tool("aider-chat", version).parent
    work = tmp_path_factory.mktemp(f"aider-{scenario}-{version}")
    plugin = Path(sys.executable).parent / "entire-agent-aider"
    cost_map = next(
        (venv / "lib").glob("python3*/site-packages/litellm/model_prices_and_context_window_backup.json")
    )
    config = {"work": str(work / "w"), "out": str(work / "report.json"), "plugin_bin": str(plugin.parent),
              "aider_bin": str(venv / "bin"), "cost_map": str(cost_map), "scenario": scenario}  # fmt: skip
    (work / "config.json").write_text(json.dumps(config))
    driver = [sys.executable, str(HERE / "chat_commands_driver.py"), str(work / "config.json")]
    result = subprocess.run(
        e2e.in_loopback_namespace(driver), capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, f"driver failed:\n{result.stdout}\n{result.stderr}"
    return json.loads(Path(config["out"]).read_text())


@pytest.fixture(scope="module", params=WINDOW.versions())
def report(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _drive(request.param, "ask", tmp_path_factory)


@pytest.fixture(scope="module", params=WINDOW.versions())
def lint_help(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _drive(request.param, "lint-help", tmp_path_factory)


def test_aider_logged_the_ask_twice(report: dict[str, Any]) -> None:
    # The shape the plugin has to read: the typed command, then its text as a block of its own.
    assert f"\n#### /ask {QUESTION}  \n\n#### {QUESTION}  \n" in report["history"]
    assert report["run"]["exit_code"] == 0
    assert len(report["requests"]) == 2  # two model calls: the /ask and the typed question


def test_the_ask_is_one_prompt_in_the_typed_form(report: dict[str, Any]) -> None:
    events = [c["event"] for c in report["hook_calls"] if c["event"] is not None]
    assert [e["type"] for e in events] == [1, 2, 3, 2, 3, 5]  # launched: SessionEnd at exit
    assert [e["prompt"] for e in events if e["type"] == 2] == [f"/ask {QUESTION}", QUESTION]
    assert report["violations"] == []
    assert [c["error"] for c in report["hook_calls"] if c["error"]] == []


HELP_QUESTION = "How do I add files?"


def test_aider_logged_lint_output_and_the_help_question_as_input_blocks(lint_help: dict[str, Any]) -> None:
    # The shapes the plugin has to read: Aider's lint coder logs the errors as input (Coder.run), and
    # /help hands its help coder "# Question: ..." with the docs as input too.
    history = lint_help["history"]
    assert "\n#### /lint  \n" in history and "\n#### ## Running: " in history
    assert f"\n#### /help {HELP_QUESTION}  \n\n#### # Question: {HELP_QUESTION}  \n" in history
    assert lint_help["run"]["exit_code"] == 0
    assert len(lint_help["requests"]) == 2  # one model call each


def test_lint_and_help_are_one_prompt_each_in_the_typed_form(lint_help: dict[str, Any]) -> None:
    events = [c["event"] for c in lint_help["hook_calls"] if c["event"] is not None]
    assert [e["type"] for e in events] == [1, 2, 3, 2, 3, 5]  # launched: SessionEnd at exit
    assert [e["prompt"] for e in events if e["type"] == 2] == ["/lint", f"/help {HELP_QUESTION}"]
    assert [c["prompt"] for c in lint_help["checkpoints"] if c["kind"] == "turn"] == [
        "/lint",
        f"/help {HELP_QUESTION}",
    ]
    assert lint_help["violations"] == []
    assert [c["error"] for c in lint_help["hook_calls"] if c["error"]] == []
