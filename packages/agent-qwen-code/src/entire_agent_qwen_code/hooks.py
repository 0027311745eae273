"""Our hooks in Qwen Code's project config (``paths.CONFIG_FILE``): what we install, how we know ours.

AGENT AUTHOR: describe the native config here. This stub assumes the common shape
``{"hooks": {<NativeEvent>: [{"hooks": [{"type": "command", "command": ...}]}]}}``; core's
``HookGroupsFile`` then installs, uninstalls exactly (install records) and inspects it. Change
``NATIVE_EVENTS`` to the agent's event names, ``handler`` to the entry shape it expects, and pass
``switches``/``check`` to ``HookGroupsFile`` if the agent needs a setting turned on or rejects some files.
"""

from __future__ import annotations

from entire_core.jsonvalues import obj

from entire_agent_qwen_code import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from entire_core.hookfile import HookGroupsFile

NATIVE_EVENTS = {
    "session-start": "SessionStart",
    "user-prompt-submit": "UserPromptSubmit",
    "stop": "Stop",
    "session-end": "SessionEnd",
}
"""Our hook name (``entire hooks <agent> <hook>``) -> the agent's own event name in its config."""


def handler(agent_name: str, hook: str) -> dict[str, Any]:
    """The hook entry we install: a command that exits quietly when ``entire`` is not installed."""
    from entire_core import hooks

    return {"type": "command", "command": hooks.posix_guarded(agent_name, hook)}


def is_ours(entry: object, agent_name: str) -> bool:
    """True for a hook entry we installed (by its command, never by its position)."""
    from entire_core import hooks

    return hooks.is_ours(obj(entry).get("command"), agent_name)


def hooks_file(repo_root: str, agent_name: str, env: Mapping[str, str]) -> HookGroupsFile:
    """The project config as core's hook-groups editor sees it."""
    from entire_core.hookfile import HookGroupsFile

    return HookGroupsFile(
        paths.config_file(repo_root),
        agent_name=agent_name,
        env=env,
        wanted=lambda: {
            event: {"hooks": [handler(agent_name, hook)]} for hook, event in NATIVE_EVENTS.items()
        },
        is_ours=lambda entry: is_ours(entry, agent_name),
        comments=True,
    )
