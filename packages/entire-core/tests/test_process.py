"""Running an agent's binary: its output, and clean errors for timeouts and binaries that cannot start."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from entire_core.errors import AgentError
from entire_core.process import run_tool


def test_output_and_exit_status(tmp_path: Path) -> None:
    code = "import sys; sys.stdout.write(sys.stdin.read().upper()); sys.exit(3)"
    done = run_tool(
        [sys.executable, "-c", code], name="t", cwd=str(tmp_path), env={}, timeout=30, stdin=b"hi"
    )
    assert (done.returncode, done.stdout) == (3, b"HI")
    silent = run_tool([sys.executable, "-c", "import sys; print(repr(sys.stdin.read()))"], name="t",
                      cwd=str(tmp_path), env={}, timeout=30)  # fmt: skip
    assert silent.stdout.strip() == b"''"  # no stdin at all: never the plugin's own


def test_timeout_and_missing_binary_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match="slow did not answer within 1 s"):
        run_tool([sys.executable, "-c", "import time; time.sleep(30)"], name="slow", cwd=str(tmp_path), env={},
                 timeout=1)  # fmt: skip
    with pytest.raises(AgentError, match="cannot run nope: "):
        run_tool([str(tmp_path / "nope")], name="nope", cwd=str(tmp_path), env={}, timeout=5)


# -- killed as the host kills: nothing left running, nothing left on disk ---------------------------------

HANGS = """\
import os, subprocess, sys, time
grandchild = subprocess.Popen([sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)"])
with open(sys.argv[1], "a") as f:
    f.write(f"{os.getpid()}\\n{grandchild.pid}\\n")
time.sleep(300)
"""

PLUGIN = """\
import os, sys
from entire_core.process import Guard
pids, hangs, marker = sys.argv[1], sys.argv[2], sys.argv[3]
guard = Guard(os.environ, scratch_prefix="entire-agent-test-")
guard.remove_later(marker)  # a file the agent writes outside the scratch because of this run
with open(marker, "w") as f:
    f.write("the agent's marker of this run")
with open(os.path.join(guard.scratch, "transcript.txt"), "w") as f:
    f.write("the checkpoint's transcript")
with open(pids, "a") as f:
    f.write(f"scratch {guard.scratch}\\n")
guard.run([sys.executable, hangs, pids], name="hangs", cwd=guard.scratch, env=os.environ, timeout=300)
"""


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie nobody reaped has stopped running)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait_for(predicate: object, seconds: float) -> bool:
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return bool(predicate())  # type: ignore[operator]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to tell a running process")
def test_a_plugin_killed_mid_call_leaves_no_process_and_no_file(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess

    (tmp_path / "hangs.py").write_text(HANGS)
    pids = tmp_path / "pids"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    marker = tmp_path / "agent-home" / ".marker-of-this-run"
    marker.parent.mkdir()
    plugin = subprocess.Popen([sys.executable, "-c", PLUGIN, str(pids), str(tmp_path / "hangs.py"), str(marker)],
                              env=env)  # fmt: skip
    try:
        assert _wait_for(lambda: pids.exists() and len(pids.read_text().splitlines()) == 3, 20), (
            "no child started"
        )
        lines = pids.read_text().splitlines()
        scratch, children = Path(lines[0].split(" ", 1)[1]), [int(p) for p in lines[1:]]
        assert scratch.parent == tmp and (scratch / "transcript.txt").exists() and marker.exists()
        assert all(alive(pid) for pid in children)
        plugin.send_signal(signal.SIGKILL)  # what the host does at 30 s
        plugin.wait()
        assert _wait_for(lambda: not any(alive(pid) for pid in children) and not scratch.exists(), 5), (
            f"left behind: {[p for p in children if alive(p)]}, {list(tmp.iterdir())}"
        )
        assert list(tmp.iterdir()) == []
        assert _wait_for(lambda: not marker.exists(), 5) and marker.parent.is_dir()
    finally:
        plugin.kill()


def _ours(marker: str) -> list[int]:
    """The processes whose environment holds ``marker`` (what a call started, and what that started)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and alive(int(entry)):
            try:
                if marker.encode() in Path(f"/proc/{entry}/environ").read_bytes():
                    found.append(int(entry))
            except OSError:
                pass
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to tell a running process")
def test_a_plugin_killed_right_after_the_child_starts_leaves_no_process(tmp_path: Path) -> None:
    """Killed between the fork and telling the watchdog the child's group (``make faults``, issue 37:
    ``guard.child-started``), the agent lived on: the child tells the watchdog itself, before it execs."""
    import subprocess

    (tmp_path / "hangs.py").write_text(HANGS)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    marker = f"ENTIRE_TEST_MARK={tmp_path}"
    env = {**os.environ, "TMPDIR": str(tmp), "ENTIRE_TEST_MARK": str(tmp_path),
           "ENTIRE_FAULT_AT": "guard.child-started", "ENTIRE_FAULT_SIGNAL": "KILL"}  # fmt: skip
    home = tmp_path / "agent-home"
    home.mkdir()
    plugin = subprocess.run([sys.executable, "-c", PLUGIN, str(tmp_path / "pids"), str(tmp_path / "hangs.py"),
                             str(home / ".marker")], env=env, timeout=60, check=False)  # fmt: skip
    assert plugin.returncode == -9
    assert _wait_for(lambda: not _ours(marker), 5), f"left running: {_ours(marker)}"
    assert _wait_for(lambda: list(tmp.iterdir()) == [], 5), list(tmp.iterdir())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to tell a running process")
def test_a_timeout_kills_the_whole_group_and_the_scratch_goes(tmp_path: Path) -> None:
    import os
    import time

    from entire_core.process import Guard

    (tmp_path / "hangs.py").write_text(HANGS)
    pids = tmp_path / "pids"
    started = time.monotonic()
    with Guard({"TMPDIR": str(tmp_path)}, scratch_prefix="entire-agent-test-") as guard:
        scratch = Path(guard.scratch)
        with pytest.raises(AgentError, match=r"^hangs did not answer within 1 s$"):
            guard.run([sys.executable, str(tmp_path / "hangs.py"), str(pids)], name="hangs", cwd=guard.scratch,
                      env=os.environ, timeout=1)  # fmt: skip
    assert time.monotonic() - started < 5
    children = [int(p) for p in pids.read_text().split()]
    assert _wait_for(lambda: not any(alive(pid) for pid in children), 2), "the group outlived the timeout"
    assert not scratch.exists()


def test_the_text_limit_can_be_shortened_never_lengthened() -> None:
    from entire_core.process import TEXT_SECONDS, text_seconds

    assert text_seconds({}) == TEXT_SECONDS == 25.0
    assert text_seconds({"ENTIRE_AGENT_TEXT_TIMEOUT": "2.5"}) == 2.5
    assert text_seconds({"ENTIRE_AGENT_TEXT_TIMEOUT": "90"}) == 25.0
    assert text_seconds({"ENTIRE_AGENT_TEXT_TIMEOUT": "soon"}) == 25.0


@pytest.mark.skipif(os.name == "nt", reason="setsid is POSIX")
def test_a_timeout_returns_even_when_an_escaped_process_holds_the_output(tmp_path: Path) -> None:
    import subprocess
    import time

    from entire_core.process import Guard

    pidfile = tmp_path / "escaped"
    code = (
        "import subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], start_new_session=True)\n"
        f"open({str(pidfile)!r}, 'w').write(str(p.pid))\n"
        "time.sleep(60)\n"
    )
    started_at = time.monotonic()
    try:
        with Guard({}) as guard, pytest.raises(AgentError, match="did not answer within 1 s"):
            guard.run(
                [sys.executable, "-c", code], name="escapes", cwd=str(tmp_path), env=os.environ, timeout=1
            )
        assert time.monotonic() - started_at < 6
    finally:
        if pidfile.exists():
            subprocess.run(["kill", "-9", pidfile.read_text()], check=False)


def test_files_to_remove_later_go_when_the_call_ends(tmp_path: Path) -> None:
    from entire_core.process import Guard

    written, never = tmp_path / "written", tmp_path / "never-written"
    with Guard({"TMPDIR": str(tmp_path)}) as guard:
        guard.remove_later(str(written))
        guard.remove_later(str(never))
        written.write_text("x")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
