"""Our hooks in the project's ``.qwen/settings.json`` (JSON with comments): install, uninstall, inspect.

Shape: ``{"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type": "command", "command", "name",
"timeout"}]}]}}``. Only the events that bring Entire something are installed (Qwen 0.24 has 22, and
``MessageDisplay`` fires per streamed chunk). Qwen reads a hook ``timeout`` of 1000 or more as
milliseconds in every version (0.23.4 made smaller values seconds), so ours are in milliseconds, all
at least 1000. Qwen adds ``"$version"`` to the file when it loads it and writes it back: core's JSONC
editor gives back every other byte, and uninstall takes out exactly what install created. Trailing
commas make Qwen reset the whole file to ``{}``: the editor never writes one.
"""

from __future__ import annotations

from entire_core.jsonvalues import obj

from entire_agent_qwen_code import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from entire_core.hookfile import HookGroupsFile

NATIVE_EVENTS: dict[str, tuple[str, int]] = {
    "session-start": ("SessionStart", 30_000),
    "user-prompt-submit": ("UserPromptSubmit", 30_000),
    "stop": ("Stop", 120_000),
    "session-end": ("SessionEnd", 60_000),
    "pre-compact": ("PreCompact", 30_000),
    "subagent-start": ("SubagentStart", 30_000),
    "subagent-stop": ("SubagentStop", 60_000),
}
"""Our hook name -> (Qwen's event, timeout in milliseconds)."""


def name_prefix(agent_name: str) -> str:
    """The ``name`` of each entry we install starts with this (``entire-qwen-code-``)."""
    return f"entire-{agent_name}-"


def handler(agent_name: str, hook: str) -> dict[str, Any]:
    """The hook entry we install: a command that exits quietly (printing nothing, which Qwen would give
    the model as context) when ``entire`` is not installed."""
    from entire_core import hooks

    return {
        "type": "command",
        "command": hooks.posix_guarded(agent_name, hook),
        "name": name_prefix(agent_name) + hook,
        "timeout": NATIVE_EVENTS[hook][1],
    }


def is_ours(entry: object, agent_name: str) -> bool:
    """True for a hook entry we installed, by command or by name, never by position."""
    from entire_core import hooks

    name = obj(entry).get("name")
    return hooks.is_ours(obj(entry).get("command"), agent_name) or (
        isinstance(name, str) and name.startswith(name_prefix(agent_name))
    )


def _check(root: dict[str, Any], path: str) -> None:
    from entire_core.errors import ConfigError

    if "hooks" in root and obj(root["hooks"]) is not root["hooks"]:
        raise ConfigError(f"{path}: 'hooks' must be a JSON object")


def hooks_file(repo_root: str, agent_name: str, env: Mapping[str, str]) -> HookGroupsFile:
    """The project settings as core's hook-groups editor sees it."""
    from entire_core.hookfile import HookGroupsFile

    return HookGroupsFile(
        paths.config_file(repo_root),
        agent_name=agent_name,
        env=env,
        wanted=lambda: {
            event: {"hooks": [handler(agent_name, hook)]} for hook, (event, _) in NATIVE_EVENTS.items()
        },
        is_ours=lambda entry: is_ours(entry, agent_name),
        comments=True,
        check=_check,
        agent_keys=("$version",),
    )
