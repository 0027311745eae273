"""Where the plugin keeps what it learned about a chat-history file between hook calls.

Every hook is a new process, so the lifecycle state (how far the history file was read, the current
session, the events not delivered yet) lives in a JSON file next to the restored sessions in
``<repo>/.entire/tmp/entire-agent-aider/``. ``entire_core.locks.exclusive`` on ``<state>.lock``
serialises the callers (the notification command, the launcher's tail and exit calls).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HISTORY_FILE = ".aider.chat.history.md"
STATE_VERSION = 1


def state_dir(repo_root: str) -> str:
    """The plugin's directory in Entire's git-ignored scratch area of the repository."""
    from entire_core import sessions

    return sessions.default_session_dir(repo_root, "aider")


def history_key(history: str) -> str:
    """A short stable name for a history file (its absolute, resolved path; case-folded on Windows)."""
    import hashlib

    # normcase: the notification and the launcher may spell one file C:\Repo or c:\repo on Windows.
    key = os.path.normcase(os.path.realpath(history))
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def state_path(repo_root: str, history: str) -> str:
    """The state file of one history file."""
    return os.path.join(state_dir(repo_root), f"state-{history_key(history)}.json")


def session_ref(repo_root: str, session_id: str) -> str:
    """Where ``write-session`` restores a session as a history file of its own (``format_resume_command``).

    The CLI's transcript of a session is its view (``entire_agent_aider.view``), outside the repository.
    """
    from entire_core import validate

    return os.path.join(state_dir(repo_root), validate.session_id(session_id) + ".md")


def load(path: str) -> dict[str, Any]:
    """The state at ``path``; a missing or unreadable file is a fresh state."""
    import json

    from entire_core import jsonvalues

    try:
        with open(path, "rb") as f:
            value = jsonvalues.obj(json.loads(f.read()))
    except (OSError, ValueError):
        return {"v": STATE_VERSION}
    return value if value.get("v") == STATE_VERSION else {"v": STATE_VERSION}


def save(path: str, state: dict[str, Any]) -> None:
    """Write the state atomically."""
    import json

    from entire_core import fsutil

    fsutil.atomic_write(path, json.dumps(state, separators=(",", ":")).encode("utf-8"))
