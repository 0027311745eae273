"""Finding ``entire-agent-*`` executables on PATH the way the newest Entire CLI does."""

from __future__ import annotations

import concurrent.futures
import glob
import os
import sys
from typing import Any

from entire_core.testing.cases import BUILTIN_NAMES

from entire_sim.plugin import CallFailed, Plugin

PREFIX = "entire-agent-"
_STRIPPED_SUFFIXES = (".exe", ".bat", ".cmd", ".com")


def derive_name(filename: str) -> str:
    """Registry name from a file name: Windows suffixes stripped, then the ``entire-agent-`` prefix."""
    base = filename
    if base.lower().endswith(_STRIPPED_SUFFIXES):
        base = base[:-4]
    return base[len(PREFIX) :] if base.startswith(PREFIX) else ""


class Discovery:
    """What a PATH scan found: usable plugins in PATH order, and everything it skipped or refused."""

    def __init__(self) -> None:
        self.plugins: list[Plugin] = []
        self.shadowed: list[str] = []  # built-in names: never executed
        self.failures: list[str] = []
        self.warnings: list[str] = []

    def to_json(self) -> dict[str, Any]:
        """A summary for reports."""
        return {
            "plugins": [
                {"name": p.name, "path": p.path, "type": p.info.get("type", "")} for p in self.plugins
            ],
            "shadowed": self.shadowed,
            "failures": self.failures,
            "warnings": self.warnings,
        }


def candidates(path_value: str) -> tuple[list[tuple[str, str]], list[str]]:
    """``(name, path)`` of every candidate in PATH order (first occurrence wins), and warnings."""
    seen: set[str] = set()
    found: list[tuple[str, str]] = []
    warnings: list[str] = []
    for entry in path_value.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue  # a git hook's cwd is attacker-influenced: relative entries are never scanned
        for path in sorted(glob.glob(os.path.join(glob.escape(entry), PREFIX + "*"))):
            name = derive_name(os.path.basename(path))
            if not name or name in seen:
                continue
            seen.add(name)
            found.append((name, path))
    return found, warnings


def discover(path_value: str, repo_root: str | None, env: dict[str, str]) -> Discovery:
    """Scan PATH, skip built-in names without running them, run ``info`` on the rest concurrently."""
    result = Discovery()
    found, result.warnings = candidates(path_value)
    runnable: list[Plugin] = []
    for name, path in found:
        if name in BUILTIN_NAMES:
            result.shadowed.append(name)
            result.warnings.append(
                f"{path}: {name!r} is a built-in agent; the plugin is ignored and never executed"
            )
            continue
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            continue  # vanished between glob and stat
        if os.path.isdir(path):
            result.failures.append(f"{path}: is a directory")
            continue
        if sys.platform != "win32" and not mode & 0o111:
            result.failures.append(f"{path}: not executable")
            continue
        runnable.append(Plugin(path, name, repo_root, env))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(runnable))) as pool:
        outcomes = list(pool.map(_probe, runnable))
    for plugin, error in zip(runnable, outcomes, strict=True):
        if error is None:
            result.plugins.append(plugin)
        else:
            result.failures.append(f"{plugin.path}: {error}")
    return result


def not_found(name: str, found: Discovery) -> str:
    """Why no plugin named ``name`` was found, and the names to use instead: one line for a person."""
    others = [p.name for p in found.plugins]
    like = [other for other in others if name in other or other in name]
    failed = [f for f in found.failures if os.path.basename(f.split(":", 1)[0]).startswith(PREFIX + name)]
    if name in BUILTIN_NAMES:
        what = f"{name!r} is one of the Entire CLI's built-in agents, so a plugin of that name is never run"
    elif failed:
        what = f"entire-agent-{name} is on PATH but not usable ({'; '.join(failed)})"
    else:
        what = f"no entire-agent-{name} on PATH"
    if like:
        return f"{what}: did you mean {' or '.join(f'--agent {o}' for o in like)}?"
    return f"{what}: plugins found: {', '.join(others) or 'none'} (put the plugin's directory on PATH)"


def _probe(plugin: Plugin) -> str | None:
    try:
        plugin.load_info()
    except CallFailed as exc:
        return str(exc)
    return None


def find(name: str, path_value: str, repo_root: str | None, env: dict[str, str]) -> Plugin:
    """The named lookup (``exec.LookPath("entire-agent-NAME")``) the CLI uses for ``--agent NAME``."""
    if "/" in name or "\\" in name:
        raise LookupError(f"invalid agent name {name!r}")
    if name in BUILTIN_NAMES:
        raise LookupError(f"{name!r} is a built-in agent name; a plugin with it is never executed")
    for candidate, path in candidates(path_value)[0]:
        if candidate == name and os.access(path, os.X_OK) and not os.path.isdir(path):
            plugin = Plugin(path, name, repo_root, env)
            plugin.load_info()
            return plugin
    raise LookupError(f"entire-agent-{name} not found on PATH")
