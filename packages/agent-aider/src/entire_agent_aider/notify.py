"""Feeding our payloads to ``entire hooks aider <hook>``: the notification command and the launcher's calls.

The Entire CLI reads exactly one JSON value from a hook's stdin and ``parse-hook`` answers one event,
but one notification can stand for several events (the first turn of a session is SessionStart,
TurnStart and TurnEnd at once). ``deliver`` therefore calls ``entire hooks`` again while the state
still holds queued events, naming each call after the event it will deliver, and stops as soon as a
call makes no progress (Entire not enabled in this repository, or failing).
"""

from __future__ import annotations

import os
import sys

from entire_agent_aider import state as store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

MAX_CALLS = 64
DRAIN_WAIT_SECONDS = 60.0
HISTORY_ENV = "ENTIRE_AIDER_HISTORY"
"""The history file the launcher resolved, for notify where Aider's command line cannot be read."""


def git_root(start: str) -> str | None:
    """The enclosing git worktree of ``start`` (a directory holding ``.git``), or None."""
    here = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def history_from_args(args: list[str], cwd: str, env: Mapping[str, str]) -> str:
    """The chat-history file an ``aider`` command line writes, resolved the way Aider resolves it.

    ``--chat-history-file`` beats ``AIDER_CHAT_HISTORY_FILE``, which beats the default in the git
    root. A YAML or ``.env`` setting of the option is not followed.
    """
    value: str | None = None
    for i, arg in enumerate(args):
        if arg == "--chat-history-file" and i + 1 < len(args):
            value = args[i + 1]
        elif arg.startswith("--chat-history-file="):
            value = arg.split("=", 1)[1]
    if value is None:
        value = env.get("AIDER_CHAT_HISTORY_FILE") or None
    if value is None:
        root = git_root(cwd)
        return os.path.join(root or os.path.abspath(cwd), store.HISTORY_FILE)
    return os.path.abspath(os.path.join(cwd, os.path.expanduser(value)))


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
    from entire_agent_aider.hooks import now

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


def _progress(path: str) -> tuple[int, int, int | None]:
    """(events delivered so far, events still queued, type of the next one) from the state file."""
    from entire_core import jsonvalues

    state = store.load(path)
    queue = jsonvalues.array(state.get("queue"))
    head = jsonvalues.integer(jsonvalues.obj(queue[0]).get("type")) if queue else None
    return jsonvalues.integer(state.get("delivered")), len(queue), head


def deliver(
    repo_root: str,
    history: str,
    hook: str,
    body: dict[str, Any],
    *,
    quiet: bool = False,
) -> int:
    """Call ``entire hooks aider <hook>`` with ``body``, then again for every event still queued.

    Returns 0, or the exit status of the first failing ``entire`` call. When ``entire`` is not on
    PATH nothing happens and 0 is returned. With ``quiet``, Entire's messages are not shown.
    """
    import json
    import shutil
    import subprocess
    import tempfile

    from entire_core import locks

    from entire_agent_aider.lifecycle import HOOK_OF_TYPE

    entire = shutil.which("entire")
    if entire is None:
        return 0
    path = store.state_path(repo_root, history)
    # Outside the repository: Entire may not be enabled here, and then nothing may create .entire/.
    # The lock file stays (the kernel releases the lock), so it is per user: /tmp is shared.
    user = getattr(os, "getuid", lambda: 0)()
    name = f"entire-agent-aider-{user}-{store.history_key(history)}.drain"
    drain_lock = os.path.join(tempfile.gettempdir(), name)
    with locks.exclusive(drain_lock, wait=DRAIN_WAIT_SECONDS):
        for _ in range(MAX_CALLS):
            before = _progress(path)
            result = subprocess.run(
                [entire, "hooks", "aider", hook],
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
            delivered, queued, head = _progress(path)
            if delivered == before[0] or not queued or head is None:
                return 0
            hook = HOOK_OF_TYPE.get(head, "turn-end")
            body = {**body, "hook": hook, "exited": False}
    return 0


def notify(agent: object, argv: list[str]) -> int:
    """The ``notify`` command that Aider's ``notifications-command`` runs (see ``hooks.NOTIFY_COMMAND``)."""
    from entire_core.cli_flags import INT, parse_flags

    try:
        flags = parse_flags(argv, {"aider-pid": INT})
        # Without --aider-pid (cmd.exe has no $PPID), the parent is cmd.exe or, on Windows, the
        # console-script launcher; it only matters where /proc exists to read Aider's command line.
        pid = flags.int_("aider-pid") or os.getppid()
        found = aider_process(pid)
        args, cwd = found if found is not None else ([], os.getcwd())
        launched = os.environ.get(HISTORY_ENV, "")
        if found is None and os.path.isabs(launched):
            history = launched
        else:
            history = history_from_args(args[1:], cwd, os.environ)
        root = git_root(cwd) or os.path.abspath(cwd)
        session = os.environ.get("ENTIRE_AIDER_SESSION", "")
        body = payload("turn-end", history, source="notification", session=session, aider_pid=pid)
        return deliver(root, history, "turn-end", body)
    except Exception as exc:  # a notification must never break Aider's turn with a traceback
        sys.stderr.write(f"entire-agent-aider notify: {exc}\n")
        return 1
