"""Our hooks in the project's ``.gemini/settings.json`` (JSONC): install, uninstall, inspect.

Gemini 0.26+ wants nothing but arrays of ``{matcher?, hooks: [...]}`` groups under ``hooks`` (0.33+
rejects the whole file otherwise), so install also drops the stale ``hooks.enabled`` that older tools
wrote, and turns ``hooksConfig.enabled`` on (refusing when the user turned it off). Our handlers are recognised by their command
(``entire hooks google-gemini <hook>``) or their name (``entire-google-gemini-<hook>``), never by
position; the core JSONC editor keeps every other byte of the file, comments included.
"""

from __future__ import annotations

from entire_core.jsonvalues import obj

from entire_agent_google_gemini import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.agent import Agent
    from entire_core.hookfile import HookGroupsFile

EVENTS: dict[str, tuple[str, str | None, int]] = {
    "session-start": ("SessionStart", None, 30_000),
    "before-agent": ("BeforeAgent", None, 30_000),
    "after-agent": ("AfterAgent", None, 120_000),
    "pre-compress": ("PreCompress", None, 30_000),
    "session-end": ("SessionEnd", None, 60_000),
    "before-tool": ("BeforeTool", "^invoke_agent$", 30_000),
    "after-tool": ("AfterTool", "^invoke_agent$", 60_000),
}
"""Our hook name -> (Gemini event, matcher, timeout in milliseconds, as Gemini measures it)."""

ENABLED = ("hooksConfig", "enabled")
"""Gemini's switch for every project hook, the user's included."""
REFUSE_DISABLED = (
    "hooksConfig.enabled is false, so Gemini runs no hooks; set it to true "
    "(your own hooks will run too) and run again"
)


EARLIER_RECORD_NAMES = {
    "created_hooks": "created:hooks",
    "created_hooksConfig": "created:hooksConfig",
    "created_enabled": "created:hooksConfig.enabled",
}
"""What 0.1.0's install records called what install created, and core's names for it."""


def name_prefix(agent_name: str) -> str:
    """The ``name`` of each entry we install starts with this (``entire-google-gemini-``)."""
    return f"entire-{agent_name}-"


def command(agent_name: str, hook: str) -> str:
    """The command we install for ``hook`` on this platform: it exits 0 quietly without ``entire``.

    Gemini has one ``command`` per hook and runs it through its shell configuration: ``bash -c``
    on Linux and macOS, PowerShell on Windows (``-NoProfile -NonInteractive -Command``; pwsh.exe when
    it is on PATH). Guarded as Codex's and Aider's are, so a missing ``entire`` never shows a failed
    hook on every event. The bare ``entire hooks google-gemini <hook>`` of earlier versions is still
    ours (``is_ours``), and install replaces it.
    """
    import sys

    from entire_core import hooks

    if sys.platform == "win32":
        return hooks.powershell_guarded(agent_name, hook)
    return hooks.posix_guarded(agent_name, hook)


def handler(agent_name: str, hook: str) -> dict[str, Any]:
    """The hook entry we install for one of our hook names."""
    return {
        "name": name_prefix(agent_name) + hook,
        "type": "command",
        "command": command(agent_name, hook),
        "timeout": EVENTS[hook][2],
    }


def wanted(agent_name: str) -> dict[str, dict[str, Any]]:
    """One group per Gemini event holding our handler, with a matcher where one applies."""
    groups: dict[str, dict[str, Any]] = {}
    for hook, (event, matcher, _) in EVENTS.items():
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [handler(agent_name, hook)]
        groups[event] = group
    return groups


def is_ours(entry: object, agent_name: str) -> bool:
    """True for a hook entry we installed, by name or by command (guarded, bare as in 0.1.0, or PowerShell)."""
    from entire_core import hooks

    name = obj(entry).get("name")
    return hooks.is_ours(obj(entry).get("command"), agent_name) or (
        isinstance(name, str) and name.startswith(name_prefix(agent_name))
    )


def _check(root: dict[str, Any], path: str) -> None:
    """Refuse what Gemini rejects; drop the stale ``hooks.enabled`` (not an event array) older tools wrote."""
    from entire_core.errors import ConfigError

    for key in ("hooks", "hooksConfig"):
        if key in root and obj(root[key]) is not root[key]:
            raise ConfigError(f"{path}: the settings, 'hooks' and 'hooksConfig' must be JSON objects")
    events = obj(root.get("hooks"))
    for key in [k for k, v in events.items() if not isinstance(v, list)]:
        del events[key]


def settings_file(agent: Agent) -> HookGroupsFile:
    """The project's ``.gemini/settings.json`` as core's hook-groups editor sees it.

    What install created (the file, ``.gemini/``, ``hooks``, ``hooksConfig``, its ``enabled``) is kept
    in core's install records, so that uninstall removes exactly that and nothing of the user's. A
    user's ``"hooksConfig": {"enabled": false}`` is refused, not flipped: it is the user's explicit
    switch, and turning it on would also run the user's own hooks that they turned off.
    """
    from entire_core.hookfile import HookGroupsFile, Switch

    return HookGroupsFile(
        paths.project_settings(agent.repo_root),
        agent_name=agent.name,
        env=agent.env,
        wanted=lambda: wanted(agent.name),
        is_ours=lambda entry: is_ours(entry, agent.name),
        comments=True,
        switches=(Switch(ENABLED, True, REFUSE_DISABLED),),
        check=_check,
        earlier_names=EARLIER_RECORD_NAMES,
    )


def installed(agent: Agent) -> dict[str, list[dict[str, Any]]]:
    """Our handlers per Gemini event in the project settings (events without ours left out)."""
    return settings_file(agent).installed()
