"""Codex's project hooks file (``.codex/hooks.json``): installing, removing and finding our handlers.

We install one handler per event, recognised later by its command (``entire hooks openai-codex <hook>``),
never by position. Codex rejects a hooks file with an unknown top-level key, user hooks included, so we
write nothing at the top level but ``hooks``. Codex skips hooks that the user has not trusted without a
word; ``doctor`` reports that and ``trust`` fixes it, never install.

``agent.py`` imports this module for ``HOOK_EVENTS`` on every call; everything heavy is imported
where it is used. What the payloads of these hooks mean is ``events.py``'s job.
"""

from __future__ import annotations

import os

from entire_core.jsonvalues import array as as_list
from entire_core.jsonvalues import obj as as_dict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.agent import Agent

HOOK_EVENTS = {
    "session-start": "SessionStart",
    "user-prompt-submit": "UserPromptSubmit",
    "stop": "Stop",
    "pre-compact": "PreCompact",
    "post-compact": "PostCompact",
    "session-end": "SessionEnd",
    "subagent-start": "SubagentStart",
    "subagent-stop": "SubagentStop",
}
"""Our hook names and the Codex events they are installed on, in install order."""

HOOKS_FILE = os.path.join(".codex", "hooks.json")
TOP_LEVEL_KEYS = frozenset(["hooks", "description"])
"""The only top-level keys Codex accepts in hooks.json; anything else disables the whole file."""
TIMEOUT_SECONDS = 30
SESSION_END_TIMEOUT_SECONDS = 3
"""Codex clamps SessionEnd handlers to 3 s and warns at every start-up when asked for more."""


# -- the hooks file ------------------------------------------------------------------------------------


def handler(agent_name: str, hook: str) -> dict[str, Any]:
    """Our handler for ``hook``: runs Entire's hook, and exits 0 quietly when ``entire`` is missing.

    Codex runs ``command`` with ``$SHELL -lc`` and, on Windows, ``commandWindows`` instead with
    ``%COMSPEC% /C`` (cmd.exe), so one file serves a repository shared across platforms.
    """
    from entire_core import hooks

    timeout = SESSION_END_TIMEOUT_SECONDS if hook == "session-end" else TIMEOUT_SECONDS
    return {
        "type": "command",
        "command": hooks.posix_guarded(agent_name, hook),
        "commandWindows": hooks.cmd_guarded(agent_name, hook),
        "timeout": timeout,
    }


def wanted_groups(agent_name: str) -> dict[str, Any]:
    """Our matcher group per Codex event (no matcher: every occurrence)."""
    return {event: {"hooks": [handler(agent_name, hook)]} for hook, event in HOOK_EVENTS.items()}


WINDOWS_KEYS = ("commandWindows", "command_windows")
"""Codex's key for the Windows command, and the alias it also accepts."""


def is_ours(item: object, agent_name: str) -> bool:
    """True for a handler object whose command (POSIX or Windows) runs one of our Entire hooks."""
    from entire_core import hooks

    handler = as_dict(item)
    return any(hooks.is_ours(handler.get(key), agent_name) for key in ("command", *WINDOWS_KEYS))


def check_shape(data: object, path: str) -> dict[str, Any]:
    """The ``hooks`` object of a parsed hooks file; ConfigError when Codex would reject the file."""
    from entire_core.errors import ConfigError

    root = as_dict(data)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level is not a JSON object, so Codex ignores this file")
    unknown = sorted(set(root) - TOP_LEVEL_KEYS)
    if unknown:
        raise ConfigError(
            f"{path}: Codex rejects this file, your own hooks included, because of the top-level key "
            f"{unknown[0]!r} (only 'hooks' and 'description' are allowed); remove it and run again"
        )
    raw = root.get("hooks", {})
    events = as_dict(raw)
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: 'hooks' is not an object, so Codex rejects this file")
    for event, groups in events.items():
        matcher_groups = as_list(groups)
        if not isinstance(groups, list) or not all(isinstance(g, dict) for g in matcher_groups):
            raise ConfigError(
                f"{path}: hooks.{event} is not a list of matcher groups, so Codex rejects this file"
            )
    return events


def install(agent: Agent, *, force: bool = False) -> int:
    """Install our handlers into the repository's hooks.json; return how many were added."""
    from entire_core import hooks, installs
    from entire_core.config.json import edit_json

    path = os.path.join(agent.repo_root, HOOKS_FILE)
    codex_dir = os.path.dirname(path)
    created_dir = not os.path.isdir(codex_dir)
    # What earlier installs created counts only while the file is still what they wrote: a file the
    # user wrote again by hand (after deleting ours) is the user's, whatever the old record says.
    earlier = installs.recall(agent.env, agent.name, path)
    with edit_json(path) as doc:
        data = doc.data
        check_shape(data, path)
        created_file, created_key = not doc.existed, "hooks" not in data
        events = data.setdefault("hooks", {})
        added = hooks.install_groups(
            events, wanted_groups(agent.name), lambda h: is_ours(h, agent.name), force=force
        )
    # Uninstall removes only what we added: it needs to know what was there before.
    created = {
        "created_file": created_file or earlier.get("created_file", False),
        "created_key": created_key or earlier.get("created_key", False),
        "created_dir": created_dir or earlier.get("created_dir", False),
    }
    if any(created.values()):
        installs.remember(agent.env, agent.name, path, **created)
    else:
        installs.forget(agent.env, agent.name, path)
    return added


def uninstall(agent: Agent) -> None:
    """Remove our handlers, and the file (and ``.codex/``) only when we created it and it is now empty."""
    from entire_core import hooks, installs
    from entire_core.config.json import edit_json

    path = os.path.join(agent.repo_root, HOOKS_FILE)
    if not os.path.isfile(path):
        installs.forget(agent.env, agent.name, path)
        return
    record = installs.recall(agent.env, agent.name, path)
    with edit_json(path, create=False) as doc:
        data = doc.data
        events = check_shape(data, path)
        hooks.remove_groups(events, lambda h: is_ours(h, agent.name))
        if not events and record.get("created_key") and "hooks" in data:
            del data["hooks"]
        if not data and record.get("created_file"):
            doc.delete()
    if record.get("created_dir") and not os.path.exists(path):
        import contextlib

        with contextlib.suppress(OSError):  # not empty: something else lives in .codex/
            os.rmdir(os.path.dirname(path))
    installs.forget(agent.env, agent.name, path)


def installed(agent: Agent) -> bool:
    """True if any of our handlers is in the repository's hooks.json (a broken file is an error)."""
    from entire_core import hooks
    from entire_core.config.json import parse_json_text
    from entire_core.errors import ConfigError

    path = os.path.join(agent.repo_root, HOOKS_FILE)
    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    except FileNotFoundError:
        return False
    try:
        data = parse_json_text(text, comments=False)
    except ConfigError as exc:
        raise ConfigError(f"cannot parse {path}: {exc}") from None
    events = as_dict(as_dict(data).get("hooks"))
    return bool(hooks.installed_groups(events, lambda h: is_ours(h, agent.name)))
