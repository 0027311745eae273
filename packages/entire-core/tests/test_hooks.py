"""Hook commands and the remove-then-add reconciliation of hook groups."""

from __future__ import annotations

import copy
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from entire_core import eventqueue, hooks


def ours(handler: Any) -> bool:
    return isinstance(handler, dict) and hooks.is_ours(handler.get("command"), "x")


def group(command: str, **extra: Any) -> dict[str, Any]:
    return {**extra, "hooks": [{"type": "command", "command": command}]}


WANTED = {"Stop": group("entire hooks x stop"), "SessionStart": group("entire hooks x session-start")}


def test_install_adds_then_is_idempotent_then_force_reinstalls() -> None:
    events: dict[str, Any] = {"Stop": [group("user-tool --flag")]}
    assert hooks.install_groups(events, WANTED, ours) == 2
    assert events["Stop"] == [group("user-tool --flag"), group("entire hooks x stop")]
    snapshot = copy.deepcopy(events)
    assert hooks.install_groups(events, WANTED, ours) == 0
    assert events == snapshot
    assert hooks.install_groups(events, WANTED, ours, force=True) == 2
    assert events == snapshot


def test_install_repairs_a_changed_hook_and_counts_only_it() -> None:
    events: dict[str, Any] = {}
    hooks.install_groups(events, WANTED, ours)
    events["Stop"][0]["hooks"][0]["command"] = "entire hooks x stop --old"
    assert hooks.install_groups(events, WANTED, ours) == 1
    assert events["Stop"] == [WANTED["Stop"]]


def test_uninstall_removes_only_ours_and_containers_only_ours_filled() -> None:
    mixed = {
        "hooks": [
            {"type": "command", "command": "user"},
            {"type": "command", "command": "entire hooks x stop"},
        ]
    }
    events: dict[str, Any] = {
        "Stop": [group("user-tool"), mixed],
        "SessionStart": [group("entire hooks x session-start")],
        "Other": "not a list",
    }
    assert hooks.installed_groups(events, ours) == {
        "Stop": [{"type": "command", "command": "entire hooks x stop"}],
        "SessionStart": [{"type": "command", "command": "entire hooks x session-start"}],
    }
    assert hooks.remove_groups(events, ours) == 2
    assert events == {"Stop": [group("user-tool"), {"hooks": [{"type": "command", "command": "user"}]}],
                      "Other": "not a list"}  # fmt: skip
    assert hooks.remove_groups(events, ours) == 0


def test_ownership_is_by_command_not_position() -> None:
    assert hooks.is_ours("sh -c 'exec entire hooks x stop'", "x")
    assert hooks.is_ours("entire hooks x stop", "x")
    assert not hooks.is_ours("entire hooks xy stop", "x")
    assert not hooks.is_ours("entire hooks x", "xy")
    assert not hooks.is_ours(None, "x")
    assert hooks.hook_of("command -v entire || exit 0; exec entire hooks x 'turn-end'", "x") == "turn-end"
    assert hooks.hook_of("other", "x") is None


def _sh(command: str, path: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["/bin/sh", "-c", command], input=stdin, capture_output=True, env={"PATH": path}, check=False
    )


def test_guarded_command_is_quiet_without_entire(tmp_path: Path) -> None:
    command = hooks.posix_guarded("x", "stop")
    result = _sh(command, str(tmp_path))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_guarded_command_runs_entire_with_the_payload(tmp_path: Path) -> None:
    fake = tmp_path / "entire"
    fake.write_text('#!/bin/sh\necho "args: $*"\ncat\n')
    fake.chmod(0o755)
    path = f"{tmp_path}{os.pathsep}/usr/bin{os.pathsep}/bin"
    result = _sh(hooks.posix_guarded("x", "stop"), path, stdin=b'{"a": 1}')
    assert result.stdout == b'args: hooks x stop\n{"a": 1}'
    piped = _sh(hooks.posix_guarded("x", "stop", stdin_from="printf '{}'"), path, stdin=b"ignored")
    assert piped.stdout == b"args: hooks x stop\n{}"


@pytest.mark.skipif(os.name == "nt", reason="a sh script")
def test_a_delivering_script_names_itself_as_liveness_does_and_hands_on_the_status(tmp_path: Path) -> None:
    import sys

    (tmp_path / "script").write_text(hooks.delivering_script("x", "stop"))
    assert hooks.hook_of((tmp_path / "script").read_text(), "x") == "stop"  # install and uninstall know it
    check = "from entire_core import liveness; import os; print(liveness.gone(os.environ['ENTIRE_EVENT_DELIVERY']))"
    entire = tmp_path / "bin" / "entire"
    entire.parent.mkdir()
    entire.write_text(f'#!/bin/sh\ncat > /dev/null\n{sys.executable} -c "{check}" > "$0.gone"\nexit 4\n')
    plugin = entire.with_name("entire-agent-x")
    plugin.write_text('#!/bin/sh\necho "$@" > "$0.args"\n')
    for program in (entire, plugin):
        program.chmod(0o755)
    path = f"{entire.parent}{os.pathsep}/usr/bin{os.pathsep}/bin"
    import shutil

    for shell in [s for s in ("sh", "dash", "bash") if shutil.which(s)]:
        done = subprocess.run([shell, str(tmp_path / "script")], input=b"{}", env={"PATH": path},
                              capture_output=True, check=False)  # fmt: skip
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), shell
        assert entire.with_name("entire.gone").read_text() == "False\n", (
            shell
        )  # its token names a process that runs
        args = plugin.with_name("entire-agent-x.args").read_text().split()
        assert args[:2] == ["delivered", "--delivery"] and args[3:] == ["--status", "4"], shell
        assert eventqueue.is_token(args[2]) and args[2].split(".")[1] != "0", shell
