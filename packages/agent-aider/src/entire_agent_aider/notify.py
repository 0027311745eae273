"""Feeding our payloads to ``entire hooks <agent> <hook>``: the notification command and the launcher's calls.

The Entire CLI reads exactly one JSON value from a hook's stdin and ``parse-hook`` answers one event,
but one notification can stand for several events (the first turn of a session is SessionStart,
TurnStart and TurnEnd at once). ``deliver`` therefore calls ``entire hooks`` again while the state
still holds queued events, naming each call after the event it will deliver, and stops as soon as a
call makes no progress (Entire not enabled in this repository, or failing).
"""

from __future__ import annotations

import os
import sys

from entire_agent_aider import paths
from entire_agent_aider import state as store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags
    from entire_core.scratch import Scratch

MAX_CALLS = 64
DRAIN_WAIT_SECONDS = 60.0
HISTORY_ENV = "ENTIRE_AIDER_HISTORY"
"""The history file the launcher resolved, for notify where Aider's command line cannot be read."""


def aider_process(pid: int) -> tuple[list[str], str] | None:
    """Aider's argv and working directory, read from ``/proc`` (None where there is no ``/proc``)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            argv = [a.decode("utf-8", "surrogateescape") for a in f.read().split(b"\0") if a]
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None
    return argv, cwd


def payload(hook: str, history: str, *, source: str, session: str = "", **extra: Any) -> dict[str, Any]:
    """Our hook payload: what ``parse-hook`` needs to find the history file and name the trigger."""
    from entire_agent_aider.events import now

    body: dict[str, Any] = {
        "hook": hook,
        "source": source,
        "history_file": history,
        "cwd": os.getcwd(),
        "time": now(),
        "session": session,
    }
    body.update(extra)
    return body


def _progress(scratch: Scratch, history: str) -> tuple[int, int, int | None]:
    """(events delivered so far, events still queued, type of the next one) from the state file."""
    from entire_core import jsonvalues

    state = store.load(scratch, history)
    queue = jsonvalues.array(state.get("queue"))
    head = jsonvalues.integer(jsonvalues.obj(queue[0]).get("type")) if queue else None
    return jsonvalues.integer(state.get("delivered")), len(queue), head


def deliver(
    agent_name: str,
    repo_root: str,
    history: str,
    hook: str,
    body: dict[str, Any],
    *,
    quiet: bool = False,
) -> int:
    """Call ``entire hooks <agent_name> <hook>`` with ``body``, then again for every event still queued.

    Returns 0, or the exit status of the first failing ``entire`` call. When ``entire`` is not on
    PATH nothing happens and 0 is returned. With ``quiet``, Entire's messages are not shown.
    """
    import json
    import shutil
    import subprocess

    from entire_core import locks
    from entire_core.paths import state_dir
    from entire_core.scratch import Scratch

    from entire_agent_aider.lifecycle import HOOK_OF_TYPE

    entire = shutil.which("entire")
    if entire is None:
        return 0
    scratch = Scratch(repo_root, agent_name)
    # In the plugin's state directory, not the repository: Entire may not be enabled here, and then
    # nothing may create .entire/. Deleted as it is released, so no delivery leaves a file behind.
    drain_lock = os.path.join(state_dir(os.environ, agent_name), f"drain-{store.history_key(history)}.lock")
    with locks.exclusive(drain_lock, wait=DRAIN_WAIT_SECONDS, remove=True):
        for _ in range(MAX_CALLS):
            before = _progress(scratch, history)
            result = subprocess.run(
                [entire, "hooks", agent_name, hook],
                input=json.dumps(body).encode("utf-8"),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                cwd=repo_root,
                check=False,
            )
            if result.returncode != 0:
                if not quiet:
                    sys.stderr.write(result.stderr.decode("utf-8", "replace"))
                return result.returncode
            delivered, queued, head = _progress(scratch, history)
            if delivered == before[0] or not queued or head is None:
                return 0
            hook = HOOK_OF_TYPE.get(head, "turn-end")
            body = {**body, "hook": hook, "exited": False}
    return 0


def notify(agent: Agent, flags: Flags) -> int:
    """The ``notify`` command that Aider's ``notifications-command`` runs (see ``hooks.NOTIFY_COMMAND``)."""
    try:
        # Without --aider-pid (cmd.exe has no $PPID), the parent is cmd.exe or, on Windows, the
        # console-script launcher; it only matters where /proc exists to read Aider's command line.
        pid = flags.int_("aider-pid") or os.getppid()
        found = aider_process(pid)
        args, cwd = found if found is not None else ([], os.getcwd())
        launched = os.environ.get(HISTORY_ENV, "")
        if found is None and os.path.isabs(launched):
            history = launched
        else:
            history = paths.history_from_args(args[1:], cwd, os.environ)
        root = paths.git_root(cwd) or os.path.abspath(cwd)
        session = os.environ.get("ENTIRE_AIDER_SESSION", "")
        body = payload("turn-end", history, source="notification", session=session, aider_pid=pid)
        return deliver(agent.name, root, history, "turn-end", body)
    except Exception as exc:  # a notification must never break Aider's turn with a traceback
        from entire_core.cli import print_error

        print_error(agent.name, "notify", str(exc))
        return 1
