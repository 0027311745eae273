"""``entire-agent-aider run -- <aider args>``: Aider with an exact session lifecycle.

The launcher names the session before Aider starts and passes the id to the notification command
through ``ENTIRE_AIDER_SESSION``. It emits SessionStart before Aider runs, TurnStart as each input
block appears in the history file (a tail thread), TurnEnd from the notification and at exit, and
SessionEnd when Aider exits. Aider keeps the terminal (inherited stdio, so its prompt works); the
launcher ignores the terminal's Ctrl-C as a shell would, forwards SIGTERM and SIGHUP (where there is
one), and exits with Aider's status.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading

from entire_agent_aider import notify, paths
from entire_agent_aider.hooks import notify_command

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags

POLL_SECONDS = 0.2


def new_session_id() -> str:
    """A fresh id for a launched session: its start time and some randomness."""
    import time

    return "aider-run-" + time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + os.urandom(4).hex()


class Tail(threading.Thread):
    """Watches the history file and delivers TurnStart when a new input block appears."""

    def __init__(self, deliver: Any, history: str, start: int) -> None:
        super().__init__(daemon=True)
        self.deliver = deliver
        self.history = history
        self.position = start
        self.stop = threading.Event()

    def run(self) -> None:
        from entire_core.offsets import read_lines

        while not self.stop.wait(POLL_SECONDS):
            lines, self.position = read_lines(self.history, self.position)
            if any(line.startswith(b"####") for line in lines):
                self.deliver("turn-start")


def forwarded_signals() -> list[signal.Signals]:
    """The signals passed on to Aider: SIGTERM, and SIGHUP where there is one (not on Windows)."""
    hangup: signal.Signals | None = getattr(signal, "SIGHUP", None)
    return [signal.SIGTERM] if hangup is None else [signal.SIGTERM, hangup]


def run(agent: Agent, flags: Flags) -> int:
    """Run Aider under the launcher and return its exit status; Aider gets everything after our flags."""
    from entire_core.cli import print_error

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
    command = [aider, *args]
    if not any(a == "--notifications-command" or a.startswith("--notifications-command=") for a in args):
        # Command-line options beat AIDER_* variables and YAML, so this works without install-hooks.
        command += ["--notifications", "--notifications-command", notify_command()]
    # The history file goes along too: where notify cannot read Aider's command line (no /proc on
    # Windows or macOS), it would otherwise miss a --chat-history-file given here.
    env = dict(os.environ, ENTIRE_AIDER_SESSION=session, **{notify.HISTORY_ENV: history})
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
    tail = Tail(deliver, history, start)
    tail.start()
    try:
        code = child.wait()
    finally:
        tail.stop.set()
        tail.join()
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
