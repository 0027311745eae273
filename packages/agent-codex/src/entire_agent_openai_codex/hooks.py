"""Codex's project hooks file (``.codex/hooks.json``): installing, removing and finding our handlers.

We install one handler per event, recognised later by its command (``entire hooks openai-codex <hook>``),
never by position. Codex rejects a hooks file with an unknown top-level key, user hooks included, so we
write nothing at the top level but ``hooks``. Core's ``HookGroupsFile`` does the editing and keeps the
install records (uninstall takes out exactly what install created); this module gives it Codex's
groups, how our handlers are recognised and the shape Codex accepts. Codex skips hooks that the user
has not trusted without a word; ``doctor`` reports that and ``trust`` fixes it, never install.

Everything heavy is imported where it is used. What the payloads of these hooks mean is ``events.py``'s job.
"""

from __future__ import annotations

import os

from entire_core.jsonvalues import array as as_list
from entire_core.jsonvalues import obj as as_dict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.agent import Agent
    from entire_core.hookfile import HookGroupsFile

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
"""Our hook names and the Codex events we install them on, in install order."""

HOOKS_FILE = os.path.join(".codex", "hooks.json")
TOP_LEVEL_KEYS = frozenset(["hooks", "description"])
"""The only top-level keys Codex accepts in hooks.json; anything else disables the whole file."""
TIMEOUT_SECONDS = 30
TURN_END_TIMEOUT_SECONDS = 120
"""Stop: longer than the host's own 30 s kill of a hung plugin call (``defaultRunTimeout``), with room
for the rest of its turn end, as Gemini's AfterAgent and Qwen Code's Stop have. At 30 s, Codex's
timer, started with the hook, ended first: it killed the hook's process group, ``entire`` in the
middle of the turn's end, and the host never stored the turn (its next checkpoint then started over
from the transcript's first line: the ``host`` test's killed run)."""
SESSION_END_TIMEOUT_SECONDS = 3
"""Codex clamps SessionEnd handlers to 3 s and warns at every start-up when asked for more."""


# -- the hooks file ------------------------------------------------------------------------------------


def handler(agent_name: str, hook: str) -> dict[str, Any]:
    """Our handler for ``hook``: runs Entire's hook, and exits 0 quietly when ``entire`` is missing.

    Codex runs ``command`` with ``$SHELL -lc`` and, on Windows, ``commandWindows`` instead with
    ``%COMSPEC% /C`` (cmd.exe), so one file serves a repository shared across platforms.
    """
    from entire_core import hooks

    timeout = {"session-end": SESSION_END_TIMEOUT_SECONDS, "stop": TURN_END_TIMEOUT_SECONDS}.get(
        hook, TIMEOUT_SECONDS
    )
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


def _refuse_what_codex_rejects(root: dict[str, Any], path: str) -> None:
    check_shape(root, path)


def hooks_file(agent: Agent) -> HookGroupsFile:
    """The repository's hooks.json as core's ``HookGroupsFile``: our groups, our handlers, Codex's rules."""
    from entire_core.hookfile import HookGroupsFile

    return HookGroupsFile(
        os.path.join(agent.repo_root, HOOKS_FILE),
        agent_name=agent.name,
        env=agent.env,
        wanted=lambda: wanted_groups(agent.name),
        is_ours=lambda h: is_ours(h, agent.name),
        check=_refuse_what_codex_rejects,
        earlier_names={"created_key": "created:hooks"},  # 0.1.0's record: an old install uninstalls cleanly
    )


def install(agent: Agent, *, force: bool = False) -> int:
    """Install our handlers into the repository's hooks.json; return how many were added."""
    return hooks_file(agent).install(force=force)


def uninstall(agent: Agent) -> None:
    """Remove our handlers, and what our installs created (the ``hooks`` key, the file, ``.codex/``)."""
    hooks_file(agent).uninstall()


def installed(agent: Agent) -> bool:
    """True if any of our handlers is in the repository's hooks.json (a broken file is an error)."""
    return bool(hooks_file(agent).installed())
