"""Where Cline CLI keeps its files (``@cline/shared``'s storage paths, checked against 3.0.64 and 3.0.65).

- Cline's directory is ``$CLINE_DIR``, else ``~/.cline``; its data directory ``$CLINE_DATA_DIR``, else
  ``<cline dir>/data``; sessions ``$CLINE_SESSION_DATA_DIR``, else ``<data>/sessions``.
- A session is ``<sessions>/<id>/<id>.messages.json`` (one JSON document, rewritten whole) beside its
  manifest ``<id>.json``; a subagent's messages are ``agent_<agent id>.messages.json`` in the same folder.
- Hooks are files named after their event in every hook directory: ``~/Documents/Cline/Hooks``,
  ``<cline dir>/hooks``, ``<workspace>/.clinerules/hooks`` and ``<workspace>/.cline/hooks``; all run.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

HOOKS_DIR = os.path.join(".cline", "hooks")
"""The workspace's hook directory, relative to the repository root: where our hook files go."""


def hooks_dir(repo_root: str) -> str:
    """The hook directory Cline reads for a workspace at ``repo_root``."""
    return os.path.join(repo_root, HOOKS_DIR)


def _env(env: Mapping[str, str], name: str) -> str:
    return env.get(name, "").strip()


def cline_dir(env: Mapping[str, str], home: str) -> str:
    """Cline's own directory: ``$CLINE_DIR`` or ``~/.cline``."""
    return _env(env, "CLINE_DIR") or os.path.join(home, ".cline")


def data_dir(env: Mapping[str, str], home: str) -> str:
    """Cline's data directory: ``$CLINE_DATA_DIR`` or ``<cline dir>/data`` (settings, sessions, logs)."""
    return _env(env, "CLINE_DATA_DIR") or os.path.join(cline_dir(env, home), "data")


def sessions_dir(env: Mapping[str, str], home: str) -> str:
    """Where Cline keeps one folder per session."""
    return _env(env, "CLINE_SESSION_DATA_DIR") or os.path.join(data_dir(env, home), "sessions")


def messages_file(sessions: str, session_id: str) -> str:
    """The session's messages document (``session_id`` validated by the caller)."""
    return os.path.join(sessions, session_id, session_id + ".messages.json")


def manifest_file(sessions: str, session_id: str) -> str:
    """The session's manifest: first prompt, working directory, cumulative usage."""
    return os.path.join(sessions, session_id, session_id + ".json")


def subagent_files(messages: str) -> list[str]:
    """The subagents' messages documents beside a session's ``messages``, oldest name first."""
    folder = os.path.dirname(messages)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = [n for n in names if n.startswith("agent_") and n.endswith(".messages.json")]
    return [os.path.join(folder, n) for n in sorted(found)]
