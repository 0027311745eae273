"""Our hooks in the project's ``.gemini/settings.json`` (JSONC): install, uninstall, inspect.

Gemini 0.26+ wants nothing but arrays of ``{matcher?, hooks: [...]}`` groups under ``hooks`` (0.33+
rejects the whole file otherwise), so install also drops the stale ``hooks.enabled`` that older tools
wrote, and turns ``hooksConfig.enabled`` on (refusing when the user turned it off). Our handlers are recognised by their command
(``entire hooks google-gemini <hook>``) or their name (``entire-google-gemini-<hook>``), never by
position; the core JSONC editor keeps every other byte of the file, comments included.
"""

from __future__ import annotations

import contextlib
import os

from entire_core.jsonvalues import obj

from entire_agent_google_gemini import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

AGENT_NAME = "google-gemini"
NAME_PREFIX = "entire-google-gemini-"

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


def command(hook: str) -> str:
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
        return hooks.powershell_guarded(AGENT_NAME, hook)
    return hooks.posix_guarded(AGENT_NAME, hook)


def handler(hook: str) -> dict[str, Any]:
    """The hook entry we install for one of our hook names."""
    return {
        "name": NAME_PREFIX + hook,
        "type": "command",
        "command": command(hook),
        "timeout": EVENTS[hook][2],
    }


def wanted() -> dict[str, dict[str, Any]]:
    """One group per Gemini event holding our handler, with a matcher where one applies."""
    groups: dict[str, dict[str, Any]] = {}
    for hook, (event, matcher, _) in EVENTS.items():
        group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [handler(hook)]
        groups[event] = group
    return groups


def is_ours(entry: object) -> bool:
    """True for a hook entry we installed, by name or by command (guarded, bare as in 0.1.0, or PowerShell)."""
    from entire_core import hooks

    name = obj(entry).get("name")
    return hooks.is_ours(obj(entry).get("command"), AGENT_NAME) or (
        isinstance(name, str) and name.startswith(NAME_PREFIX)
    )


def _strip_stale(events: dict[str, Any]) -> None:
    """Drop keys under ``hooks`` that are not event arrays (``enabled`` from Gemini 0.24-era tools)."""
    for key in [k for k, v in events.items() if not isinstance(v, list)]:
        del events[key]


def install(project_root: str, env: Mapping[str, str], *, force: bool = False) -> int:
    """Install our hooks; return how many handlers were added (0 when all were in place).

    What the install created (the file, ``.gemini/``, ``hooks``, ``hooksConfig``, its ``enabled``)
    is kept in core's install records, so that uninstall removes exactly that and nothing of the
    user's. A user's ``"hooksConfig": {"enabled": false}`` is refused, not flipped: it is the user's
    explicit switch, and turning it on would also run the user's own hooks that they turned off, while
    restoring it at uninstall would leave them running until then. The user decides, in one edit.
    """
    from entire_core import hooks, installs
    from entire_core.config.json import edit_json
    from entire_core.errors import ConfigError

    path = paths.project_settings(project_root)
    created_dir = not os.path.isdir(os.path.dirname(path))
    earlier = installs.recall(env, AGENT_NAME, path)  # only while the file is still what we wrote
    with edit_json(path, comments=True) as doc:
        root = obj(doc.data)
        if root is not doc.data:
            raise ConfigError(f"{doc.path}: the settings, 'hooks' and 'hooksConfig' must be JSON objects")
        created_hooks, created_config = "hooks" not in root, "hooksConfig" not in root
        events = obj(root.setdefault("hooks", {}))
        config = obj(root.setdefault("hooksConfig", {}))
        if events is not root["hooks"] or config is not root["hooksConfig"]:
            raise ConfigError(f"{doc.path}: the settings, 'hooks' and 'hooksConfig' must be JSON objects")
        if config.get("enabled") is False:
            raise ConfigError(
                f"{doc.path}: hooksConfig.enabled is false, so Gemini runs no hooks; set it to true "
                "(your own hooks will run too) and run again"
            )
        created_enabled = "enabled" not in config
        _strip_stale(events)
        added = hooks.install_groups(events, wanted(), is_ours, force=force)
        config["enabled"] = True
        created_file = not doc.existed
    created = {
        "created_file": created_file or earlier.get("created_file", False),
        "created_dir": created_dir or earlier.get("created_dir", False),
        "created_hooks": created_hooks or earlier.get("created_hooks", False),
        "created_hooksConfig": created_config or earlier.get("created_hooksConfig", False),
        "created_enabled": created_enabled or earlier.get("created_enabled", False),
    }
    if any(created.values()):
        installs.remember(env, AGENT_NAME, path, **created)
    else:
        installs.forget(env, AGENT_NAME, path)
    return added


def uninstall(project_root: str, env: Mapping[str, str]) -> None:
    """Remove our hooks, and exactly what our install created besides (from its record).

    Without a record that still holds (none, or the file changed since we wrote it), only our own
    handlers go: the rest of the file is the user's.
    """
    from entire_core import hooks, installs
    from entire_core.config.json import edit_json

    path = paths.project_settings(project_root)
    if not os.path.exists(path):
        installs.forget(env, AGENT_NAME, path)
        return
    record = installs.recall(env, AGENT_NAME, path)
    with edit_json(path, comments=True, create=False) as doc:
        root = obj(doc.data)
        events = obj(root.get("hooks"))
        if "hooks" in root and events is root["hooks"]:
            _strip_stale(events)
            hooks.remove_groups(events, is_ours)
            if not events and record.get("created_hooks"):
                del root["hooks"]
        config = obj(root.get("hooksConfig"))
        if "hooksConfig" in root and config is root["hooksConfig"]:
            if record.get("created_enabled") and config.get("enabled") is True:
                del config["enabled"]
            if not config and record.get("created_hooksConfig"):
                del root["hooksConfig"]
        if not root and record.get("created_file"):
            doc.delete()
    if record.get("created_dir") and not os.path.exists(path):
        with contextlib.suppress(OSError):  # rmdir only removes .gemini/ when nothing else is in it
            os.rmdir(os.path.dirname(path))
    installs.forget(env, AGENT_NAME, path)


def read_settings(path: str) -> dict[str, Any] | None:
    """A settings file parsed as JSONC; None when missing. ConfigError when it does not parse."""
    from entire_core.config.json import parse_json_text
    from entire_core.errors import ConfigError

    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    if not text.strip():
        return {}
    try:
        value = parse_json_text(text, comments=True)
    except ConfigError as exc:
        raise ConfigError(f"cannot parse {path}: {exc}") from None
    settings = obj(value)
    if settings is not value:
        raise ConfigError(f"{path}: the settings are not a JSON object")
    return settings


def installed(project_root: str) -> dict[str, list[dict[str, Any]]]:
    """Our handlers per Gemini event in the project settings (events without ours left out)."""
    from entire_core import hooks

    root = read_settings(paths.project_settings(project_root)) or {}
    return hooks.installed_groups(obj(root.get("hooks")), is_ours)
