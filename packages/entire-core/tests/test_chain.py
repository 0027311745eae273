"""The chain a hook walks, as ``doctor`` checks it for every agent: each broken link fails with its fix."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from entire_core import chain
from entire_core.agent import Agent, HookSupport
from entire_core.doctor import FAIL, OK, Report
from entire_core.testing.host import fake_entire, fake_plugin, real_entire, session_state
from entire_core.testing.pytest_plugin import init_repository


class Chained(HookSupport, Agent):
    name = "chained"
    type = "Chained Agent"
    description = "an agent for chain tests"
    hook_names = ("stop", "session-start")


def _agent(tmp_path: Path, *, git: bool = True, entire: bool = True, plugin: bool = True) -> Chained:
    repo = tmp_path / "repo"
    repo.mkdir(exist_ok=True)
    if git:
        init_repository(repo)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if entire:
        fake_entire(bin_dir)
    if plugin:
        fake_plugin(bin_dir, Chained.name)
    return Chained(env={"PATH": str(bin_dir), "HOME": str(tmp_path / "home")}, cwd=str(repo))


def _settings(agent: Agent, name: str, value: dict[str, object]) -> None:
    directory = Path(agent.repo_root, ".entire")
    directory.mkdir(exist_ok=True)
    (directory / name).write_text(json.dumps(value))


def _run(agent: Agent) -> tuple[Report, str]:
    report = Report.for_agent(agent)
    chain.check_host(report, agent)
    return report, report.render()


def test_outside_a_git_repository_the_fix_is_git_init_not_entire_enable(tmp_path: Path) -> None:
    agent = _agent(tmp_path, git=False)
    report, text = _run(agent)
    first = report.checks[0]
    assert (first.status, first.fix) == (FAIL, "`git init`")
    assert first.what == f"{agent.repo_root} is not in a git repository: Entire records only inside one"
    assert "skip  the Entire CLI finds this plugin (not checked: not a git repository)" in text
    assert not any(c.fix and "entire enable" in c.fix for c in report.checks), text


def test_a_linked_worktree_shares_its_common_directory(tmp_path: Path) -> None:
    agent = _agent(tmp_path)
    env = {"PATH": os.environ["PATH"], "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(
        ["git", "worktree", "add", "-q", str(tmp_path / "wt")], cwd=agent.repo_root, env=env, check=True
    )
    assert chain.git_common_dir(str(tmp_path / "wt")) == str(Path(agent.repo_root, ".git"))
    assert chain.git_common_dir(str(tmp_path)) is None


def test_entire_missing_fails_with_the_install_command(tmp_path: Path) -> None:
    report, text = _run(_agent(tmp_path, entire=False))
    assert "FAIL  the `entire` command is not on PATH: every hook exits without recording\n" in text
    assert f"fix: {chain.INSTALL_ENTIRE}" in text
    assert "skip  the Entire CLI finds this plugin (not checked: `entire` is not on PATH)" in text
    assert report.exit_code == 1


@pytest.mark.parametrize(
    ("version", "status", "words"),
    [
        ("dev", OK, "is a local build (`entire version` prints dev)"),
        ("0.10.3", OK, "Entire CLI 0.10.3 at"),
        ("0.5.0", FAIL, "is older than 0.5.6"),
        ("0.11.0", "WARN", "is newer than the newest tested"),
    ],
)
def test_the_entire_version_is_placed_in_the_window(
    tmp_path: Path, version: str, status: str, words: str
) -> None:
    agent = _agent(tmp_path)
    fake_entire(tmp_path / "bin", version=version)
    report = Report.for_agent(agent)
    chain.check_entire(report, agent.env)
    (check,) = report.checks
    assert check.status == status and words in check.what, report.render()
    assert (check.fix == chain.INSTALL_ENTIRE) == (status == FAIL)


def test_external_agents_off_fails_with_entire_enable(tmp_path: Path) -> None:
    agent = _agent(tmp_path)
    _settings(agent, "settings.json", {"enabled": True})
    report, text = _run(agent)
    assert "FAIL  the Entire CLI does not find entire-agent-chained: every hook fails with 'unknown agent' " \
           "(external_agents is off)\n      fix: `entire enable --agent chained`\n" in text  # fmt: skip
    _settings(agent, "settings.json", {"enabled": True, "external_agents": True})
    report, text = _run(agent)
    assert "ok    the Entire CLI finds entire-agent-chained (external_agents is on)\n" in text
    assert report.exit_code == 0, text


def test_a_host_that_reads_only_the_local_file_is_told_where_to_put_it(tmp_path: Path) -> None:
    agent = _agent(tmp_path)
    fake_entire(tmp_path / "bin", local_only=True)
    _settings(agent, "settings.json", {"enabled": True, "external_agents": True})
    _, text = _run(agent)
    local = os.path.join(agent.repo_root, ".entire", "settings.local.json")
    assert "this Entire CLI ignores external_agents in .entire/settings.json" in text
    assert f'fix: add "external_agents": true to {local}' in text
    _settings(agent, "settings.local.json", {"external_agents": True})
    assert _run(agent)[0].exit_code == 0


def test_entire_not_set_up_disabled_or_unreadable_fails(tmp_path: Path) -> None:
    agent = _agent(tmp_path)

    def enabled() -> tuple[str, str | None, str]:
        report = Report("t")
        chain.check_enabled(report, agent)
        (check,) = report.checks
        return check.status, check.fix, check.what

    status, fix, what = enabled()
    assert (status, fix) == (FAIL, "`entire enable --agent chained`") and "is not set up" in what
    _settings(agent, "settings.json", {"enabled": True})
    assert enabled()[0] == OK
    _settings(agent, "settings.local.json", {"enabled": False})  # the local file wins
    status, fix, what = enabled()
    assert (status, fix) == (FAIL, "`entire enable --agent chained`") and "is disabled" in what
    Path(agent.repo_root, ".entire", "settings.local.json").write_text("{")
    status, fix, what = enabled()
    assert status == FAIL and fix is not None and fix.startswith("edit ") and "cannot be read" in what


def test_the_plugin_missing_from_path_fails_with_its_install(tmp_path: Path) -> None:
    agent = _agent(tmp_path, plugin=False)
    _settings(agent, "settings.json", {"external_agents": True})
    _, text = _run(agent)
    assert "FAIL  entire-agent-chained is not on PATH, so the Entire CLI cannot find it\n" in text
    assert "fix: `uv tool install --compile-bytecode entire-agent-chained`" in text


def _session(agent: Agent, sid: str, **state: object) -> None:
    started = time.strftime("%Y-%m-%dT%H:%M:%S.123456789Z", time.gmtime(time.time() - 60))
    value = {"agent_type": agent.type, "started_at": started, "phase": "active", **state}
    session_state(Path(agent.repo_root), sid, **value)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stuck_sessions_of_ours_fail_with_entire_doctor_force(tmp_path: Path) -> None:
    agent = _agent(tmp_path)
    _settings(agent, "settings.json", {"external_agents": True})
    _session(agent, "fresh")
    _session(agent, "idle-alive", phase="idle", owner={"pid": os.getpid(), "start": "x"})
    _session(agent, "other", agent_type="Someone Else", last_interaction_time="2020-01-01T00:00:00Z")
    _session(agent, "done", phase="ended", checkpoint_count=3, base_commit="abcdef0123", worktree_id="")
    report, text = _run(agent)
    assert "ok    no stuck Chained Agent session (4 in the Entire CLI's session state)" not in text
    assert "ok    no stuck Chained Agent session (3 in the Entire CLI's session state)\n" in text, text
    old = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 2 * 3600))
    _session(agent, "old", last_interaction_time=old)
    _session(agent, "orphan", phase="idle", owner={"pid": _dead_pid(), "start": "x"})
    Path(agent.repo_root, ".git", "refs", "heads", "entire").mkdir(parents=True)
    digest = __import__("hashlib").sha256(b"").hexdigest()[:6]
    Path(agent.repo_root, ".git", "refs", "heads", "entire", f"abcdef0-{digest}").write_text("0" * 40 + "\n")
    report, text = _run(agent)
    stuck = next(c for c in report.checks if "session(s) stuck in" in c.what)
    assert stuck.status == FAIL and stuck.fix == "`entire doctor --force`", text
    assert "3 Chained Agent session(s) stuck" in stuck.what
    assert "done (ended with uncondensed checkpoint data)" in stuck.what
    assert "old (active, no interaction for 120 min)" in stuck.what
    assert "orphan (agent process " in stuck.what and "exited (no longer running)" in stuck.what
    assert "fresh" not in stuck.what and "other" not in stuck.what and "idle-alive" not in stuck.what


def test_installed_hooks_must_call_a_hook_the_plugin_knows(tmp_path: Path) -> None:
    agent = _agent(tmp_path)
    report = Report("t")
    chain.check_hook_commands(
        report, agent, ["entire hooks chained stop", "x; entire hooks chained session-start"], "f"
    )
    assert report.render().splitlines()[1] == "ok    the 2 installed hooks call `entire hooks chained <hook>`"
    report = Report("t")
    chain.check_hook_commands(
        report, agent, ["entire hooks chained stop", "entire hooks chained turn-gone"], "f"
    )
    (check,) = report.checks
    assert check.status == FAIL and "turn-gone" in check.what and "install-hooks --force" in (check.fix or "")


def test_hooks_of_a_plugin_that_is_gone_fail_with_the_way_back(tmp_path: Path) -> None:
    """Uninstalled before its hooks: each hook fails 'unknown agent' and the host's uninstall cannot reach
    them. Every agent's doctor names them with the way back; hooks of built-ins and of plugins on PATH, and
    commands quoted in files that are no config, are not theirs to name."""
    agent = _agent(tmp_path)
    repo = Path(agent.repo_root)
    _settings(agent, "settings.json", {"enabled": True, "external_agents": True})
    (repo / ".codex").mkdir()
    (repo / ".codex" / "hooks.json").write_text(
        '{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "command -v entire >/dev/null 2>&1 || '
        'exit 0; exec entire hooks openai-codex stop"}, {"command": "entire hooks codex stop"}]}]}}'
    )
    (repo / ".aider.conf.yml").write_text("notifications-command: 'exec entire-agent-aider notify'\n")
    (repo / ".qwen").mkdir()
    (repo / ".qwen" / "settings.json").write_text(
        '{"hooks": {"Stop": [{"command": "entire hooks chained stop"}]}}'
    )
    (repo / ".aider.chat.history.md").write_text("#### run entire hooks google-gemini stop by hand\n")
    report, text = _run(agent)
    orphans = [c for c in report.checks if "not on PATH" in c.what and "holds hooks" in c.what]
    assert [c.what.split(" holds")[0] for c in orphans] == [".aider.conf.yml", ".codex/hooks.json"]
    codex = orphans[1]
    assert codex.status == FAIL and "each of them fails with 'unknown agent \"openai-codex\"'" in codex.what
    assert codex.fix == (
        "`uv tool install --compile-bytecode entire-agent-openai-codex` (the plugin back), then "
        "`entire-agent-openai-codex uninstall-hooks` in this repository, then `uv tool uninstall entire-agent-openai-codex`"
    )
    assert "google-gemini" not in text and "codex stop" not in text
    # The plugin asking runs, wherever it lies: its own hooks are never "of a plugin that is gone".
    assert "chained" in chain.orphaned_hooks(str(repo), {"PATH": "/nonexistent"})
    assert "chained" not in chain.orphaned_hooks(str(repo), {"PATH": "/nonexistent"}, own="chained")
    fake_plugin(tmp_path / "bin", "openai-codex")  # back on PATH: nothing to say about it
    report, _ = _run(agent)
    assert [c.what.split(" holds")[0] for c in report.checks if "holds hooks" in c.what] == [
        ".aider.conf.yml"
    ]


@pytest.mark.host
def test_the_real_host_finds_a_plugin_only_with_external_agents(tmp_path: Path) -> None:
    entire = real_entire()
    agent = _agent(tmp_path, entire=False, plugin=False)
    bin_dir = tmp_path / "bin"
    os.symlink(entire, bin_dir / "entire")
    plugin = shutil.which("entire-agent-openai-codex", path=os.path.dirname(sys.executable))
    if plugin is None:
        pytest.skip("host: entire-agent-openai-codex is not installed next to this Python")
    os.symlink(plugin, bin_dir / "entire-agent-openai-codex")
    env = {**agent.env, "ENTIRE_TELEMETRY_OPTOUT": "1", "ENTIRE_NO_AUTO_UPDATE": "1", "CI": "1"}
    codex = type("Codex", (Chained,), {"name": "openai-codex"})(env=env, cwd=agent.repo_root)
    _settings(codex, "settings.json", {"enabled": True})
    _, text = _run(codex)
    assert "(external_agents is off)\n      fix: `entire enable --agent openai-codex`" in text, text
    _settings(codex, "settings.json", {"enabled": True, "external_agents": True})
    _, text = _run(codex)
    assert "ok    the Entire CLI finds entire-agent-openai-codex (external_agents is on)" in text, text
    assert "is a local build" in text or "ok    Entire CLI 0." in text, text


@pytest.mark.host
def test_the_real_host_calls_stuck_what_the_doctor_calls_stuck(tmp_path: Path) -> None:
    entire = real_entire()
    agent = _agent(tmp_path, entire=False)
    os.symlink(entire, tmp_path / "bin" / "entire")
    _settings(agent, "settings.json", {"enabled": True})
    old = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 2 * 3600))
    _session(agent, "s-old", last_interaction_time=old)
    _session(agent, "s-fresh")
    _session(agent, "s-orphan", phase="idle", owner={"pid": _dead_pid(), "start": "x"})
    report = Report("t")
    chain.check_stuck_sessions(report, agent, str(Path(agent.repo_root, ".git")))
    (ours,) = report.checks
    env = {**agent.env, "PATH": f"{tmp_path / 'bin'}:/usr/bin:/bin", "ENTIRE_TELEMETRY_OPTOUT": "1",
           "ENTIRE_NO_AUTO_UPDATE": "1", "CI": "1"}  # fmt: skip
    done = subprocess.run([entire, "doctor"], cwd=agent.repo_root, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    theirs = {
        line.split(":", 1)[1].strip()
        for line in done.stdout.splitlines()
        if line.strip().startswith("Session:")
    }
    assert theirs == {"s-old"}, done.stdout  # it finalizes a session whose agent is gone at once
    assert "Finalized 1 exited session(s) (agent process gone)." in done.stdout
    assert "s-old (" in ours.what and "s-orphan (" in ours.what and "s-fresh" not in ours.what


def test_hook_scripts_in_a_dot_folders_hooks_folder_are_read(tmp_path: Path) -> None:
    """Cline's hooks are scripts named after their event (``.cline/hooks/TaskStart``, no suffix)."""
    repo = tmp_path / "repo"
    (repo / ".cline" / "hooks").mkdir(parents=True)
    (repo / ".cline" / "hooks" / "TaskStart").write_text(
        "#!/bin/sh\nexec entire hooks cline-cli task-start\n"
    )
    (repo / ".cline" / "hooks" / "Notes").write_text("nothing of ours\n")
    (repo / ".cline" / "deep" / "hooks").mkdir(parents=True)
    (repo / ".cline" / "deep" / "hooks" / "TaskStart").write_text("entire hooks too-deep task-start\n")
    found = chain.orphaned_hooks(str(repo), {"PATH": "/nonexistent"})
    assert found == {"cline-cli": [str(repo / ".cline" / "hooks" / "TaskStart")]}
