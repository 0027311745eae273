"""The notification command under cmd.exe and a notify without Aider's pid, exercised on Linux.

Aider runs ``notifications-command`` with ``subprocess.run(command, shell=True)`` (aider/io.py,
``ring_bell``): ``sh -c`` here, ``cmd.exe /c`` on Windows. cmd.exe itself cannot run here, so the
Windows command is checked as a string; what notify does without a pid and without ``/proc`` runs.
"""

from __future__ import annotations

import json
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


def test_notify_without_pid_or_proc_uses_the_launchers_history_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    chosen = tmp_path / "elsewhere" / "chat.md"
    delivered: list[tuple[str, str, dict[str, object]]] = []
    monkeypatch.chdir(repo)
    monkeypatch.setattr(notify, "aider_process", lambda pid: None)  # no /proc: Windows, macOS
    monkeypatch.setattr(
        notify,
        "deliver",
        lambda name, root, history, hook, body: delivered.append((root, history, body)) or 0,
    )
    monkeypatch.setenv("ENTIRE_AIDER_SESSION", "aider-run-1")
    monkeypatch.delenv("AIDER_CHAT_HISTORY_FILE", raising=False)
    monkeypatch.setenv(notify.HISTORY_ENV, str(chosen))
    assert (
        notify.notify(AiderAgent(), AiderAgent.commands["notify"].parse([])) == 0
    )  # the cmd.exe command passes no --aider-pid
    monkeypatch.delenv(notify.HISTORY_ENV)
    assert (
        notify.notify(AiderAgent(), AiderAgent.commands["notify"].parse([])) == 0
    )  # not launched: the default history file of the git root
    assert [(root, history) for root, history, _ in delivered] == [
        (str(repo), str(chosen)),
        (str(repo), str(repo / ".aider.chat.history.md")),
    ]
    assert delivered[0][2]["session"] == "aider-run-1" and delivered[0][2]["aider_pid"] == os.getppid()


def test_the_launcher_tells_notify_the_history_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = tmp_path / "aider"
    fake.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'history': os.environ.get('{notify.HISTORY_ENV}')}}, "
        f"open({str(tmp_path / 'seen.json')!r}, 'w'))\n"
    )
    fake.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-entire-here"))
    assert (
        launcher.run(
            AiderAgent(),
            AiderAgent.commands["run"].parse(["--aider", str(fake), "--", "--chat-history-file", "talk.md"]),
        )
        == 0
    )
    seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen["history"] == str(tmp_path / "talk.md")
    assert seen["argv"][-2:] == ["--notifications-command", hooks.NOTIFY_COMMAND]


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
