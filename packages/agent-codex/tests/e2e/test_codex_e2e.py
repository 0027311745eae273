"""End to end with the real Codex CLI (npm ``@openai/codex``) and Entire's simulator, for every version
of the support window (``entire_agent_openai_codex.versions.WINDOW``).

The test installs each Codex version into a cache directory once, then runs ``codex_driver.py`` inside a loopback-only
network namespace next to the project's scripted Responses-API server, and checks what Entire's
simulator recorded: the events, the per-turn files, prompts and token usage, the subagent task,
``doctor`` before and after ``trust``, that ``trust`` kept the commented config.toml's bytes, the
restore through ``write-session`` that ``codex resume`` then continues, and ``generate-text``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import codex_driver as driver
import codex_scripted_server as scripted_server
import pytest
from entire_agent_openai_codex.versions import SUBAGENT_HOOKS, WINDOW
from entire_core.versions import parse_version
from entire_sim import e2e

pytestmark = pytest.mark.e2e

SESSION_END_HOOK = (0, 171, 0)
"""The first tested version that fires SessionEnd (0.130 and 0.139 never do)."""
BELOW_WINDOW = "0.120.0"
"""A version with hooks behind a feature flag and no trust model: ``doctor`` must refuse it."""
HERE = Path(__file__).parent


@pytest.fixture(scope="module", params=WINDOW.versions())
def outcome(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Run the driver once per Codex version for all the checks of this module."""
    version: str = request.param
    codex = e2e.npm_tool("@openai/codex", version, "codex")
    work = tmp_path_factory.mktemp(f"codex-e2e-{version}")
    result = work / "result.json"
    argv = e2e.in_loopback_namespace([sys.executable, str(HERE / "codex_driver.py"), "--codex", str(codex),
                                      "--work", str(work / "w"), "--result", str(result)])  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0 and result.exists(), (
        f"driver failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    )
    data: dict[str, Any] = json.loads(result.read_text(encoding="utf-8"))
    data["version"] = version
    return data


def at_least(outcome: dict[str, Any], version: tuple[int, int, int]) -> bool:
    """True when the Codex version of this outcome is ``version`` or later."""
    parsed = parse_version(outcome["version"])
    assert parsed is not None
    return parsed >= version


def without_session_end(
    outcome: dict[str, Any], expected: list[tuple[str, str | None]]
) -> list[tuple[str, str | None]]:
    """``expected`` as the outcome's Codex fires it: before 0.171 there is no SessionEnd hook."""
    if at_least(outcome, SESSION_END_HOOK):
        return expected
    return [e for e in expected if e[0] != "session-end"]


def events(outcome: dict[str, Any], session: str) -> list[tuple[str, str | None]]:
    """``(hook, event name)`` of every hook call of one session (children's calls carry the root id)."""
    calls = outcome["hook_calls"]
    return [(c["hook"], c["event_name"]) for c in calls if c["payload"].get("session_id") == session]


def checkpoints(outcome: dict[str, Any], session: str, kind: str = "turn") -> list[dict[str, Any]]:
    return [c for c in outcome["checkpoints"] if c["session_id"] == session and c["kind"] == kind]


def tokens(
    input_tokens: int, cached: int, output: int, calls: int, sub: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {"input_tokens": input_tokens, "cache_creation_tokens": 0, "cache_read_tokens": cached,
            "output_tokens": output, "api_call_count": calls, "cache_creation_1h_tokens": 0, "subagent_tokens": sub}  # fmt: skip


def answered(outcome: dict[str, Any], thread: str, sub: dict[str, Any] | None = None) -> dict[str, Any]:
    """The usage of every response the scripted server gave ``thread``, as the simulator records it."""
    log = Path(outcome["repo"]).parent / "requests.jsonl"
    steps = []
    for line in log.read_text(encoding="utf-8").splitlines():
        request = json.loads(line)
        metadata = json.loads(request["headers"].get("x-codex-turn-metadata") or "{}")
        if metadata.get("thread_id") == thread:
            steps.append(
                scripted_server.usage(scripted_server.plan(request["body"], request["headers"], 0)[1])
            )
    fed = sum(u["input_tokens"] for u in steps)
    cached = sum(u["input_tokens_details"]["cached_tokens"] for u in steps)
    return tokens(fed - cached, cached, sum(u["output_tokens"] for u in steps), len(steps), sub)


def test_every_codex_run_succeeded(outcome: dict[str, Any]) -> None:
    assert outcome["codex_version"] == f"codex-cli {outcome['version']}"
    for name, run in outcome["runs"].items():
        assert run["code"] == 0, f"codex run {name} failed: {run['stderr']}"
    assert outcome["violations"] == []
    assert all(call["error"] is None for call in outcome["hook_calls"])


def test_doctor_reports_trust_before_and_after_trust(outcome: dict[str, Any]) -> None:
    assert outcome["enable"] == 8
    before, after = outcome["doctor_before"], outcome["doctor_after"]
    assert before["code"] == 1
    assert "FAIL  the project is not trusted" in before["stdout"]
    untrusted = next(ln for ln in before["stdout"].splitlines() if ln.startswith("FAIL  untrusted, so Codex"))
    assert len(untrusted.split(": ", 1)[1].split(", ")) == 8
    assert "fix: `entire-agent-openai-codex trust" in before["stdout"]
    assert outcome["trust"]["code"] == 0
    assert after["code"] == 0, after["stdout"]
    assert "ok    8 Entire hooks trusted: " in after["stdout"]
    assert "FAIL" not in after["stdout"]


def test_trust_keeps_the_commented_config_bytes(outcome: dict[str, Any]) -> None:
    before, after = outcome["config_before"], outcome["config_after"]
    assert after.startswith(before)  # every comment and byte of the user's file, then only ours
    added = [line for line in after[len(before) :].splitlines() if line.strip()]
    repo = os.path.realpath(outcome["repo"])
    assert added[:2] == [f'[projects."{repo}"]', 'trust_level = "trusted"']
    labels = ["session_start", "user_prompt_submit", "stop", "pre_compact", "post_compact", "session_end",
              "subagent_start", "subagent_stop"]  # fmt: skip
    assert added[2::2] == [f'[hooks.state."{repo}/.codex/hooks.json:{label}:0:0"]' for label in labels]
    assert all(
        line.startswith('trusted_hash = "sha256:') and len(line) == len('trusted_hash = "sha256:"') + 64
        for line in added[3::2]
    )


def test_two_turns_with_a_resume_and_a_compaction(outcome: dict[str, Any]) -> None:
    session = outcome["session_one"]
    expected = [
        ("session-start", "SessionStart"),
        ("user-prompt-submit", "TurnStart"),
        ("stop", "TurnEnd"),
        ("session-end", "SessionEnd"),
        ("pre-compact", None),
        ("post-compact", "Compaction"),
        ("session-start", "SessionStart"),  # source "resume"
        ("session-start", None),  # source "compact": not a new session
        ("user-prompt-submit", "TurnStart"),
        ("stop", "TurnEnd"),
        ("session-end", "SessionEnd"),
    ]
    if not at_least(outcome, SUBAGENT_HOOKS):  # 0.130 fires no SessionStart "compact" after compacting
        expected.remove(("session-start", None))
    expected = without_session_end(outcome, expected)
    assert events(outcome, session)[: len(expected)] == expected
    one, two = checkpoints(outcome, session)[:2]
    assert one["prompt"] == driver.PROMPT_ONE
    assert sorted(one["transcript_files"]) == [
        "README.md",
        "hello.txt",
    ]  # shell.txt came from a shell command
    assert one["files"] == ["README.md", "hello.txt", "shell.txt"]
    # three model responses: steps 0, 1 and 2 of the scripted server's usage
    assert one["tokens"] == tokens(4500, 1500, 123, 3)
    assert two["prompt"] == driver.PROMPT_TWO
    assert sorted(two["transcript_files"]) == ["greeting.txt", "hello.txt", "second.txt", "shell.txt"]
    # the compaction's response happened before the turn started; the turn had two responses
    assert two["tokens"] == tokens(2250, 750, 81, 2)


def test_a_subagent_session(outcome: dict[str, Any]) -> None:
    session = outcome["session_two"]
    [turn] = checkpoints(outcome, session)
    assert turn["prompt"] == driver.PROMPT_SPAWN
    assert turn["transcript_files"] == ["child.txt"]
    # three model calls, or four when the child's notification reaches the parent before its last one
    # (a race Codex 0.130 loses now and then): what the scripted server answered, exactly
    assert turn["tokens"] == answered(outcome, session, sub=tokens(2250, 750, 81, 2))
    assert turn["tokens"]["api_call_count"] in (3, 4)
    if not at_least(outcome, SUBAGENT_HOOKS):
        # 0.130 has no subagent hooks; the child thread fires SessionStart, UserPromptSubmit and Stop under
        # its own session id, which its rollout's session_meta marks as a subagent's: no session, no turn
        assert events(outcome, session) == [("session-start", "SessionStart"), ("user-prompt-submit", "TurnStart"),
                                            ("stop", "TurnEnd")]  # fmt: skip
        child = [c for c in outcome["hook_calls"] if c["payload"].get("session_id") not in
                 (session, outcome["session_one"])]  # fmt: skip
        assert [(c["hook"], c["event_name"]) for c in child] == [
            ("session-start", None), ("user-prompt-submit", None), ("stop", None)
        ]  # fmt: skip
        assert {c["session_id"] for c in outcome["checkpoints"]} == {outcome["session_one"], session}
        assert checkpoints(outcome, session, "task") == []
        return
    assert events(outcome, session) == without_session_end(outcome, [
        ("session-start", "SessionStart"),
        ("user-prompt-submit", "TurnStart"),
        ("subagent-start", "SubagentStart"),
        ("user-prompt-submit", None),  # the child's prompt is not a turn of the session
        ("subagent-stop", "SubagentEnd"),
        ("stop", "TurnEnd"),
        ("session-end", "SessionEnd"),
    ])  # fmt: skip
    # the subagent hooks name the child's own rollout, under $CODEX_HOME/sessions: the Entire CLI takes it
    # for the built-in codex's and skips both hooks as forwarded (hook_guard.go), so no task checkpoint;
    # the child's file is the turn's (above)
    assert checkpoints(outcome, session, "task") == []
    stops = [
        c for c in outcome["hook_calls"] if c["hook"] == "subagent-stop" and c["event_name"] == "SubagentEnd"
    ]
    assert stops and all("built-in agent codex" in c["ignored"] for c in stops)


def test_the_view_is_rebased_mid_session_and_stays_in_budget(outcome: dict[str, Any]) -> None:
    """With a 64 KiB budget, session one's view was re-based: its stored transcript starts with a snapshot."""
    session = outcome["session_one"]
    turns = checkpoints(outcome, session)
    assert all(c["transcript_bytes"] <= driver.VIEW_BUDGET for c in turns)
    assert all(not c["session_ref"].startswith(outcome["repo"]) for c in turns)
    assert '{"type":"entire_view","v":2,"body":' in outcome["stored_one"]  # a header that keeps the lines
    assert [c["turn_offset"] for c in turns] == sorted(c["turn_offset"] for c in turns)  # positions only grow
    assert outcome["violations"] == []


def test_write_session_restores_where_codex_resume_finds_it(outcome: dict[str, Any]) -> None:
    session = outcome["session_one"]
    assert outcome["resume"]["command"] == f"codex resume {session}"
    assert outcome["restored_path_is_original"] and outcome["restored_equals_checkpoint"]
    assert outcome["resume_view_is_outside_repo"]
    # Codex resumed the re-based rollout with its effective history: the earlier turns' prompts.
    [request, *_] = outcome["requests_after_restore"]
    assert driver.PROMPT_AFTER_RESTORE in request
    assert driver.PROMPT_ONE in request and driver.PROMPT_TWO in request
    assert outcome["runs"]["after_restore"]["code"] == 0
    third = checkpoints(outcome, session)[2]
    assert third["prompt"] == driver.PROMPT_AFTER_RESTORE
    assert third["turn_offset"] > 0  # Codex appended to the restored rollout


def test_generate_text_answers_through_codex_exec(outcome: dict[str, Any]) -> None:
    generated = outcome["generate"]
    assert generated["code"] == 0, generated["stderr"]
    assert json.loads(generated["stdout"]) == {"text": scripted_server.REPLY}


def test_generate_text_leaves_nothing_behind(outcome: dict[str, Any]) -> None:
    """Nothing new under CODEX_HOME, HOME or TMPDIR after a summary (a real Codex, used before)."""
    assert outcome["generate"]["code"] == 0
    assert outcome["generate_left"] == []


def test_doctor_names_the_window_below_it(tmp_path: Path) -> None:
    """A real Codex older than the window: ``install-hooks`` refuses, ``doctor`` names it and the window, exit 1."""
    codex = e2e.npm_tool("@openai/codex", BELOW_WINDOW, "codex")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    env = {"PATH": os.pathsep.join([str(codex.parent), str(Path(sys.executable).parent), os.environ["PATH"]]),
           "HOME": str(tmp_path), "CODEX_HOME": str(tmp_path / "codex-home"), "ENTIRE_REPO_ROOT": str(repo)}  # fmt: skip
    install = subprocess.run(["entire-agent-openai-codex", "install-hooks"], cwd=repo, env=env,
                             capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert (install.returncode, install.stdout) == (1, "")
    assert install.stderr == (
        f"entire-agent-openai-codex install-hooks: hooks not installed: Codex CLI {BELOW_WINDOW} is older than the supported window; supported: "
        f"{WINDOW.describe()}; upgrade: `{WINDOW.upgrade_command()}`\n"
    )
    assert not (repo / ".codex").exists()
    done = subprocess.run(["entire-agent-openai-codex", "doctor"], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"FAIL  Codex CLI {BELOW_WINDOW} at {codex} is older than {WINDOW.oldest} " in done.stdout
    assert f"      fix: `npm install -g @openai/codex@{WINDOW.newest}`" in done.stdout
