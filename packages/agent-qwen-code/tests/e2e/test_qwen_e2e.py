"""The real Qwen Code against our scripted server, with our hooks calling the simulator's ``entire``, for
every version of the support window (``entire_agent_qwen_code.versions.WINDOW``).

One scenario per version (module fixture): a git repository whose ``.qwen/settings.json`` has the user's
comments; ``entire enable`` installs our hooks; inside ``unshare -n`` (loopback only) four ``qwen -p``
turns in one session (the later three ``--resume`` it): a read, an edit, a shell delete, and a prompt
starting with ``<`` that runs a subagent (in the background from 0.23); ``entire disable`` uninstalls.
Qwen is installed from npm into ``~/.cache/entire-agents-e2e/qwen-code-<version>`` (reused when there).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from entire_agent_qwen_code.versions import WINDOW
from entire_core.versions import parse_version
from entire_sim import e2e

pytestmark = pytest.mark.e2e

AGENT = "qwen-code"
HERE = Path(__file__).parent
USER_SETTINGS = """// My Qwen settings for this project (hand-written)
{
  /* the model I use here */
  "model": {"name": "qwen-scripted"}
}
"""
PROMPTS = [
    "read notes please",
    "edit notes: hi to hello",
    "delete old.txt now",
    "<b>use a subagent</b> for sub.txt",
]
SUMMARY_MARK = "SUMMARISED-TEXT-7f3a"
"""In the text ``generate-text`` is asked to summarise: no file may hold it afterwards."""
BACKGROUND = (0, 23, 0)
"""From here the ``agent`` tool runs subagents in the background (seen in 0.23.4, not in 0.15.6)."""


def calls(tools: int, texts: int, **sub: Any) -> dict[str, Any]:
    """Usage of ``tools`` scripted calls answering with a tool call and ``texts`` answering with text, as
    the simulator records it (every field present).

    A tool call's usage (``openai_api.USAGE``): 100 prompt tokens, 40 cached, 10 completion tokens, so
    input = 100 - 40 = 60, cache read = 40, output = 10. A text answer's (``openai_api.REASONED``): 100
    prompt tokens, 60 cached, 40 completion tokens of which 30 reasoning, so input = 100 - 60 = 40, cache
    read = 60, output = 40 (the reasoning is inside the completion: not 40 + 30 = 70).
    """
    return {"input_tokens": 60 * tools + 40 * texts, "cache_creation_tokens": 0,
            "cache_read_tokens": 40 * tools + 60 * texts, "output_tokens": 10 * tools + 40 * texts,
            "api_call_count": tools + texts, "cache_creation_1h_tokens": 0,
            "subagent_tokens": sub.get("subagent_tokens")}  # fmt: skip


def init_repo(repo: Path) -> None:
    """A repository with one commit: notes.txt, old.txt and the user's commented settings."""
    repo.mkdir()
    (repo / "notes.txt").write_text("hi\n")
    (repo / "old.txt").write_text("old\n")
    (repo / ".qwen").mkdir()
    (repo / ".qwen" / "settings.json").write_text(USER_SETTINGS)
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "e2e@example.com"],
                 ["config", "user.name", "e2e"], ["add", "."], ["commit", "-q", "-m", "init"]):  # fmt: skip
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


class Scenario:
    """One version's run: what the simulator recorded, and the settings file at each step."""

    def __init__(self, work: Path, version: str) -> None:
        from entire_sim import Simulator

        self.background = (parse_version(version) or (0,)) >= BACKGROUND
        self.repo, self.home = work / "repo", work / "home"
        qwen_home = self.home / ".qwen"
        qwen_home.mkdir(parents=True)
        (qwen_home / "settings.json").write_text(json.dumps({
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
            "memory": {"enableManagedAutoMemory": False}}))  # fmt: skip
        init_repo(self.repo)
        base_env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
        base_env.update({"HOME": str(self.home), "QWEN_HOME": str(qwen_home), "QWEN_RUNTIME_DIR": str(qwen_home),
                         "OPENAI_API_KEY": "scripted", "OPENAI_MODEL": "qwen-scripted", "TERM": "dumb",
                         "QWEN_USAGE_STATISTICS_ENABLED": "false", "QWEN_CODE_DISABLE_PRECONNECT": "1",
                         "QWEN_DISABLE_AUTO_TITLE": "1", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"})  # fmt: skip
        self.sim = Simulator(repo=self.repo, state_dir=work / "sim-state", env=base_env)
        self.sim.install_shim(work / "bin")
        self.installed = self.sim.enable(AGENT)
        qwen = str(e2e.npm_tool("@qwen-code/qwen-code", version, "qwen"))
        sanitized = "".join(c if c.isalnum() else "-" for c in str(self.repo))
        resume = ["-r", "{session:t1}"]
        steps = [{"name": "t1", "args": ["-p", PROMPTS[0], "--yolo"]}]
        steps += [
            {"name": f"t{i + 2}", "args": [*resume, "-p", p, "--yolo"]} for i, p in enumerate(PROMPTS[1:])
        ]
        steps[-1]["settle"] = 3
        plan = {"qwen": qwen, "workdir": str(self.repo), "env": self.sim.env(), "steps": steps,
                "chats": str(qwen_home / "projects" / sanitized / "chats"),
                "results": str(work / "results.json"), "api_log": str(work / "api.jsonl")}  # fmt: skip
        (work / "plan.json").write_text(json.dumps(plan))
        self.plan = plan
        argv = e2e.in_loopback_namespace([sys.executable, str(HERE / "driver.py"), str(work / "plan.json")])
        proc = subprocess.run(argv, capture_output=True, timeout=1200, check=False)
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-3000:]
        self.results = json.loads((work / "results.json").read_text())
        for step in self.results["steps"]:
            assert step["code"] == 0, f"qwen step {step['name']} failed: {step['stderr']}"
        self.session = self.results["sessions"]["t1"]
        settings = self.repo / ".qwen" / "settings.json"
        self.settings_at_end = settings.read_text()
        self.summary, self.summary_copies = self.summarise(qwen, work)
        sim = self.sim
        self.hook_calls, self.checkpoints, self.violations = (
            sim.hook_calls(),
            sim.checkpoints(),
            sim.violations(),
        )
        sim.disable(AGENT)
        self.settings_after_disable = settings.read_text()

    def summarise(self, qwen: str, work: Path) -> tuple[dict[str, Any], list[str]]:
        """``generate-text`` through the real Qwen, as a user has it set up: auto-memory on (Qwen's default),
        the key and model in ``~/.qwen/.env`` and none in the environment, in a TMPDIR of its own. Its
        result (``left``: what is new under the home and that TMPDIR afterwards), and every file under the
        home that holds the summarised text."""
        qwen_home = self.home / ".qwen"
        settings = json.loads((qwen_home / "settings.json").read_text())
        del settings["memory"]
        (qwen_home / "settings.json").write_text(json.dumps(settings))
        (qwen_home / ".env").write_text("OPENAI_API_KEY=scripted\nOPENAI_MODEL=qwen-scripted\n")
        tmp = work / "summary-tmp"
        tmp.mkdir()
        plugin = str(Path(sys.executable).parent / "entire-agent-qwen-code")
        path = os.pathsep.join([str(Path(qwen).parent), self.plan["env"]["PATH"]])
        plan = {**self.plan, "results": str(work / "summary.json"), "api_log": str(work / "summary-api.jsonl"),
                "steps": [{"name": "summary", "argv": [plugin, "generate-text"], "watch": [str(self.home), str(tmp)],
                           "stdin": f"Summarise this session in one sentence: notes were edited. {SUMMARY_MARK}",
                           "env": {"OPENAI_API_KEY": None, "OPENAI_MODEL": None, "TMPDIR": str(tmp), "PATH": path}}]}  # fmt: skip
        (work / "summary-plan.json").write_text(json.dumps(plan))
        argv = e2e.in_loopback_namespace(
            [sys.executable, str(HERE / "driver.py"), str(work / "summary-plan.json")]
        )
        proc = subprocess.run(argv, capture_output=True, timeout=600, check=False)
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-3000:]
        (step,) = json.loads((work / "summary.json").read_text())["steps"]
        marked = [
            str(p) for p in self.home.rglob("*") if p.is_file() and SUMMARY_MARK.encode() in p.read_bytes()
        ]
        return step, marked

    def events(self) -> list[str]:
        return [
            str(c["event_name"])
            for c in self.hook_calls
            if c["event"] and c["event"]["session_id"] == self.session
        ]

    def turns(self) -> list[dict[str, Any]]:
        return [c for c in self.checkpoints if c["kind"] == "turn" and c["session_id"] == self.session]


@pytest.fixture(scope="module", params=WINDOW.versions())
def scenario(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    return Scenario(tmp_path_factory.mktemp(f"qwen-e2e-{request.param}"), request.param)


def test_enable_and_disable_keep_the_users_bytes(scenario: Scenario) -> None:
    assert scenario.installed == 7
    assert "entire hooks qwen-code stop" in scenario.settings_at_end
    if scenario.background:  # 0.23+: Qwen adds "$version" to the user's bytes; disable leaves it and them
        assert "// My Qwen settings for this project (hand-written)" in scenario.settings_at_end
        expected = USER_SETTINGS.replace('"qwen-scripted"}\n', '"qwen-scripted"},\n  "$version": 4\n')
        assert scenario.settings_after_disable == expected
        return
    # 0.15 writes the whole file anew when it loads it, comments gone: what disable leaves is Qwen's file
    # without our hooks, exactly
    assert "// My Qwen" not in scenario.settings_at_end
    expected = '{\n  "model": {\n    "name": "qwen-scripted"\n  },\n  "$version": 3\n}'
    assert scenario.settings_after_disable == expected


def test_generate_text_answers_and_leaves_nothing_behind(scenario: Scenario) -> None:
    """A summary through the real Qwen, auth from ``~/.qwen/.env``: nothing new under the home (no project
    folder, chat or memory under ``~/.qwen``) or TMPDIR, and no file holds the summarised text."""
    assert scenario.summary["code"] == 0, scenario.summary["stderr"]
    assert json.loads(scenario.summary["stdout"])["text"], scenario.summary
    assert scenario.summary["left"] == []
    assert scenario.summary_copies == []


def test_no_violations(scenario: Scenario) -> None:
    assert scenario.violations == []
    assert all(not c["error"] for c in scenario.hook_calls)


def test_each_prompt_is_one_turn(scenario: Scenario) -> None:
    events = scenario.events()
    assert events.count("TurnStart") == 4  # the empty UserPromptSubmit after each tool result is no turn
    assert "SessionEnd" not in events  # headless qwen -p never fires it
    assert events.count("SubagentStart") == events.count("SubagentEnd") == 1


def test_turn_files_prompts_and_tokens(scenario: Scenario) -> None:
    turns = scenario.turns()
    assert [t["prompt"] for t in turns[:4]] == PROMPTS
    read, edit, delete, sub = turns[:4]
    # the CLI counts tokens only for a turn that changed files; the read changed none
    assert (read["transcript_files"], read["tokens"]) == ([], None)
    # edit: read_file, edit, then the answer; delete: the shell's rm, then the answer
    assert (edit["transcript_files"], edit["tokens"]) == (["notes.txt"], calls(2, 1))
    assert (delete["transcript_files"], delete["tokens"]) == ([], calls(1, 1))
    assert read["turn_offset"] < edit["turn_offset"] < delete["turn_offset"] < sub["turn_offset"]
    if not scenario.background:
        assert turns[4:] == []
        # the agent call and the answer; the subagent's write_file and its answer
        want = calls(1, 1, subagent_tokens=calls(1, 1))
        assert (sub["transcript_files"], sub["tokens"]) == (["sub.txt"], want)
        return
    # A background subagent's result brings a second Stop, with no prompt before it: the CLI then ends a
    # turn again from the session's start (no commit yet), whose files and tokens hold the subagent's.
    (again,) = turns[4:]
    assert again["prompt"] == "" and again["turn_offset"] == 0
    assert again["transcript_files"] == ["notes.txt", "sub.txt"]
    # every main call since the start: read 1 tool + 1 text, edit 2 + 1, delete 1 + 1, and the subagent
    # turn's agent call, its answer and the answer to the notification (1 + 2): 5 tools, 5 texts
    assert again["tokens"] == calls(1 + 2 + 1 + 1, 1 + 1 + 1 + 2, subagent_tokens=calls(1, 1))


def test_a_chat_restored_from_a_rebased_view_resumes_with_every_prompt(
    scenario: Scenario, tmp_path: Path
) -> None:
    """The view re-based before the last turn (its snapshot: the live branch re-linked, cut to 3 KB) and
    written back as ``write-session`` writes it (the snapshot's records, then the body): the real Qwen
    resumes that chat, and its next request carries every earlier prompt."""
    from entire_agent_qwen_code import transcript
    from entire_agent_qwen_code.view import QwenView

    chat = Path(scenario.plan["chats"]) / f"{scenario.session}.jsonl"
    lines = chat.read_bytes().split(b"\n")[:-1]
    last = max(i for i, line in enumerate(lines) if transcript.prompt_of(json.loads(line)) == PROMPTS[-1])
    snapshot = QwenView().snapshot(str(chat), sum(len(line) + 1 for line in lines[:last]), 3000)
    restored = b"".join(line + b"\n" for line in [*snapshot, *lines[last:]])
    assert len(restored) < chat.stat().st_size
    chat.write_bytes(restored)
    plan = {**scenario.plan, "results": str(tmp_path / "results.json"), "api_log": str(tmp_path / "api.jsonl"),
            "steps": [{"name": "r", "args": ["-r", scenario.session, "-p", "say what we did", "--yolo"]}]}  # fmt: skip
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    argv = e2e.in_loopback_namespace([sys.executable, str(HERE / "driver.py"), str(tmp_path / "plan.json")])
    assert subprocess.run(argv, capture_output=True, timeout=600, check=False).returncode == 0
    (step,) = json.loads((tmp_path / "results.json").read_text())["steps"]
    assert step["code"] == 0, step["stderr"]
    first = json.loads((tmp_path / "api.jsonl").read_text().splitlines()[0])["body"]["messages"]
    asked = json.dumps(first, ensure_ascii=False)
    assert all(prompt in asked for prompt in PROMPTS), asked[:3000]
