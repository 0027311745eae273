"""Building our hook commands and finding our own entries in other tools' hook configs.

Our entries are recognised by the command they run (``entire hooks <agent> <hook>``), never by
position, so users may reorder or add hooks around them. Installing is remove-then-add and reports
how many hooks were added; uninstalling removes only ours and any container that only ours filled.
"""

from __future__ import annotations

from entire_core.errors import ConfigError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, MutableMapping
    from typing import Any

ENTIRE_BINARY = "entire"


def entire_argv(agent_name: str, hook: str) -> list[str]:
    """The command line of one hook: ``entire hooks <agent> <hook>``."""
    return [ENTIRE_BINARY, "hooks", agent_name, hook]


def marker(agent_name: str) -> str:
    """The text every command we install contains, and by which we find ours again."""
    return f"{ENTIRE_BINARY} hooks {agent_name} "


def is_ours(command: object, agent_name: str) -> bool:
    """True if ``command`` (a shell string) runs one of this agent's Entire hooks."""
    return isinstance(command, str) and marker(agent_name) in command + " "


def hook_of(command: str, agent_name: str) -> str | None:
    """The hook name an installed command of ours runs, or None if the command is not ours."""
    text = command + " "
    at = text.find(marker(agent_name))
    if at < 0:
        return None
    rest = text[at + len(marker(agent_name)) :].split()
    return rest[0].strip("'\";)}") if rest else None


def posix_guarded(agent_name: str, hook: str, *, stdin_from: str | None = None) -> str:
    """A ``sh`` command that runs the hook when ``entire`` is installed and exits 0 quietly when not.

    Agents run hook commands through ``sh -c``; a missing ``entire`` must not fail the user's turn.
    With ``stdin_from``, that shell command's output becomes the hook's stdin instead of the agent's.
    """
    import shlex

    run = " ".join(shlex.quote(part) for part in entire_argv(agent_name, hook))
    check = f"command -v {ENTIRE_BINARY} >/dev/null 2>&1 || exit 0"
    if stdin_from is not None:
        return f"{check}; {stdin_from} | {run}"
    return f"{check}; exec {run}"


def delivering_script(agent_name: str, hook: str) -> str:
    """A ``sh`` hook script that runs the hook as a deliverer of ours
    (``entire_core.eventqueue``), for an agent that runs hooks detached and ignores their output.

    It names itself to the call in ``DELIVERY_ENV`` (its ``liveness`` token: its pid and its start time
    from ``/proc``, ``0`` without one) and, once ``entire hooks`` exited, hands its exit status to the
    plugin's ``delivered`` command (``entire_core.agent.DELIVERED``): the event the call took leaves
    the queue only when the host has it. Quiet, exit 0, when ``entire`` or the plugin is missing.
    """
    import shlex

    from entire_core import program_name
    from entire_core.eventqueue import DELIVERY_ENV

    run = " ".join(shlex.quote(part) for part in entire_argv(agent_name, hook))
    plugin = shlex.quote(program_name(agent_name))
    return (
        f"#!/bin/sh\n# Entire records this session here ({plugin}); `entire disable` removes it.\n"
        f"command -v {ENTIRE_BINARY} >/dev/null 2>&1 || exit 0\n"
        "start=0\n"
        'if [ -r "/proc/$$/stat" ]; then read -r stat <"/proc/$$/stat" && set -- ${stat##*)} && start=${20:-0}; fi\n'
        f"{DELIVERY_ENV}=$$.$start {run}\n"
        "status=$?\n"
        f"command -v {plugin} >/dev/null 2>&1 || exit 0\n"
        f'exec {plugin} delivered --delivery "$$.$start" --status "$status" </dev/null >/dev/null 2>&1\n'
    )


def _plain_words(agent_name: str, hook: str) -> str:
    # cmd.exe and PowerShell each have their own quoting; our names never need any, so refuse
    # anything that would rather than quote it three different ways.
    words = entire_argv(agent_name, hook)
    for word in words:
        if not word or not all(c.isascii() and (c.isalnum() or c in "._-") for c in word):
            raise ValueError(f"{word!r} cannot go unquoted into a Windows hook command")
    return " ".join(words)


def cmd_guarded(agent_name: str, hook: str) -> str:
    """The ``cmd.exe /C`` form of ``posix_guarded``: runs the hook, exits 0 quietly without ``entire``.

    ``where /q`` looks ``entire`` up on PATH without printing; when it fails, ``exit 0`` ends the
    ``cmd /C`` process at once (``exit /b`` is meant for batch files). Otherwise cmd.exe's status is
    the hook's. No quotes, ``%`` or ``^``: callers wrap the string in quotes for ``cmd /C``.
    """
    return f"(where /q {ENTIRE_BINARY} || exit 0) && {_plain_words(agent_name, hook)}"


def powershell_guarded(agent_name: str, hook: str) -> str:
    """The PowerShell (5.1 and 7) form of ``posix_guarded``, for ``powershell -Command <string>``.

    PowerShell's own exit status after a native command is only 0 or 1, so the hook's status is
    passed on with ``exit $LASTEXITCODE``. Single words only: Windows PowerShell strips embedded
    double quotes from the arguments it passes on.
    """
    return (
        f"if (Get-Command {ENTIRE_BINARY} -ErrorAction SilentlyContinue) "
        f"{{ {_plain_words(agent_name, hook)} ; exit $LASTEXITCODE }} else {{ exit 0 }}"
    )


# -- the {"<Event>": [{"matcher": ..., "hooks": [handler, ...]}, ...]} shape Codex and Gemini share ------


def _handlers(group: object) -> list[Any]:
    if isinstance(group, dict):
        handlers = group.get("hooks")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(handlers, list):
            return handlers  # pyright: ignore[reportUnknownVariableType]
    return []


def installed_groups(events: Mapping[str, Any], ours: Callable[[Any], bool]) -> dict[str, list[Any]]:
    """Our handlers per event (events without ours are left out)."""
    found: dict[str, list[Any]] = {}
    for event, groups in events.items():
        if isinstance(groups, list):
            group_list: list[object] = groups  # pyright: ignore[reportUnknownVariableType]
            mine = [h for g in group_list for h in _handlers(g) if ours(h)]
            if mine:
                found[event] = mine
    return found


def remove_groups(events: MutableMapping[str, Any], ours: Callable[[Any], bool]) -> int:
    """Remove our handlers; drop groups and event keys that only our handlers filled. Returns the count."""
    removed = 0
    for event in list(events):
        groups = events[event]
        if not isinstance(groups, list):
            continue
        kept_groups: list[Any] = []
        removed_here = 0
        group_list: list[Any] = groups  # pyright: ignore[reportUnknownVariableType]
        for group in group_list:
            handlers = _handlers(group)
            kept = [h for h in handlers if not ours(h)]
            removed_here += len(handlers) - len(kept)
            if len(kept) == len(handlers):
                kept_groups.append(group)
            elif kept:
                group["hooks"] = kept
                kept_groups.append(group)
        if removed_here:
            removed += removed_here
            if kept_groups:
                events[event] = kept_groups
            else:
                del events[event]
    return removed


def install_groups(
    events: MutableMapping[str, Any],
    wanted: Mapping[str, Any],
    ours: Callable[[Any], bool],
    *,
    force: bool = False,
) -> int:
    """Make our groups exactly ``wanted`` (one group per event); return the number of handlers added.

    When every wanted group is already there, nothing changes and 0 is returned, unless ``force``.
    """
    current = installed_groups(events, ours)
    expected = {event: _handlers(group) for event, group in wanted.items()}
    if not force and current == expected:
        return 0
    import copy

    remove_groups(events, ours)
    added = 0
    for event, group in wanted.items():
        groups = events.setdefault(event, [])
        if not isinstance(groups, list):
            raise ConfigError(f"hooks.{event} is not a list of hook groups")
        groups.append(copy.deepcopy(group))  # pyright: ignore[reportUnknownMemberType]
        if force or current.get(event) != expected[event]:
            added += len(_handlers(group))
    return added
