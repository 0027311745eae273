"""``entire-agent-aider run -- <aider args>``: Aider with an exact session lifecycle.

The launcher names the session before Aider starts, emits SessionStart, and runs Aider in Aider's own
interpreter through ``entire_agent_aider.bootstrap``, which delivers TurnStart before the first model
call of each turn (and waits for Entire), TurnEnd when Aider asks for the next input, and brings the
session's view up to date before each of Aider's commits. The launcher emits the last TurnEnd and
SessionEnd when Aider exits. Where Aider's interpreter cannot be found (an ``aider`` that is not a
Python script), Aider runs unwrapped and Entire records the session without turns: no checkpoint
rather than a wrong one. Aider keeps the terminal (inherited stdio, so its prompt works); the
launcher ignores the terminal's Ctrl-C as a shell would, forwards SIGTERM and SIGHUP (where there is
one), and exits with Aider's status.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading

from entire_agent_aider import notify, paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags


def new_session_id() -> str:
    """A fresh id for a launched session: its start time and some randomness."""
    import time

    return "aider-run-" + time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + os.urandom(4).hex()


def aider_interpreter(aider: str, path: str | None = None) -> str | None:
    """The Python that runs the ``aider`` executable (from its ``#!`` line), or None when it is not a Python script.

    uv, pipx and pip name the interpreter on the first line, or (pip, for a long path) in a ``'''exec' PY``
    line of a ``/bin/sh`` header. An ``aider.exe`` (Windows' console-script launcher) has none: its
    environment's ``python.exe`` sits beside it.
    """
    import shlex
    import shutil

    script = shutil.which(aider, path=path)
    if script is None:
        return None
    try:
        with open(script, "rb") as f:
            head = f.read(4096).decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    if not head or not head[0].startswith("#!"):
        beside = os.path.join(os.path.dirname(script), "python.exe")
        return beside if script.lower().endswith(".exe") and os.path.isfile(beside) else None
    try:
        words = shlex.split(head[0][2:].strip())
    except ValueError:
        return None
    if words and words[0] in ("/bin/sh", "/usr/bin/sh") and len(head) > 1 and head[1].startswith("'''exec' "):
        try:
            words = shlex.split(head[1][len("'''exec' ") :])
        except ValueError:
            return None
    elif words and os.path.basename(words[0]) == "env" and len(words) > 1:
        words = words[1:]
    if not words or "python" not in os.path.basename(words[0]).lower():
        return None
    return shutil.which(words[0], path=path)


def inprocess_config(name: str, root: str, history: str, session: str, aider: str) -> dict[str, Any]:
    """What ``bootstrap`` needs to deliver our hooks from inside Aider (``bootstrap.ENV``)."""
    import shutil
    import sys

    from entire_core.paths import state_dir
    from entire_core.scratch import Scratch

    from entire_agent_aider import state as store
    from entire_agent_aider.lifecycle import HOOK_OF_TYPE

    drain_lock = os.path.join(state_dir(os.environ, name), f"drain-{store.history_key(history)}.lock")
    return {
        "entire": shutil.which("entire") or "",
        "agent": name,
        "root": root,
        "history": history,
        "session": session,
        "state": store.state_path(Scratch(root, name), history),
        "drain_lock": drain_lock,
        "hook_of_type": {str(int(k)): v for k, v in HOOK_OF_TYPE.items()},
        "plugin": [sys.executable, "-m", "entire_agent_aider"],
        "aider": aider,
    }


def forwarded_signals() -> list[signal.Signals]:
    """The signals passed on to Aider: SIGTERM, and SIGHUP where there is one (not on Windows)."""
    hangup: signal.Signals | None = getattr(signal, "SIGHUP", None)
    return [signal.SIGTERM] if hangup is None else [signal.SIGTERM, hangup]


def run(agent: Agent, flags: Flags) -> int:
    """Run Aider under the launcher and return its exit status; Aider gets everything after our flags."""
    from entire_core.cli_stdio import print_error

    default = os.environ.get("ENTIRE_AIDER_BINARY") or "aider"
    aider = flags.str_("aider") if "aider" in flags.given else default
    args = list(flags.args)
    name = agent.name
    cwd = os.getcwd()
    history = paths.history_from_args(args, cwd, os.environ)
    root = paths.git_root(cwd) or cwd
    session = new_session_id()
    try:
        start = os.path.getsize(history)
    except OSError:
        start = 0
    lock = threading.Lock()
    failures: list[str] = []

    def deliver(hook: str, **extra: Any) -> None:
        body = notify.payload(hook, history, source="launcher", session=session, **extra)
        with lock:
            try:
                status = notify.deliver(name, root, history, hook, body, quiet=True)
            except Exception as exc:  # the user's Aider session matters more than our bookkeeping
                failures.append(f"{hook}: {exc}")
                return
            if status:
                failures.append(f"{hook}: entire exited with status {status}")

    deliver("session-start", start_offset=start)
    env = dict(os.environ, ENTIRE_AIDER_SESSION=session, **{notify.HISTORY_ENV: history})
    python = aider_interpreter(aider)
    if python is not None:
        import json

        from entire_agent_aider import bootstrap

        config = inprocess_config(name, root, history, session, aider)
        env[bootstrap.ENV] = json.dumps(config)
        command = [python, os.path.abspath(bootstrap.__file__), *args]
    else:
        # No Python to wrap Aider in: Entire hears the session but no turn, never a wrong one.
        print_error(
            name,
            "run",
            f"cannot find the Python that runs {aider}: Entire records no turns of this session",
            "name Aider's executable with --aider PATH (the aider script of its uv tool or pipx environment)",
        )
        command = [aider, *args]
    try:
        child = subprocess.Popen(command, env=env)
    except OSError as exc:
        deliver("turn-end", exited=True, exit_code=127)
        print_error(
            name, "run", f"cannot start {aider}: {exc.strerror or exc}", "name Aider with --aider PATH"
        )
        return 127
    forwarded = forwarded_signals()
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, *forwarded)}
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the terminal sends Ctrl-C to Aider too
    for sig in forwarded:
        signal.signal(sig, lambda signum, _frame: child.send_signal(signum))
    try:
        code = child.wait()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    deliver("turn-end", exited=True, exit_code=code)
    if failures:
        print_error(
            name, "run", f"Entire did not record everything: {failures[0]}", "see `entire-agent-aider doctor`"
        )
    if code < 0:  # killed by a signal: die the same way so our caller sees it
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        return 128 - code
    return code
