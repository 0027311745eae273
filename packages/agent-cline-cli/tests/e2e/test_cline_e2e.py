"""The real Cline CLI against our scripted server, with our hooks calling the simulator's ``entire``, for
every version of the support window (``entire_agent_cline_cli.versions.WINDOW``).

One scenario per version (module fixture): a git repository with a hook file of the user's
(``.cline/hooks/TaskComplete``); ``entire enable`` writes ours beside it; inside ``unshare -n`` (loopback
only) five ``cline --json`` runs, each its own session (a write, an edit, a shell delete, a subagent, a
text-only answer), then the first session resumed in the TUI for one more turn; ``entire disable``
uninstalls. Cline is installed from npm into ``~/.cache/entire-agents-e2e/cline-<version>``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from entire_agent_cline_cli.versions import WINDOW
from entire_sim import e2e

pytestmark = pytest.mark.e2e

AGENT = "cline-cli"
HERE = Path(__file__).parent
PROMPTS = [
    "write hello please",
    "edit hello now",
    "delete old.txt",
    "use a subagent please",
    "just say <b>hi</b> & bye",
]
RESUMED = "write again please"
USER_HOOK = b"#!/bin/sh\n# mine\ntrue\n"
SUMMARY_MARK = "summary-mark-5d1c"
"""In the text ``generate-text`` is asked to summarise: no file of Cline's may hold it afterwards."""


def calls(tools: int, texts: int, **sub: Any) -> dict[str, Any]:
    """Usage of scripted calls (``model_server``): a tool call 100 in, 40 cached, 10 out; a text answer 100
    in, 60 cached, 40 out (30 of them reasoning, inside the 40). Entire's input is the prompt less the cache."""
    return {"input_tokens": 60 * tools + 40 * texts, "cache_creation_tokens": 0,
            "cache_read_tokens": 40 * tools + 60 * texts, "output_tokens": 10 * tools + 40 * texts,
            "api_call_count": tools + texts, "cache_creation_1h_tokens": 0,
            "subagent_tokens": sub.get("subagent_tokens")}  # fmt: skip


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path in the repository but ``.git`` and the host's ``.entire``."""
    return {str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes())
            for p in sorted(root.rglob("*")) if p.relative_to(root).parts[0] not in (".git", ".entire")}  # fmt: skip


class Scenario:
    def __init__(self, work: Path, version: str) -> None:
        from entire_sim import Simulator

        self.repo, self.home = work / "repo", work / "home"
        self.home.mkdir()
        self.repo.mkdir()
        (self.repo / "old.txt").write_text("old\n")
        (self.repo / ".cline" / "hooks").mkdir(parents=True)
        (self.repo / ".cline" / "hooks" / "TaskComplete").write_bytes(USER_HOOK)
        for args in (["init", "-q", "-b", "main"], ["config", "user.email", "e2e@example.com"],
                     ["config", "user.name", "e2e"], ["add", "."], ["commit", "-q", "-m", "init"]):  # fmt: skip
            subprocess.run(["git", *args], cwd=self.repo, check=True, capture_output=True)
        self.before = tree(self.repo)
        data = work / "cline-data"
        base_env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
        base_env.update({"HOME": str(self.home), "CLINE_DATA_DIR": str(data), "CLINE_SESSION_BACKEND_MODE": "local",
                         "CLINE_TELEMETRY_DISABLED": "1", "CLINE_NO_AUTO_UPDATE": "1"})  # fmt: skip
        self.sim = Simulator(repo=self.repo, state_dir=work / "sim-state", env=base_env)
        self.sim.install_shim(work / "bin")
        self.installed = self.sim.enable(AGENT)
        self.hook_files = sorted(os.listdir(self.repo / ".cline" / "hooks"))
        cline = str(e2e.npm_tool("cline", version, "cline"))
        steps: list[dict[str, Any]] = [{"name": f"t{i + 1}", "prompt": p} for i, p in enumerate(PROMPTS)]
        steps.append({"name": "resumed", "resume": "t1", "tui": [RESUMED]})
        plugin = str(Path(sys.executable).parent / "entire-agent-cline-cli")
        path = os.pathsep.join([str(Path(cline).parent), base_env["PATH"]])
        steps.append({"name": "summary", "argv": [plugin, "generate-text"], "env": {"PATH": path},
                      "stdin": f"Summarise this session in one sentence. {SUMMARY_MARK}"})  # fmt: skip
        plan = {"cline": cline, "workdir": str(self.repo), "env": self.sim.env(), "steps": steps, "settle": 3,
                "sessions": str(data / "sessions"), "results": str(work / "results.json"),
                "api_log": str(work / "api.jsonl")}  # fmt: skip
        (work / "plan.json").write_text(json.dumps(plan))
        argv = e2e.in_loopback_namespace([sys.executable, str(HERE / "driver.py"), str(work / "plan.json")])
        proc = subprocess.run(argv, capture_output=True, timeout=900, check=False)
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-3000:]
        self.results = json.loads((work / "results.json").read_text())
        for step in self.results["steps"]:
            assert step.get("code", 0) == 0, f"cline step {step['name']} failed: {step}"
        self.sessions = self.results["sessions"]
        self.data = data
        self.api = [json.loads(line) for line in (work / "api.jsonl").read_text().splitlines()]
        self.hook_calls, self.checkpoints, self.violations = (
            self.sim.hook_calls(), self.sim.checkpoints(), self.sim.violations())  # fmt: skip
        self.sim.disable(AGENT)
        self.after = tree(self.repo)

    def turns(self, step: str) -> list[dict[str, Any]]:
        return [c for c in self.checkpoints if c["kind"] == "turn" and c["session_id"] == self.sessions[step]]


@pytest.fixture(scope="module", params=WINDOW.versions())
def scenario(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    e2e.require_loopback_namespace()
    return Scenario(tmp_path_factory.mktemp(f"cline-e2e-{request.param}"), request.param)


def test_enable_beside_the_users_hook_and_disable_gives_the_repository_back(scenario: Scenario) -> None:
    assert scenario.installed == 5
    assert scenario.hook_files == ["TaskCancel", "TaskComplete", "TaskComplete.sh", "TaskError", "TaskResume",
                                   "TaskStart"]  # fmt: skip
    created = {k for k in scenario.after if k not in scenario.before}
    assert created <= {"hello.txt", "sub.txt", "again.txt"}, created
    assert scenario.after[".cline/hooks/TaskComplete"] == USER_HOOK
    assert {k: v for k, v in scenario.after.items() if k not in created and k != "old.txt"} == {
        k: v for k, v in scenario.before.items() if k != "old.txt"}  # fmt: skip


def test_no_violations_and_no_errors(scenario: Scenario) -> None:
    assert scenario.violations == []
    assert [c for c in scenario.hook_calls if c["error"]] == []
    stopped = scenario.results["steps"][-1]
    assert stopped["name"] == "hub daemons stopped"


def test_each_run_is_one_turn_with_its_prompt_files_and_tokens(scenario: Scenario) -> None:
    write, edit, delete, sub, text = (scenario.turns(f"t{i}") for i in range(1, 6))
    assert [t[0]["prompt"] for t in (write, edit, delete, sub, text)] == PROMPTS
    assert (write[0]["transcript_files"], write[0]["tokens"]) == (["hello.txt"], calls(1, 1))
    assert (edit[0]["transcript_files"], edit[0]["tokens"]) == (["hello.txt"], calls(1, 1))
    assert (delete[0]["transcript_files"], delete[0]["tokens"]) == ([], calls(1, 1))
    assert sub[0]["transcript_files"] == ["sub.txt"]
    assert sub[0]["tokens"] == calls(1, 1, subagent_tokens=calls(1, 1))
    # the text-only turn changed nothing itself (the deleted old.txt is still uncommitted in the worktree)
    assert (text[0]["transcript_files"], text[0]["tokens"]) == ([], calls(0, 1))


def test_the_resumed_session_goes_on_in_its_view(scenario: Scenario) -> None:
    turns = scenario.turns("t1")
    assert [t["prompt"] for t in turns] == [PROMPTS[0], RESUMED]
    assert turns[1]["transcript_files"] == ["again.txt"]
    assert turns[1]["tokens"] == calls(1, 1)
    assert turns[0]["turn_offset"] < turns[1]["turn_offset"]


def test_a_session_restored_from_its_checkpoint_resumes_with_every_prompt(
    scenario: Scenario, tmp_path: Path
) -> None:
    """``entire session resume``'s ``write-session`` into a Cline that lost the session (its folder and its
    row in ``sessions.db`` gone): ``cline --id`` resumes it, and its next request carries the earlier turns."""
    import shutil
    import sqlite3

    session = scenario.sessions["t1"]
    original = (scenario.data / "sessions" / session / f"{session}.messages.json").read_bytes()
    shutil.rmtree(scenario.data / "sessions" / session)
    with sqlite3.connect(scenario.data / "db" / "sessions.db") as db:
        db.execute("DELETE FROM sessions WHERE session_id = ?", (session,))
    db.close()
    scenario.sim.resume(AGENT, session)
    restored = (scenario.data / "sessions" / session / f"{session}.messages.json").read_bytes()
    assert json.loads(restored)["messages"] == json.loads(original)["messages"]
    plan = json.loads((scenario.repo.parent / "plan.json").read_text())
    plan.update(steps=[{"name": "r", "resume": session, "tui": ["say hi again"]}], settle=1,
                results=str(tmp_path / "results.json"), api_log=str(tmp_path / "api.jsonl"))  # fmt: skip
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    argv = e2e.in_loopback_namespace([sys.executable, str(HERE / "driver.py"), str(tmp_path / "plan.json")])
    assert subprocess.run(argv, capture_output=True, timeout=600, check=False).returncode == 0
    requests = [
        json.loads(line)["body"]["messages"] for line in (tmp_path / "api.jsonl").read_text().splitlines()
    ]
    assert requests, json.loads((tmp_path / "results.json").read_text())
    asked = json.dumps(requests[0], ensure_ascii=False)
    assert all(p in asked for p in (PROMPTS[0], RESUMED, "say hi again")), asked[:3000]


def test_generate_text_answers_through_cline_and_leaves_no_session(scenario: Scenario) -> None:
    """``generate-text`` through the real Cline, with the provider ``cline auth`` saved: the scripted answer,
    one request carrying the prompt, no tools that write or run anything, and nothing of it in Cline's data."""
    summary = next(s for s in scenario.results["steps"] if s["name"] == "summary")
    assert (summary["code"], summary["new_sessions"]) == (0, []), summary
    assert json.loads(summary["stdout"]) == {"text": "Hello from the scripted model."}
    (asked,) = [r for r in scenario.api if SUMMARY_MARK in json.dumps(r["body"])]
    assert "editor" not in asked["tools"] and "run_commands" in asked["tools"]  # plan mode: no editor
    assert [
        str(p) for p in scenario.data.rglob("*") if p.is_file() and SUMMARY_MARK.encode() in p.read_bytes()
    ] == []
