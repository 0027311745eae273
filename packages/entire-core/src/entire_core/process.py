"""Running the agent's own binary (``generate-text``, ``doctor``) with a bound and a clear failure.

The Entire CLI kills a plugin call after 30 s with SIGKILL, which no ``finally`` survives: an agent we
started, and what it started, would live on, and our scratch directory (holding the checkpoint's
transcript text) would stay on disk. So ``Guard`` starts a watchdog first: a tiny separate Python
process, in its own session, that blocks reading a pipe only we hold. Each child we start gets its
own process group, whose id we tell the watchdog, as we tell it our scratch directory. When we finish,
we reap both ourselves and say ``done``; when the pipe closes without ``done`` (we were killed), the
watchdog kills every group and removes every directory and file it was told about. Stdlib only.
"""

from __future__ import annotations

import os
import subprocess
import sys

from entire_core.errors import AgentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from types import TracebackType

HOST_KILL_SECONDS = 30.0
"""The Entire CLI kills a plugin call after this long."""
TEXT_SECONDS = 25.0
"""How long ``generate-text`` may take in all: below the host's kill, so the user gets our message."""
TEXT_SECONDS_ENV = "ENTIRE_AGENT_TEXT_TIMEOUT"
"""Shortens ``TEXT_SECONDS`` (tests); it can never lengthen it."""
_FAULTS = bool(os.environ.get("ENTIRE_FAULT_AT") or os.environ.get("ENTIRE_FAULT_TRACE"))
"""Fault points (``entire_core.faults``: ``guard.*``) act only when a test armed them."""


def _reached(point: str, path: str) -> None:
    from entire_core import faults

    faults.reached(point, path)


_WATCHDOG = r"""
import os, shutil, signal, subprocess, sys
groups, dirs, files, done, buf = [], [], [], False, b""
while True:
    try:
        chunk = os.read(0, 4096)
    except OSError:
        break
    if not chunk:
        break
    buf += chunk
    *lines, buf = buf.split(b"\n")
    for line in lines:
        kind, _, value = line.decode("utf-8", "surrogateescape").partition(" ")
        if kind == "group":
            groups.append(int(value))
        elif kind == "dir":
            dirs.append(value)
        elif kind == "file":
            files.append(value)
        elif kind == "done":
            done = True
if not done:
    for group in groups:
        try:
            if os.name == "nt":
                subprocess.run(["taskkill", "/F", "/T", "/PID", str(group)], capture_output=True)
            else:
                os.killpg(group, signal.SIGKILL)
        except OSError:
            pass
    for path in dirs:
        shutil.rmtree(path, ignore_errors=True)
    for path in files:
        try:
            os.remove(path)
        except OSError:
            pass
"""


def text_seconds(env: Mapping[str, str]) -> float:
    """The time ``generate-text`` has in all: ``TEXT_SECONDS``, or less when ``TEXT_SECONDS_ENV`` says so."""
    try:
        wanted = float(env.get(TEXT_SECONDS_ENV, "") or TEXT_SECONDS)
    except ValueError:
        wanted = TEXT_SECONDS
    return max(0.1, min(wanted, TEXT_SECONDS))


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child and everything in its process group (the child leads it)."""
    if os.name == "nt":
        subprocess.run(["taskkill", "/F", "/T", "/PID", str(proc.pid)], capture_output=True, check=False)
    else:
        import signal

        try:  # noqa: SIM105 - contextlib is one more import
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:  # the group is gone already
            pass
    proc.kill()  # a no-op once the child is reaped


class Guard:
    """A scratch directory and the children of one call, removed and killed even if we are killed.

    Use as a context manager: ``with Guard(env, scratch_prefix="entire-agent-aider-") as guard:
    guard.run(...)``. ``guard.scratch`` is then a fresh private directory (under the environment's
    ``TMPDIR``), created only after the watchdog knows about it; without a prefix there is none.
    """

    def __init__(self, env: Mapping[str, str] | None = None, *, scratch_prefix: str | None = None) -> None:
        self._watchdog = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", _WATCHDOG],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,  # never the host's pipes: it would wait for the watchdog's end
            stderr=subprocess.DEVNULL,
            start_new_session=os.name != "nt",  # a kill of our group must not take the watchdog with it
        )
        self._files: list[str] = []
        self.scratch = self._make_scratch(scratch_prefix, env or {}) if scratch_prefix else ""

    def _make_scratch(self, prefix: str, env: Mapping[str, str]) -> str:
        import secrets
        import tempfile

        base = env.get("TMPDIR") or ""
        base = base if base and os.path.isdir(base) else tempfile.gettempdir()
        while True:
            path = os.path.join(base, prefix + secrets.token_hex(6))
            self._tell(f"dir {path}")  # told before it exists: killed right after mkdir, it still goes
            try:
                os.mkdir(path, 0o700)  # fails on anything already there, a link included
            except FileExistsError:
                continue
            if _FAULTS:
                _reached("guard.scratch-made", path)
            return path

    def remove_later(self, path: str) -> None:
        """Have the file at ``path`` removed when the call ends, as the scratch directory is, even if we are
        killed: a file the agent writes outside the scratch directory because of this one run (its name
        is ours alone), which the user must not find afterwards."""
        self._files.append(path)
        self._tell(f"file {path}")

    def _tell(self, line: str) -> None:
        pipe = self._watchdog.stdin
        assert pipe is not None
        pipe.write(line.encode("utf-8", "surrogateescape") + b"\n")
        pipe.flush()

    def run(
        self,
        argv: Sequence[str],
        *,
        name: str,
        cwd: str,
        env: Mapping[str, str],
        timeout: float,
        stdin: bytes | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """Run ``argv`` in its own process group, output captured, for at most ``timeout`` seconds.

        A timeout or a binary that cannot start is an AgentError naming ``name``; a non-zero exit is the
        caller's to explain. stdin is the given bytes, or ``/dev/null``: never the plugin's own (the
        Entire CLI's), and never a terminal a prompt could wait on.
        """
        flags = subprocess.CREATE_NEW_PROCESS_GROUP if os.name == "nt" else 0
        pipe = self._watchdog.stdin
        assert pipe is not None
        watchdog = pipe.fileno()

        def tell_own_group() -> None:
            # In the child, between fork and exec, after setsid: the watchdog knows its group before
            # the agent runs, so a kill of ours right after the fork (before the ``_tell`` below) still
            # takes it (issue 37: killed there, the agent lived on). One small write, no lock taken.
            os.write(watchdog, b"group %d\n" % os.getpid())

        try:
            proc = subprocess.Popen(
                list(argv),
                stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=dict(env),
                start_new_session=os.name != "nt",
                creationflags=flags,
                preexec_fn=tell_own_group if os.name != "nt" else None,
            )
        except OSError as exc:
            raise AgentError(f"cannot run {name}: {exc.strerror or exc}") from None
        if _FAULTS:
            _reached("guard.child-started", name)
        self._tell(f"group {proc.pid}")  # where the child cannot tell it (Windows)
        try:
            out, err = proc.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            try:
                proc.communicate(timeout=2)
            except subprocess.TimeoutExpired:  # a process outside the group holds the pipes: leave them
                for pipe in (proc.stdout, proc.stderr):
                    if pipe is not None:
                        pipe.close()
                proc.wait()
            raise AgentError(f"{name} did not answer within {timeout:.0f} s") from None
        finally:
            _kill_group(proc)  # what the child left running in its group goes too
        if _FAULTS:
            _reached("guard.child-done", name)
        return subprocess.CompletedProcess(list(argv), proc.returncode, out, err)

    def close(self) -> None:
        """Remove the scratch directory, then let the watchdog go."""
        import shutil

        if self.scratch:
            shutil.rmtree(self.scratch, ignore_errors=True)
        for path in self._files:
            try:  # noqa: SIM105 - contextlib is one more import
                os.remove(path)
            except OSError:  # never written, or gone already
                pass
        if _FAULTS:
            _reached("guard.scratch-removed", self.scratch)
        pipe = self._watchdog.stdin
        if pipe is not None and not pipe.closed:
            try:
                self._tell("done")
                pipe.close()
            except OSError:
                pass
        try:
            self._watchdog.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._watchdog.kill()

    def __enter__(self) -> Guard:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def run_tool(
    argv: Sequence[str],
    *,
    name: str,
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` to completion, output captured; a timeout or a binary that cannot start is an AgentError.

    ``name`` is how the error names the tool (``codex exec``). stdin is the given bytes, or nothing at
    all: the plugin's own stdin belongs to the Entire CLI. A non-zero exit is the caller's to explain.
    The child runs in its own process group, killed with us (``Guard``).
    """
    with Guard(env) as guard:
        return guard.run(argv, name=name, cwd=cwd, env=env, timeout=timeout, stdin=stdin)
