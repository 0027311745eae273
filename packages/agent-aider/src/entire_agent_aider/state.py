"""What the plugin learned about one chat-history file between hook calls, kept in core's scratch area.

Every hook is a new process, so the lifecycle state (how far the history file was read, the current
session, the events not delivered yet) is a JSON file of ``entire_core.scratch.Scratch``, keyed by
the history file. ``entire_core.locks.exclusive`` on ``<state>.lock`` serialises the callers (the
notification command, the launcher's tail and exit calls). Restored sessions live beside it.
"""

from __future__ import annotations

from entire_core.scratch import Scratch, path_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KIND = "state"
STATE_VERSION = 1


def history_key(history: str) -> str:
    """A short stable name for a history file (``scratch.path_key``, hashed), for names outside scratch."""
    from entire_core._digest import sha256_hex

    return sha256_hex(path_key(history).encode("utf-8", "surrogateescape"))[:16]


def state_path(scratch: Scratch, history: str) -> str:
    """The state file of one history file."""
    return scratch.file(KIND, path_key(history))


def session_ref(scratch: Scratch, session_id: str) -> str:
    """Where ``write-session`` restores a session as a history file of its own (``format_resume_command``).

    The CLI's transcript of a session is its view (``entire_agent_aider.view``), outside the repository.
    """
    from entire_core import validate

    return scratch.path(validate.session_id(session_id) + ".md")


def load(scratch: Scratch, history: str) -> dict[str, Any]:
    """The state of ``history``; a missing, unreadable or older-format file is a fresh state."""
    # 0.1.0 named the file by a shorter hash: a plugin upgraded while Aider runs goes on from it.
    value = scratch.load(KIND, path_key(history), earlier=f"state-{history_key(history)}.json")
    return value if value.get("v") == STATE_VERSION else {"v": STATE_VERSION}


def save(scratch: Scratch, history: str, state: dict[str, Any], *, sync_directory: bool = True) -> None:
    """Write the state of ``history`` atomically and durably: losing it would deliver events again.

    ``sync_directory=False`` is for the removal of an answered event (``entire_core.eventqueue``), made
    after the answer, while the host waits for the process to end: a power loss may then bring the event
    back, to be answered again, and the directory's fsync (milliseconds) is not paid in that window.
    """
    if sync_directory:
        scratch.save(KIND, path_key(history), state, durable=True)
        return
    from entire_core import _json, fsutil

    fsutil.atomic_write(state_path(scratch, history), _json.dumps_state(state).encode("utf-8"), durable=False)
