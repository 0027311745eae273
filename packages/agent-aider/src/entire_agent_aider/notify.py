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
    from entire_core import eventqueue, liveness

    scratch = Scratch(repo_root, agent_name)
    # The event each call takes is this process's to acknowledge (entire_core.eventqueue): it leaves the
    # queue only when `entire hooks` exited 0, the host having it; a call that failed, or that the host
    # killed, leaves it to be answered again.
    token = liveness.token()
    env = {**os.environ, eventqueue.DELIVERY_ENV: token}
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
                env=env,
                check=False,
            )
            eventqueue.settle(scratch, token, delivered=result.returncode == 0)
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


LAUNCHER_ENV = "ENTIRE_AIDER_SESSION"
"""Set by the launcher for the Aider it runs, and so for Aider's notification command."""
PLAIN_AIDER = "plain `aider` records nothing in Entire"
"""What ``notify`` tells a plain Aider's terminal at each notification."""


def notify(agent: Agent, flags: Flags) -> int:
    """The ``notify`` command that Aider's ``notifications-command`` runs (see ``hooks.NOTIFY_COMMAND``).

    Aider commits each edit before it rings, so a turn heard from the notification reaches Entire
    after the commit it belongs to: Entire then links no checkpoint to Aider's commit, or a later
    commit takes the turn's data. A wrong checkpoint is worse than none, so the notification delivers
    no event; ``entire-agent-aider run`` (the launcher) hooks into Aider itself and records every turn
    exactly. Under the launcher the command exits 0 quietly. Under a plain ``aider`` it says so, in the
    one way Aider shows a notification command's words (0.82 to 0.86, ``InputOutput.ring_bell``): Aider
    captures its output and prints its stderr, as "Failed to run notifications command: ...", only when
    it exits non-zero. So it fails, with one line naming the launcher.
    """
    del flags  # core parsed --aider-pid (a usage error exits 2); nothing is delivered
    if agent.env.get(LAUNCHER_ENV):
        return 0
    from entire_core.errors import AgentError

    raise AgentError(PLAIN_AIDER, "start Aider with `entire-agent-aider run -- <aider arguments>`")
