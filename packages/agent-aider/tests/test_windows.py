"""The notification command under cmd.exe and a notify without Aider's pid, exercised on Linux.

Aider runs ``notifications-command`` with ``subprocess.run(command, shell=True)`` (aider/io.py,
``ring_bell``): ``sh -c`` here, ``cmd.exe /c`` on Windows. cmd.exe itself cannot run here, so the
Windows command is checked as a string; what notify does without a pid and without ``/proc`` runs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from entire_agent_aider import doctor, hooks, launcher, notify
from entire_agent_aider.agent import AiderAgent


def test_the_cmd_exe_command() -> None:
    command = hooks.NOTIFY_COMMAND_CMD
    assert command == "(where /q entire-agent-aider || exit 0) && entire-agent-aider notify <NUL"
    # nothing cmd.exe would expand or the quoting of Python's shell=True would change
    assert not set(command) & set("\"'%^$`")
    assert "/dev/null" not in command and "PPID" not in command


@pytest.mark.usefixtures("windows")
def test_install_on_windows_writes_the_cmd_exe_command(tmp_path: Path) -> None:
    subprocess.run(
        ["git", "init", "-q", str(tmp_path)], check=True
    )  # the doctor checks the block in a repository
    conf = tmp_path / ".aider.conf.yml"
    conf.write_bytes(b"model: x\r\n")
    agent = AiderAgent(env={"ENTIRE_REPO_ROOT": str(tmp_path), "HOME": str(tmp_path)}, cwd=str(tmp_path))
    assert hooks.install(agent) == 1
    values = yaml.safe_load(conf.read_text(encoding="utf-8"))
    assert values["notifications-command"] == hooks.NOTIFY_COMMAND_CMD and values["notifications"] is True
    assert hooks.install(agent) == 0
    checks = {check.what: check.status for check in doctor.diagnose(agent).checks}
    assert checks[f"Entire's block is in {conf}"] == "ok"
    hooks.uninstall(agent)
    assert conf.read_bytes() == b"model: x\r\n"


def test_a_block_written_on_windows_is_refreshed_on_posix(
    tmp_path: Path, force_platform: Callable[[str], None]
) -> None:
    force_platform("win32")
    agent = AiderAgent(env={"ENTIRE_REPO_ROOT": str(tmp_path), "HOME": str(tmp_path)}, cwd=str(tmp_path))
    hooks.install(agent)
    force_platform("linux")
    assert hooks.installed(str(tmp_path)) and hooks.install(agent) == 1
    values = yaml.safe_load((tmp_path / ".aider.conf.yml").read_text())
    assert values["notifications-command"] == hooks.NOTIFY_COMMAND


def test_notify_delivers_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Aider commits before it rings: a turn heard from the notification would reach Entire after its
    # commit, so the notification starts and ends no turn (the launcher records them).
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    history = repo / ".aider.chat.history.md"
    history.write_text("\n# aider chat started at 2026-11-30 03:05:00\n\n#### a prompt  \n\nA reply.\n\n")
    monkeypatch.chdir(repo)
    delivered: list[str] = []
    monkeypatch.setattr(notify, "deliver", lambda *args, **kwargs: delivered.append("called") or 0)
    parse = AiderAgent.commands["notify"].parse
    launched = AiderAgent(env={notify.LAUNCHER_ENV: "aider-run-1"})
    assert notify.notify(launched, parse([])) == 0
    assert notify.notify(launched, parse(["--aider-pid", str(os.getppid())])) == 0
    assert delivered == []


def test_notify_under_a_plain_aider_says_so_in_one_line() -> None:
    """Aider shows a notification command's stderr (as "Failed to run notifications command: ...") only
    when it exits non-zero: so it does, with the launcher named."""
    script = Path(sys.executable).parent / "entire-agent-aider"
    env = {k: v for k, v in os.environ.items() if k != notify.LAUNCHER_ENV}
    done = subprocess.run([str(script), "notify", "--aider-pid", "1"], stdin=subprocess.DEVNULL,
                          capture_output=True, env=env, check=False)  # fmt: skip
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode() == (
        "entire-agent-aider notify: plain `aider` records nothing in Entire: "
        "start Aider with `entire-agent-aider run -- <aider arguments>`\n"
    )
    launched = subprocess.run([str(script), "notify"], stdin=subprocess.DEVNULL, capture_output=True,
                              env={**env, notify.LAUNCHER_ENV: "aider-run-1"}, check=False)  # fmt: skip
    assert (launched.returncode, launched.stdout, launched.stderr) == (0, b"", b"")


def test_signals_forwarded_where_there_is_no_sighup(monkeypatch: pytest.MonkeyPatch) -> None:
    assert launcher.forwarded_signals() == [signal.SIGTERM, signal.SIGHUP]
    monkeypatch.delattr(signal, "SIGHUP")
    assert launcher.forwarded_signals() == [signal.SIGTERM]


def test_case_variants_of_the_history_file_share_one_state(monkeypatch: pytest.MonkeyPatch) -> None:
    from entire_agent_aider import state

    assert state.history_key("/R/Chat.md") != state.history_key("/r/chat.md")
    monkeypatch.setattr(os.path, "normcase", str.lower)  # what ntpath.normcase does to these
    assert state.history_key("/R/Chat.md") == state.history_key("/r/chat.md")


def test_the_state_0_1_0_kept_under_a_shorter_name_is_read_after_an_upgrade(tmp_path: Path) -> None:
    from entire_agent_aider import state
    from entire_core.scratch import Scratch

    scratch = Scratch(str(tmp_path), "aider")
    history = str(tmp_path / ".aider.chat.history.md")
    os.makedirs(scratch.directory)
    old = os.path.join(scratch.directory, f"state-{state.history_key(history)}.json")  # 0.1.0's name
    with open(old, "w") as f:
        f.write('{"v": 1, "offset": 42}')
    assert state.load(scratch, history) == {"v": 1, "offset": 42}
