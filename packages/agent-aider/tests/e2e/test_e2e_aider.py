"""Real Aider against the scripted model server, in a loopback-only network namespace, for every version
of the support window (``entire_agent_aider.versions.WINDOW``).

Each Aider version is installed from PyPI into a cached virtual environment (``entire_sim.e2e.pypi_tool``), never
into the workspace. With our hooks installed into a user's commented ``.aider.conf.yml`` by Entire's
simulator (``entire_sim``) and its ``entire`` shim first on PATH, one interactive session runs in a
pseudo-terminal through the launcher (non-streaming, with an analytics log for exact tokens) and one
as plain ``aider`` (streaming), which must report nothing: two edit turns (the second creates a
file, so Aider asks "Create new file?" and rings the notification before the edit is applied) and an
answer-only turn each. The scripted answers report cache figures as OpenAI, DeepSeek and (in a fourth
session on Anthropic's API with --cache-prompts) Anthropic send them. The checks are on what the
simulator recorded: hook calls, events, checkpoints and violations.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from entire_agent_aider.versions import WINDOW
from entire_core import views
from entire_sim import e2e

HERE = Path(__file__).parent
pytestmark = pytest.mark.e2e

PROMPTS = [
    "EDIT-GREET: add a greet function to hello.py",
    "CREATE-NOTES: create NOTES.md\nwith a two-line prompt",
    "What does greet do?",
]


def plugin_script() -> Path:
    script = Path(sys.executable).parent / "entire-agent-aider"
    if not script.exists():
        pytest.fail(f"{script} is missing: run 'uv sync --all-packages' first")
    return script


@pytest.fixture(scope="module", params=WINDOW.versions())
def report(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    venv = e2e.pypi_tool("aider-chat", request.param).parent
    work = tmp_path_factory.mktemp(f"aider-e2e-{request.param}")
    cost_map = next(
        (venv / "lib").glob("python3*/site-packages/litellm/model_prices_and_context_window_backup.json")
    )
    config = {
        "work": str(work / "w"),
        "out": str(work / "report.json"),
        "plugin": str(plugin_script()),
        "plugin_bin": str(plugin_script().parent),
        "aider_bin": str(venv / "bin"),
        "cost_map": str(cost_map),
    }
    (work / "config.json").write_text(json.dumps(config))
    command = e2e.in_loopback_namespace([sys.executable, str(HERE / "driver.py"), str(work / "config.json")])
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert result.returncode == 0, f"driver failed:\n{result.stdout}\n{result.stderr}"
    data: dict[str, Any] = json.loads(Path(config["out"]).read_text())
    data["version"] = request.param
    return data


def _sessions(report: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Events per session id, in delivery order."""
    order: dict[str, list[dict[str, Any]]] = {}
    for call in report["hook_calls"]:
        if call["event"] is not None:
            order.setdefault(call["event"]["session_id"], []).append(call["event"])
    return list(order.values())


def test_both_runs_exit_cleanly(report: dict[str, Any]) -> None:
    banners = [line.strip() for line in report["history"].splitlines() if line.startswith("> Aider v")]
    assert len(banners) >= 2 and set(banners) == {
        f"> Aider v{report['version']}"
    }  # the version under test ran
    assert [(r["name"], r["exit_code"]) for r in report["runs"]] == [("launcher", 0), ("plain", 0)]
    assert report["hooks_installed"] == 1
    assert report["violations"] == []
    assert [c["error"] for c in report["hook_calls"] if c["error"]] == []
    kinds = [r["kind"] for r in report["requests"] if r["kind"] != "commit"]
    assert kinds == ["edit_greet", "create_notes", "plain"] * 2
    assert [r["stream"] for r in report["requests"] if r["kind"] != "commit"] == [False] * 3 + [True] * 3


def test_lifecycle_events(report: dict[str, Any]) -> None:
    [launched] = _sessions(report)  # plain Aider reported nothing
    assert [e["type"] for e in launched] == [1, 2, 3, 2, 3, 2, 3, 5]
    assert launched[0]["session_id"].startswith("aider-run-")
    assert [e["prompt"] for e in launched if e["type"] == 2] == PROMPTS
    assert all(e["timestamp"].endswith("Z") and os.path.isfile(e["session_ref"]) for e in launched)
    # SessionStart came from the launcher before Aider wrote anything; the turns from inside Aider.
    calls = report["hook_calls"][: report["calls_after_launcher"]]
    assert [(c["hook"], c["event_name"]) for c in calls] == [
        ("session-start", "SessionStart"),
        *[("turn-start", "TurnStart"), ("turn-end", "TurnEnd")] * 3,
        ("turn-end", "SessionEnd"),
    ]
    assert all(c["payload"]["source"] == "launcher" for c in calls)
    ended = {s["session_id"]: s["phase"] for s in report["sessions"]}
    assert ended == {launched[0]["session_id"]: "ended"}


def test_plain_aider_reports_nothing(report: dict[str, Any]) -> None:
    # Aider commits before it rings: a turn heard from the notification would land on the wrong commit.
    assert report["hook_calls"][report["calls_after_launcher"] :] == []


def test_plain_aider_shows_the_launcher_at_each_notification(report: dict[str, Any]) -> None:
    """Aider prints a notification command's stderr only when it fails, as a warning it also logs: the
    plain session shows the one line that names the launcher; the launched session shows nothing."""
    said = (
        "> Failed to run notifications command: entire-agent-aider notify: plain `aider` records nothing in "
        "Entire: start Aider with `entire-agent-aider run -- <aider arguments>`"
    )
    # The sessions in order: launched, plain, the long one, then the one on Anthropic's API (all launched).
    launched, plain, *others = report["history"].split("# aider chat started at ")[1:]
    assert len(others) == 2, others
    assert said in plain, plain  # at each notification: after each reply, and at "Create new file?"
    assert said not in launched and all(said not in other for other in others)


def kind(checkpoints: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [c for c in checkpoints if c["kind"] == name]


def test_early_notification_does_not_end_the_turn(report: dict[str, Any]) -> None:
    # The CREATE-NOTES turn rang at "Create new file?": its TurnEnd must hold the applied edit.
    checkpoints = kind(report["checkpoints"], "turn")
    # (the first turn started at line 1, the view's own first line before it: its end reads from there,
    # its edit included; the Entire CLI reads a start of 0 as none and would read from its commit on)
    assert [c["transcript_files"] for c in checkpoints] == [["hello.py"], ["NOTES.md"], []]
    # Aider committed each edit during its turn: as the Entire CLI does, that commit was condensed
    # with the session active (a checkpoint of its own, with the files), and the turn saved nothing
    assert [c["files"] for c in checkpoints] == [[], [], []]
    assert [c["files"] for c in kind(report["checkpoints"], "commit")] == [["hello.py"], ["NOTES.md"]]
    assert all(c["mid_turn"] for c in kind(report["checkpoints"], "commit"))
    assert [c["prompt"] for c in checkpoints] == PROMPTS
    # the condensations cleared prompt.txt, so the edit turns' is what extract-prompts found in the turn
    # (the host's record has the same: tests/data/host/aider.json); the answer-only turn's follows the
    # second's, written back by that extraction
    assert [c["prompt_txt"] for c in checkpoints] == [*PROMPTS[:2], "\n\n---\n\n".join(PROMPTS[1:])]
    # Each turn's transcript is the session's view so far, and a turn starts at the line where the last
    # one ended (positions are lines, as the Entire CLI counts them; the launcher's view is re-based, so
    # its positions only grow).
    for one, two in itertools.pairwise(checkpoints):
        if one["session_id"] == two["session_id"] == checkpoints[-1]["session_id"]:
            assert two["turn_offset"] == one["transcript_lines"]
        elif one["session_id"] == two["session_id"]:
            assert two["turn_offset"] >= one["turn_offset"]


def test_tokens(report: dict[str, Any]) -> None:
    # The CLI computes usage where it saves files: at Aider's own commits (condensed mid-turn), not at
    # the turns' ends, whose files were committed already; the answer-only turn has none either.
    assert [c["tokens"] for c in kind(report["checkpoints"], "turn")] == [None] * 3
    checkpoints = kind(report["checkpoints"], "commit")
    # Exact from the analytics log (prompt_tokens 1234 each; the markdown says 1.2k), cache figures from
    # the Tokens line. EDIT-GREET's answer reported its 1024 cached tokens as OpenAI does, inside
    # prompt_tokens_details, which Aider never reads: all 1234 are input. CREATE-NOTES's reported 896
    # hits as DeepSeek does (prompt_cache_hit_tokens), which Aider shows: input = 1234 - 896 = 338.
    assert [c["tokens"] for c in checkpoints[:2]] == [_usage(1234, 0, 0, 56), _usage(338, 0, 896, 56)]


def _usage(fresh: int, written: int, read: int, output: int) -> dict[str, Any]:
    """One model call as the simulator stores it."""
    return {"input_tokens": fresh, "cache_creation_tokens": written, "cache_creation_1h_tokens": 0,
            "cache_read_tokens": read, "output_tokens": output, "api_call_count": 1, "subagent_tokens": None}  # fmt: skip


def test_anthropic_prompt_caching(report: dict[str, Any]) -> None:
    """A session on Anthropic's API with --cache-prompts: Aider's own litellm reads the answer's usage
    (input_tokens 128, cache_creation_input_tokens 1200, cache_read_input_tokens 2400, output_tokens 56;
    a prompt of 128 + 1200 + 2400 = 3728). Aider 0.86.2's sent is 3728 (litellm 1.81 counts both cache
    figures) + 1200 (Aider adds the writes) = 4928; 0.82.3's is 128 + 2400 (litellm 1.68 counts the
    reads) + 1200 = 3728. Either way Entire stores 128 fresh, 1200 written, 2400 read, 56 out."""
    assert report["anthropic_run"]["exit_code"] == 0
    sent = {"0.86.2": "4.9k", "0.82.3": "3.7k"}[report["version"]]
    assert f"> Tokens: {sent} sent, 1.2k cache write, 2.4k cache hit, 56 received.\n" in report["history"]
    [commit] = kind(report["anthropic_checkpoints"], "commit")
    assert commit["files"] == ["hello.py"]
    assert commit["tokens"] == _usage(128, 1200, 2400, 56)


def test_user_conf_survives_install_and_uninstall(report: dict[str, Any]) -> None:
    before = report["conf_before"]
    assert report["conf_installed"].startswith(before)
    assert "notifications-command: 'command -v entire-agent-aider" in report["conf_installed"]
    assert report["conf_after_uninstall"] == before


def test_a_rebased_view_resumes_with_the_earlier_prompts(report: dict[str, Any]) -> None:
    """A third session, launched with a 4 KiB view budget, had its view re-based mid-session. `entire
    resume` restores it as a history file of its own, and Aider, started with the resume command,
    sends the earlier turns' prompts to the model again."""
    assert report["long_run"]["exit_code"] == 0
    launched = kind(report["long_checkpoints"], "turn")
    assert [c["prompt"] for c in launched] == report["long_prompts"]
    assert all(c["transcript_bytes"] <= report["view_budget"] for c in launched)
    offsets = [c["turn_offset"] for c in launched]
    assert offsets == sorted(offsets)  # positions (lines) only grow across re-bases
    assert all("/.entire/" not in c["session_ref"] for c in [*report["checkpoints"], *launched])
    stored = report["stored_launcher"]
    assert "> entire-view:v1:" in stored  # re-based: a snapshot restates the earlier turns
    assert "#### QUESTION 1: what does greet do?  " in stored
    resume = report["resume"]
    assert resume["command"].startswith(
        "entire-agent-aider run -- --chat-history-file .entire/tmp/entire-agent-aider/aider-run-"
    )
    assert resume["command"].endswith(" --restore-chat-history")
    assert report["resumed"]["exit_code"] == 0
    # The restored history is Aider's own markdown out of the wrapped view.
    assert report["resumed"]["restored"] == views.native_bytes(stored.encode(), wrapped=True).decode()
    assert "> Restored previous conversation history." in report["resumed"]["appended"]
    resumed = report["resumed_prompt"]
    asked = [r for r in report["resumed_requests"] if r["kind"] == "plain" and resumed in r["users"][-1]]
    assert asked, report["resumed_requests"]
    # Aider's user messages are the history's "#### " lines, two trailing spaces and all.
    earlier = "\n".join(asked[0]["users"][:-1]).replace("  \n", "\n")
    for prompt in report["long_prompts"]:
        assert prompt in earlier
    assert report["violations"] == []


def test_generate_text_answers_and_leaves_nothing_behind(report: dict[str, Any]) -> None:
    """A summary through the real Aider, model and key from ``~/.aider.conf.yml``: nothing new under the
    home (``~/.aider``) or TMPDIR afterwards, and no file holds the summarised text."""
    summary = report["summary"]
    assert summary["code"] == 0, summary["stderr"]
    assert json.loads(summary["stdout"])["text"], summary
    assert summary["left"] == [] and summary["copies"] == []
