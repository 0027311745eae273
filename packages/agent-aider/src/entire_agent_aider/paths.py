"""Where Aider keeps its chat history: the default file in the git root, or what its command line names.

The repository's Aider config file, where our hook lives, is ``entire_agent_aider.hooks``'s business;
the plugin's own state between processes is core's scratch area (``entire_agent_aider.state``).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

HISTORY_FILE = ".aider.chat.history.md"
"""The chat history Aider writes in the git root unless told otherwise."""


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


def default_history(repo_root: str) -> str:
    """The chat-history file of a repository when nothing names another."""
    return os.path.join(repo_root, HISTORY_FILE)


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
        return default_history(git_root(cwd) or os.path.abspath(cwd))
    return os.path.abspath(os.path.join(cwd, os.path.expanduser(value)))
