"""Real Aider, interactive, asked with ``/ask <text>``: one prompt, one turn, one model call.

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


@pytest.fixture(scope="module", params=WINDOW.versions())
def report(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    venv = e2e.pypi_tool("aider-chat", request.param).parent
    work = tmp_path_factory.mktemp(f"aider-ask-{request.param}")
    plugin = Path(sys.executable).parent / "entire-agent-aider"
    cost_map = next(
        (venv / "lib").glob("python3*/site-packages/litellm/model_prices_and_context_window_backup.json")
    )
    config = {"work": str(work / "w"), "out": str(work / "report.json"), "plugin_bin": str(plugin.parent),
              "aider_bin": str(venv / "bin"), "cost_map": str(cost_map)}  # fmt: skip
    (work / "config.json").write_text(json.dumps(config))
    driver = [sys.executable, str(HERE / "chat_commands_driver.py"), str(work / "config.json")]
    result = subprocess.run(
        e2e.in_loopback_namespace(driver), capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, f"driver failed:\n{result.stdout}\n{result.stderr}"
    return json.loads(Path(config["out"]).read_text())


def test_aider_logged_the_ask_twice(report: dict[str, Any]) -> None:
    # The shape the plugin has to read: the typed command, then its text as a block of its own.
    assert f"\n#### /ask {QUESTION}  \n\n#### {QUESTION}  \n" in report["history"]
    assert report["run"]["exit_code"] == 0
    assert len(report["requests"]) == 2  # two model calls: the /ask and the typed question


def test_the_ask_is_one_prompt_in_the_typed_form(report: dict[str, Any]) -> None:
    events = [c["event"] for c in report["hook_calls"] if c["event"] is not None]
    assert [e["type"] for e in events] == [1, 2, 3, 2, 3]
    assert [e["prompt"] for e in events if e["type"] == 2] == [f"/ask {QUESTION}", QUESTION]
    assert report["violations"] == []
    assert [c["error"] for c in report["hook_calls"] if c["error"]] == []
