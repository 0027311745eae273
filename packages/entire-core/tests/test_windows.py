"""Windows code paths, exercised on Linux where the platform check can be forced.

No Windows machine runs these: the hook commands for cmd.exe and PowerShell are checked as strings
(tools/release/WINDOWS.md lists what only Windows can show), the rest runs for real.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest
from entire_core import cli_stdio, fsutil, hooks, installs, paths
from entire_core.agent import Agent
from entire_core.config._lock import lock_file_for
from entire_core.testing.runner import Sandbox

# -- hook commands --------------------------------------------------------------------------------------


def test_cmd_guarded_command() -> None:
    command = hooks.cmd_guarded("x-agent", "session-start")
    assert command == "(where /q entire || exit 0) && entire hooks x-agent session-start"
    assert hooks.is_ours(command, "x-agent") and not hooks.is_ours(command, "x")
    assert hooks.hook_of(command, "x-agent") == "session-start"


def test_powershell_guarded_command() -> None:
    command = hooks.powershell_guarded("x-agent", "stop")
    assert command == (
        "if (Get-Command entire -ErrorAction SilentlyContinue) "
        "{ entire hooks x-agent stop ; exit $LASTEXITCODE } else { exit 0 }"
    )
    assert hooks.is_ours(command, "x-agent") and not hooks.is_ours(command, "x")
    assert hooks.hook_of(command, "x-agent") == "stop"
    # what Gemini CLI appends before running it (hookRunner.executeCommandHook) keeps it one statement list
    assert hooks.hook_of(command + "; if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }", "x-agent") == "stop"


@pytest.mark.parametrize("build", [hooks.cmd_guarded, hooks.powershell_guarded])
def test_windows_commands_need_no_quoting(build: object) -> None:
    assert callable(build)
    command: str = build("openai-codex", "user-prompt-submit")
    # Quotes, % and ^ mean different things to cmd.exe, PowerShell and the quoting of the caller.
    assert not set(command) & set("\"'%^`\\")
    for bad in ("a b", 'a"b', "a&b", "a%b", "", "é"):
        with pytest.raises(ValueError, match="cannot go unquoted"):
            build(bad, "stop")
        with pytest.raises(ValueError, match="cannot go unquoted"):
            build("x", bad)


# -- stdin read by a thread (Windows has no select on pipes) -------------------------------------------


LAUNCHER = """\
import sys
import entire_core.cli_stdio as cli_stdio

cli_stdio._THREADED_STDIN = True  # the Windows branch of read_stdin
threaded = cli_stdio._read_with_thread


def traced(fd, wait):
    sys.stderr.write("threaded stdin read\\n")
    return threaded(fd, wait)


cli_stdio._read_with_thread = traced
from entire_core.testing.sample_agent import main

sys.exit(main())
"""


def test_threaded_stdin_with_the_pipe_kept_open_answers_and_exits_0(tmp_path: Path) -> None:
    script = tmp_path / "launcher.py"
    script.write_text(LAUNCHER)
    sandbox = Sandbox(tmp_path / "sandbox")
    payload = {"session_id": "s-1", "transcript_path": "/t.jsonl", "timestamp": "2026-01-01T00:00:00Z"}
    proc = subprocess.Popen(
        [sys.executable, str(script), "parse-hook", "--hook", "stop"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=sandbox.env, cwd=sandbox.repo,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        proc.stdin.write(json.dumps(payload).encode())
        proc.stdin.flush()  # and the pipe stays open, as some callers leave it
        code = proc.wait(timeout=30)
        out, err = proc.stdout.read(), proc.stderr.read()
    finally:
        proc.kill()
        proc.stdin.close()
        proc.stdout.close()
        proc.stderr.close()
    assert b"threaded stdin read" in err and b"Fatal Python error" not in err, err
    assert code == 0
    assert json.loads(out) == {"type": 3, "session_id": "s-1", "session_ref": "/t.jsonl",
                               "timestamp": "2026-01-01T00:00:00Z"}  # fmt: skip


def test_threaded_read_returns_after_silence_on_an_open_pipe() -> None:
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"part one, ")
        os.write(write_end, b"part two")
        assert cli_stdio._read_with_thread(read_end, 0.3) == b"part one, part two"
    finally:
        os.close(write_end)  # the reader thread, still blocked, gets EOF and ends
        os.close(read_end)


def test_threaded_read_returns_at_eof() -> None:
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, b"all of it")
        os.close(write_end)
        assert cli_stdio._read_with_thread(read_end, 30) == b"all of it"  # EOF ends it, not the wait
    finally:
        os.close(read_end)


# -- atomic writes of read-only files -------------------------------------------------------------------


def test_a_read_only_target_is_refused_up_front_on_windows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(b"old")
    target.chmod(0o444)
    monkeypatch.setattr(fsutil, "sys", SimpleNamespace(platform="win32"))
    with pytest.raises(PermissionError, match="read-only") as caught:
        fsutil.atomic_write(str(target), b"new")
    assert caught.value.filename == str(target)
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["settings.json"]


def test_a_failed_replace_leaves_no_read_only_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Windows semantics, emulated: replacing onto a read-only file and deleting a read-only file fail.
    target = tmp_path / "settings.json"
    target.write_bytes(b"old")
    target.chmod(0o444)

    def replace(src: str, dst: str) -> None:
        raise PermissionError(13, "Access is denied", dst)

    def unlink(path: str) -> None:
        if not os.stat(path).st_mode & stat.S_IWRITE:
            raise PermissionError(13, "Access is denied", path)
        real_unlink(path)

    real_unlink = os.unlink
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "unlink", unlink)
    with pytest.raises(PermissionError) as caught:
        fsutil.atomic_write(str(target), b"new")
    assert caught.value.filename == str(target)  # the replace's error, not the cleanup's
    assert os.listdir(tmp_path) == ["settings.json"] and target.read_bytes() == b"old"


# -- the home directory and the install records -------------------------------------------------------


def test_home_prefers_userprofile_on_windows_only(force_platform: Callable[[str], None]) -> None:
    env = {"HOME": "/msys/home/me", "USERPROFILE": "/Users/me"}
    assert paths.home_dir(env) == "/msys/home/me" and Agent(env=env).home() == "/msys/home/me"
    force_platform("win32")
    assert paths.home_dir(env) == "/Users/me" and Agent(env=env).home() == "/Users/me"
    assert paths.home_dir({"HOME": "/msys/home/me"}) == "/msys/home/me"


@pytest.mark.usefixtures("windows")
def test_install_records_live_in_localappdata_on_windows(tmp_path: Path) -> None:
    env = {"LOCALAPPDATA": str(tmp_path / "local"), "HOME": str(tmp_path / "msys"),
           "USERPROFILE": str(tmp_path / "profile")}  # fmt: skip
    installs.remember(env, "x", str(tmp_path / "repo" / "hooks.json"), created_file=True)
    assert (tmp_path / "local" / "entire-agent-x" / "installs.json").is_file()
    del env["LOCALAPPDATA"]
    installs.remember(env, "x", str(tmp_path / "repo" / "hooks.json"), created_file=True)
    assert (tmp_path / "profile" / ".local" / "share" / "entire-agent-x" / "installs.json").is_file()
    assert not (tmp_path / "msys").exists()


def test_case_variants_share_one_record_and_one_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    upper, lower = str(tmp_path / "Repo" / "X.json"), str(tmp_path / "repo" / "x.json")
    assert lock_file_for(upper) != lock_file_for(lower)  # POSIX: two files
    monkeypatch.setattr(os.path, "normcase", str.lower)  # what ntpath.normcase does to these
    assert lock_file_for(upper) == lock_file_for(lower)
    installs.remember(env, "x", upper, created_file=True)
    assert installs.recall(env, "x", lower) == {"created_file": True}
    installs.forget(env, "x", lower)
    assert installs.recall(env, "x", upper) == {}
