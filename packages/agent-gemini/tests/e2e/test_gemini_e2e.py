"""The real Gemini CLI against our scripted API, with our hooks calling the simulator's ``entire``, for every
version of the support window (``entire_agent_google_gemini.versions.WINDOW``).

One scenario per version (module fixture), asserted piece by piece:

1. a git repository whose ``.gemini/settings.json`` has the user's comments; ``entire enable`` installs
   our hooks through the simulator;
2. inside ``unshare -n`` (loopback only): turn 1 (write_file), turn 2 resuming that session (replace),
   a subagent turn (invoke_agent -> generalist writes sub.txt), a turn with four model calls (three
   write_file calls), and, resuming that session, a turn whose first model call reports a full context
   window so Gemini compresses the chat before the second (the PreCompress before the third sees it);
3. the session of turns 1-2 is deleted from Gemini's chats (unless Gemini's start-up clean-up already
   did) and restored by ``entire resume`` through our write-session, then resumed by Gemini for a last
   turn;
4. ``entire disable`` uninstalls: the settings file is byte for byte what the user wrote.

Gemini is installed from npm into ``~/.cache/entire-agents-e2e/gemini-cli-<version>`` (reused when there).
Before 0.39 (single-JSON chats), a subagent is a tool named after the agent that our ``invoke_agent``
hooks do not see (no task; the turn still gets its files and tokens), and a compression leaves no trace
in the chat: those checks expect exactly that.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from entire_agent_google_gemini.versions import WINDOW
from entire_core import views
from entire_core.versions import parse_version
from entire_sim import e2e

pytestmark = pytest.mark.e2e

JSONL_CHATS = (0, 39, 0)
"""The first version that records JSONL chats and runs subagents through ``invoke_agent``."""
AGENT = "google-gemini"
HERE = Path(__file__).parent
MODEL = "gemini-2.5-flash"
USER_SETTINGS = """// My Gemini settings for this project (hand-written)
{
  // keep the UI quiet
  "ui": {"hideTips": true},
  /* the model I use here */
  "model": {"name": "gemini-2.5-flash"}
}
"""
CALL = {
    "input_tokens": 60,
    "cache_creation_tokens": 0,
    "cache_read_tokens": 40,
    "output_tokens": 13,
    "api_call_count": 1,
}
"""One scripted model call by Entire's formula: 100 prompt - 40 cached, 10 + 3 thoughts out."""
VIEW_BUDGET = 32768
"""Small enough that the session is re-based mid-session; large enough for one scripted turn wrapped as
generic JSONL (each line restates its prompt or reply beside the native record, about twice the bytes)."""
"""A small view budget: the CLI's view of the session of turns 1-2 is re-based at turn 2's start (before
it is restored), and the compression turn's at its start. Each turn must still fit in it whole: a turn's
file writes and prompts are never cut."""
PROMPT_ONE = "Create hello.txt with a greeting. Background, kept whole in the transcript: " + (
    "the quick brown fox jumps over the lazy dog, " * 180
).strip(", ")
"""Turn 1's prompt, long enough (8 KiB) that the view passes half its budget by turn 2's start."""


def calls(n: int, first_prompt: int = 100, **sub: Any) -> dict[str, Any]:
    """Usage of ``n`` scripted calls as the simulator records it (Go's struct: every field present)."""
    usage: dict[str, Any] = {k: v * n for k, v in CALL.items()}
    usage["input_tokens"] += first_prompt - 100
    return {**usage, "cache_creation_1h_tokens": 0, "subagent_tokens": sub.get("subagent_tokens")}


# -- installing Gemini and the namespace -------------------------------------------------------------------


def run_in_namespace(plan: dict[str, Any], work: Path, name: str) -> dict[str, Any]:
    """Run the driver with the plan inside a fresh loopback-only network namespace."""
    plan = {**plan, "results": str(work / f"{name}-results.json"), "api_log": str(work / f"{name}-api.jsonl")}
    plan_file = work / f"{name}-plan.json"
    plan_file.write_text(json.dumps(plan, indent=2))
    argv = e2e.in_loopback_namespace([sys.executable, str(HERE / "driver.py"), str(plan_file)])
    proc = subprocess.run(argv, capture_output=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-3000:]
    results = json.loads(Path(plan["results"]).read_text())
    for step in results["steps"]:
        assert step["code"] == 0, f"gemini step {step['name']} failed: {step['stderr']}"
    return results


# -- the scenario ------------------------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


class Scenario:
    """Everything one run produced, for the tests below to check."""

    def __init__(self, work: Path, version: str) -> None:
        parsed = parse_version(version)
        assert parsed is not None
        self.version = version
        self.legacy = parsed < JSONL_CHATS
        # The simulator's seam: Simulator(repo, state_dir, env), install_shim, env, enable, resume,
        # disable, hook_calls, checkpoints, violations.
        from entire_sim import Simulator

        self.work = work
        self.repo = work / "repo"
        self.home = work / "home"
        (self.home / ".gemini").mkdir(parents=True)
        (self.home / ".gemini" / "settings.json").write_text(json.dumps({
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
            "security": {"auth": {"selectedType": "gemini-api-key"}},
        }))  # fmt: skip
        self.repo.mkdir()
        _git(self.repo, "init", "-q", "-b", "main")
        _git(self.repo, "config", "user.email", "e2e@example.com")
        _git(self.repo, "config", "user.name", "e2e")
        (self.repo / "README.md").write_text("# e2e\n")
        (self.repo / ".gemini").mkdir()
        (self.repo / ".gemini" / "settings.json").write_text(USER_SETTINGS)
        _git(self.repo, "add", ".")
        _git(self.repo, "commit", "-q", "-m", "init")

        base_env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
        base_env.update({"HOME": str(self.home), "GEMINI_API_KEY": "scripted", "GEMINI_CLI_TRUST_WORKSPACE": "true",
                         "GEMINI_TELEMETRY_ENABLED": "false", "NO_BROWSER": "1", "CI": "1", "TERM": "dumb",
                         "ENTIRE_VIEW_BUDGET": str(VIEW_BUDGET)})  # fmt: skip
        self.sim = Simulator(repo=self.repo, state_dir=work / "sim-state", env=base_env)
        self.sim.install_shim(work / "bin")
        self.installed = self.sim.enable(AGENT)
        self.settings_after_enable = (self.repo / ".gemini" / "settings.json").read_text()
        gemini = str(e2e.npm_tool("@google/gemini-cli", version, "gemini"))
        plan = {"gemini": gemini, "workdir": str(self.repo), "env": self.sim.env()}
        run = ["--yolo", "-m", MODEL, "-o", "json"]
        self.phase1 = run_in_namespace({**plan, "steps": [
            {"name": "turn1", "args": ["-p", PROMPT_ONE, *run]},
            {"name": "turn2", "args": ["-p", "Now change hello to goodbye", "--resume", "{session:turn1}", *run]},
            {"name": "subagent", "args": ["-p", "Use a subagent to create sub.txt", *run]},
            {"name": "multi", "args": ["-p", "Write three files one by one", *run]},
            {"name": "compress", "args": ["-p", "Write big.txt, then compress the chat", "--resume", "{session:multi}",
                                          *run]},
        ]}, work, "phase1")  # fmt: skip
        self.sessions: dict[str, str] = self.phase1["sessions"]
        self.views = Path(
            self.sim.plugin(AGENT).json("get-session-dir", "--repo-path", str(self.repo))["session_dir"]
        )
        self.chats = self.home / ".gemini" / "tmp" / "repo" / "chats"
        # Gemini's start-up clean-up deletes a session resumed across a minute boundary (the stray file
        # of that resume is "not resumable", and every file sharing its short id goes with it): whether it
        # already did depends on the clock, so the test deletes whatever is left and checks it is gone.
        for path in self.session_files("turn1"):
            path.unlink()
        self.left_before_restore = self.session_files("turn1")
        self.stored_turn1 = (self.sim.state.metadata(self.sessions["turn1"]) / "full.jsonl").read_bytes()
        self.restored = self.sim.resume(AGENT, self.sessions["turn1"])
        self.restored_files = self.session_files("turn1")
        self.restored_bytes = [p.read_bytes() for p in self.restored_files]
        self.phase2 = run_in_namespace({**plan, "steps": [
            {"name": "turn3", "args": ["-p", "Say hi", "--resume", self.sessions["turn1"], *run]},
        ]}, work, "phase2")  # fmt: skip
        self.settings_at_end = (self.repo / ".gemini" / "settings.json").read_text()
        self.summary, self.summary_copies = summarise(self.home, plan, work)
        self.hook_calls = self.sim.hook_calls()
        self.checkpoints = self.sim.checkpoints()
        self.violations = self.sim.violations()
        self.sim.disable(AGENT)
        self.settings_after_disable = (self.repo / ".gemini" / "settings.json").read_text()

    def session_files(self, session: str) -> list[Path]:
        """The chat files of a session in Gemini's own chats directory."""
        short_id = self.sessions[session][:8]
        return sorted(self.chats.glob(f"session-*-{short_id}*.json*"))  # .json before 0.39

    def events(self, session: str) -> list[str]:
        sid = self.sessions[session]
        return [
            str(c["event_name"]) for c in self.hook_calls if c["event"] and c["event"]["session_id"] == sid
        ]

    def hooks_fired(self, session: str, hook: str) -> int:
        sid = self.sessions[session]
        return sum(
            1 for c in self.hook_calls if c["hook"] == hook and (c["payload"] or {}).get("session_id") == sid
        )

    def api_log(self, phase: str) -> list[dict[str, Any]]:
        lines = (self.work / f"{phase}-api.jsonl").read_text().splitlines()
        return [json.loads(line) for line in lines]

    def turns(self, session: str) -> list[dict[str, Any]]:
        sid = self.sessions[session]
        return [c for c in self.checkpoints if c["kind"] == "turn" and c["session_id"] == sid]


SUMMARY_MARK = "SUMMARISED-TEXT-7f3a"
"""In the text ``generate-text`` is asked to summarise: no file may hold it afterwards."""


def summarise(home: Path, plan: dict[str, Any], work: Path) -> tuple[dict[str, Any], list[str]]:
    """``generate-text`` through the real Gemini, signed in as a user may be (the key in ``~/.gemini/.env``,
    none in the environment), in a TMPDIR of its own: its result (``left``: what is new under the home and
    that TMPDIR afterwards), and every file under the home that holds the summarised text."""
    (home / ".gemini" / ".env").write_text("GEMINI_API_KEY=scripted\n")
    tmp = work / "summary-tmp"
    tmp.mkdir()
    plugin = str(Path(sys.executable).parent / "entire-agent-google-gemini")
    path = os.pathsep.join([str(Path(plan["gemini"]).parent), plan["env"]["PATH"]])
    results = run_in_namespace({**plan, "steps": [{
        "name": "summary", "argv": [plugin, "generate-text"], "watch": [str(home), str(tmp)],
        "stdin": f"Summarise this session in one sentence: the user asked for hello.txt. {SUMMARY_MARK}",
        "env": {"GEMINI_API_KEY": None, "TMPDIR": str(tmp), "PATH": path},
    }]}, work, "summary")  # fmt: skip
    copies = [str(p) for p in home.rglob("*") if p.is_file() and SUMMARY_MARK.encode() in p.read_bytes()]
    return results["steps"][0], copies


@pytest.fixture(scope="module", params=WINDOW.versions())
def scenario(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return Scenario(tmp_path_factory.mktemp(f"gemini-e2e-{request.param}"), request.param)


def test_enable_installs_our_hooks_and_keeps_the_users_comments(scenario: Scenario) -> None:
    assert scenario.installed == 7
    for text in (scenario.settings_after_enable, scenario.settings_at_end):
        assert "// My Gemini settings for this project (hand-written)" in text
        assert "// keep the UI quiet" in text and "/* the model I use here */" in text
        assert "entire hooks google-gemini after-agent" in text
    assert scenario.settings_after_disable == USER_SETTINGS


def test_no_violations(scenario: Scenario) -> None:
    assert scenario.violations == []
    assert all(not c["error"] for c in scenario.hook_calls)


def test_each_turn_is_one_turn_start_and_one_turn_end(scenario: Scenario) -> None:
    assert scenario.events("turn1") == [
        "SessionStart", "TurnStart", "TurnEnd", "SessionEnd",  # turn 1
        "SessionStart", "TurnStart", "TurnEnd", "SessionEnd",  # turn 2 (--resume)
        "SessionStart", "TurnStart", "TurnEnd", "SessionEnd",  # turn 3 (--resume of the restored session)
    ]  # fmt: skip
    subagent = [] if scenario.legacy else ["SubagentStart", "SubagentEnd"]
    assert scenario.events("subagent") == ["SessionStart", "TurnStart", *subagent, "TurnEnd", "SessionEnd"]
    assert scenario.events("multi")[:4] == ["SessionStart", "TurnStart", "TurnEnd", "SessionEnd"]


def test_precompress_before_every_model_call_is_not_a_compaction(scenario: Scenario) -> None:
    # Gemini fires PreCompress before every model call with history: four in the multi-call turn; in the
    # subagent turn the main agent's two and the subagent's second (under the parent's session)
    first_turn = [c for c in scenario.hook_calls if c["hook"] == "pre-compress"
                  and c["payload"]["session_id"] == scenario.sessions["multi"]][:4]  # fmt: skip
    assert len(first_turn) == 4 and all(c["event"] is None for c in first_turn)
    assert scenario.hooks_fired("subagent", "pre-compress") == 3
    assert "Compaction" not in scenario.events("multi")[:4] + scenario.events("subagent") + scenario.events(
        "turn1"
    )


def test_a_real_compression_is_exactly_one_compaction(scenario: Scenario) -> None:
    # Gemini compressed the chat before the turn's second model call, after the PreCompress hook that
    # announced it; the PreCompress before the third call finds the compression in the chat file
    # (a single-JSON chat keeps no trace of it: no Compaction before 0.39)
    compaction = [] if scenario.legacy else ["Compaction"]
    assert scenario.events("multi")[4:] == ["SessionStart", "TurnStart", *compaction, "TurnEnd", "SessionEnd"]
    summaries = [e for e in scenario.api_log("phase1") if ":generateContent" in e["path"]
                 and "<state_snapshot>" in json.dumps(e["answer"])]  # fmt: skip
    assert summaries, "Gemini did not ask the scripted API for a compression summary"


def test_turn_files_prompts_and_tokens(scenario: Scenario) -> None:
    (t1, t2, t3) = scenario.turns("turn1")
    assert (t1["prompt"], t1["transcript_files"], t1["tokens"]) == (
        PROMPT_ONE,
        ["hello.txt"],
        calls(2),
    )
    assert (t2["prompt"], t2["transcript_files"], t2["tokens"]) == (
        "Now change hello to goodbye",
        ["hello.txt"],
        calls(2),
    )
    assert t2["turn_offset"] > 0 and t2["session_ref"] == t1["session_ref"]
    assert (t3["prompt"], t3["transcript_files"]) == ("Say hi", [])
    (sub,) = scenario.turns("subagent")
    assert sub["transcript_files"] == ["sub.txt"]  # before 0.39: from the chat whose first prompt is the task
    assert sub["tokens"] == calls(2, subagent_tokens=calls(2))
    (multi, _) = scenario.turns("multi")
    assert multi["prompt"] == "Write three files one by one"
    assert multi["transcript_files"] == ["one.txt", "two.txt", "three.txt"]
    assert multi["tokens"] == calls(4)
    (_, big) = scenario.turns("multi")
    assert big["transcript_files"] == ["big.txt", "small.txt"]
    assert big["tokens"] == calls(3, first_prompt=950_000)


def test_the_subagent_task_gets_exactly_its_own_file(scenario: Scenario) -> None:
    sid = scenario.sessions["subagent"]
    starts = [c["event"] for c in scenario.hook_calls if c["event_name"] == "SubagentStart"]
    ends = [c["event"] for c in scenario.hook_calls if c["event_name"] == "SubagentEnd"]
    if scenario.legacy:  # the subagent ran as the tool "generalist": no task
        assert starts == ends == []
        assert [c for c in scenario.checkpoints if c["kind"] == "task"] == []
        return
    assert len(starts) == len(ends) == 1
    assert starts[0]["tool_use_id"] == ends[0]["tool_use_id"]
    assert ends[0]["subagent_type"] == "generalist" and ends[0]["subagent_id"]
    (task,) = [c for c in scenario.checkpoints if c["kind"] == "task" and c["session_id"] == sid]
    assert task["transcript_files"] == ["sub.txt"]
    assert task["session_ref"].endswith(f"/{sid}/{ends[0]['subagent_id']}.jsonl")


def test_the_view_is_rebased_mid_session_and_stays_in_budget(scenario: Scenario) -> None:
    """With a 4 KiB budget the CLI's transcript of turns 1-2 was re-based: it starts with a snapshot."""
    (t1, t2, t3) = scenario.turns("turn1")
    assert all(Path(t["session_ref"]).parent == scenario.views for t in (t1, t2, t3))  # get-session-dir
    assert not str(scenario.views).startswith(str(scenario.repo))
    if scenario.legacy:  # a single-JSON chat is mirrored whole, never re-based
        assert views.MARKER_PREFIX not in scenario.stored_turn1
    else:
        assert views.MARKER_PREFIX in scenario.stored_turn1  # a header that keeps the lines (views v2)
        assert len(scenario.stored_turn1) <= VIEW_BUDGET
        assert all(c.get("transcript_bytes", 0) <= VIEW_BUDGET for c in scenario.checkpoints)
    assert t1["turn_offset"] < t2["turn_offset"] < t3["turn_offset"]  # positions only grow
    assert scenario.violations == []


def test_resume_restores_a_deleted_session_for_gemini(scenario: Scenario) -> None:
    (_, _, t3) = scenario.turns("turn1")
    assert scenario.left_before_restore == []
    assert [p.parent for p in scenario.restored_files] == [scenario.chats]
    # The re-based view's chat (unwrapped, the header's padding and marker dropped), where Gemini looks.
    assert scenario.restored_bytes == [views.native_bytes(scenario.stored_turn1, wrapped=True)]
    # Gemini resumed the view's checkpoint: its first request carries the earlier turns' prompts
    first = next(e for e in scenario.api_log("phase2") if ":streamGenerateContent" in e["path"])
    history = json.dumps(first["history"])
    assert PROMPT_ONE in history and "Now change hello to goodbye" in history
    assert "Say hi" in history
    assert scenario.restored["command"] == f"gemini --resume {scenario.sessions['turn1']}"
    answer = scenario.phase2["steps"][0]["answer"]
    assert answer["session_id"] == scenario.sessions["turn1"]  # Gemini found the restored session
    assert t3["turn_offset"] > 0  # the restored file held the earlier turns


def test_generate_text_answers_and_leaves_nothing_behind(scenario: Scenario) -> None:
    """A summary through the real Gemini, the key read from ``~/.gemini/.env`` as the user keeps it: nothing
    new under the home (Gemini's chat of the run, its project) or TMPDIR, and no file holds the text."""
    assert json.loads(scenario.summary["stdout"])["text"], scenario.summary
    assert scenario.summary["left"] == []
    assert scenario.summary_copies == []
