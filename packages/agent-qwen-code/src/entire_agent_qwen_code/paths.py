"""Where Qwen Code keeps its files: the project settings our hooks go into, and its chat recordings.

Chats live in ``<runtime>/projects/<sanitized cwd>/chats/<session-id>.jsonl``, where ``<runtime>`` is
``QWEN_RUNTIME_DIR``, else ``QWEN_HOME``, else ``~/.qwen``, and sanitizing turns every character outside
``[a-zA-Z0-9]`` into ``-``. A session's subagents record into ``<project>/subagents/<session-id>/``
(``agent-<agent-id>.jsonl``, with ``agent-<agent-id>.meta.json`` naming the parent's ``toolUseId``).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

CONFIG_FILE = os.path.join(".qwen", "settings.json")
"""The project's settings file, relative to the repository root, that holds Qwen Code's hooks."""


def config_file(repo_root: str) -> str:
    """The project config file of the repository at ``repo_root``."""
    return os.path.join(repo_root, CONFIG_FILE)


def runtime_dir(env: Mapping[str, str], home: str) -> str:
    """Qwen's runtime directory (``QWEN_RUNTIME_DIR``, ``QWEN_HOME``, else ``~/.qwen``)."""
    return env.get("QWEN_RUNTIME_DIR") or env.get("QWEN_HOME") or os.path.join(home, ".qwen")


def chats_dir(env: Mapping[str, str], home: str, repo_root: str) -> str:
    """Where Qwen records the chats of sessions started in ``repo_root`` (``qwen --resume`` looks there)."""
    import sys

    cwd = os.path.abspath(repo_root)
    cwd = cwd.lower() if sys.platform == "win32" else cwd
    project = "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)
    return os.path.join(runtime_dir(env, home), "projects", project, "chats")


def subagents_dir(chat: str) -> str:
    """The subagents folder of the session whose chat file is ``chat``."""
    project = os.path.dirname(os.path.dirname(chat))
    return os.path.join(project, "subagents", os.path.splitext(os.path.basename(chat))[0])


def subagent_files(folder: str, call_ids: list[str]) -> list[str]:
    """The recordings in ``folder`` of the subagents started by the calls ``call_ids``, in call order."""
    from entire_core import _json  # not json: this runs at every turn's end, and json pulls in re
    from entire_core.jsonvalues import obj, text

    wanted = {c: i for i, c in enumerate(call_ids)}
    found: list[tuple[int, str]] = []
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    for name in names:
        if not name.endswith(".meta.json"):
            continue
        try:
            with open(os.path.join(folder, name), "rb") as f:
                meta = _json.loads(f.read())
        except (OSError, ValueError, RecursionError):
            continue
        call = text(obj(meta).get("toolUseId"))
        if call in wanted:
            found.append((wanted[call], os.path.join(folder, name[: -len(".meta.json")] + ".jsonl")))
    return [path for _, path in sorted(found)]
