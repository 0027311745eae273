"""Codex's hook trust: which of our hooks it will run, and writing the trust entries when asked.

Codex runs a project hook only when (1) the project is trusted (``[projects."<root>"] trust_level =
"trusted"`` in the user's config.toml; otherwise the whole ``.codex/`` folder is ignored) and (2) the
hook itself is trusted: ``[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]`` holds
``trusted_hash``, the sha256 of the hook's normalized identity, and the hook is not ``enabled = false``.
A hook whose command or timeout changed since it was trusted is "modified" and skipped again. All of
this is silent in ``codex exec``, hence ``doctor``. The ``trust`` command writes the entries, and only
when asked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from entire_core.jsonvalues import array as as_list
from entire_core.jsonvalues import obj as as_dict
from entire_core.jsonvalues import text as as_str

from entire_agent_openai_codex import hooks

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags

DEFAULT_TIMEOUT_SECONDS = 600
"""The timeout Codex gives a handler that names none; it is part of the hashed identity."""


def snake(event: str) -> str:
    """Codex's label of an event in trust keys and hashes: ``SessionStart`` -> ``session_start``."""
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(event))


def handler_hash(event: str, matcher: object, handler: Mapping[str, Any]) -> str:
    """``sha256:<hex>`` of a command handler's normalized identity, as Codex computes it.

    The identity is the event label, the matcher when there is one, and the handler with its
    effective command (``effective_command``), its effective timeout (at least 1 s, 600 when absent)
    and ``async`` flag, serialized as compact JSON with sorted keys.
    """
    import hashlib
    import json

    timeout = handler.get("timeout", handler.get("timeoutSec"))
    normalized: dict[str, Any] = {
        "type": "command",
        "command": effective_command(handler),
        "timeout": max(1, int(timeout))
        if isinstance(timeout, int) and not isinstance(timeout, bool)
        else DEFAULT_TIMEOUT_SECONDS,
        "async": bool(handler.get("async", False)),
    }
    if handler.get("statusMessage") is not None:
        normalized["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": snake(event), "hooks": [normalized]}
    if matcher is not None:
        identity["matcher"] = matcher
    blob = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()


def effective_command(handler: Mapping[str, Any]) -> object:
    """The command Codex runs, and hashes, for ``handler`` on this platform.

    On Windows that is ``commandWindows`` (or its alias ``command_windows``) when present, else
    ``command``; the Windows command itself is never part of the hashed identity.
    """
    import sys

    if sys.platform == "win32":
        for key in hooks.WINDOWS_KEYS:
            if handler.get(key) is not None:
                return handler[key]
    return handler.get("command")


def trust_key(hooks_path: str, event: str, group: int, index: int) -> str:
    """The positional key Codex stores a hook's state under."""
    return f"{hooks_path}:{snake(event)}:{group}:{index}"


def key_path(hooks_path: str) -> str:
    """The hooks file's path as Codex names it in keys: absolute, symlinks resolved (it starts from getcwd)."""
    return os.path.realpath(hooks_path)


@dataclass(frozen=True)
class HookTrust:
    """One of our handlers and what Codex will do with it."""

    hook: str
    event: str
    key: str
    current_hash: str
    trusted_hash: str | None
    enabled: bool

    @property
    def status(self) -> str:
        """``trusted``, ``untrusted``, ``modified`` (trusted before, changed since) or ``disabled``."""
        if not self.enabled:
            return "disabled"
        if self.trusted_hash is None:
            return "untrusted"
        return "trusted" if self.trusted_hash == self.current_hash else "modified"


def our_handlers(
    events: Mapping[str, Any], agent_name: str
) -> list[tuple[str, str, int, int, dict[str, Any]]]:
    """``(hook, event, group index, handler index, handler)`` of each of our handlers, in file order."""
    from entire_core.hooks import hook_of

    found: list[tuple[str, str, int, int, dict[str, Any]]] = []
    for event, groups in events.items():
        for gi, group in enumerate(as_list(groups)):
            for hi, handler in enumerate(as_list(as_dict(group).get("hooks"))):
                if hooks.is_ours(handler, agent_name):
                    h = as_dict(handler)
                    names = (hook_of(as_str(h.get(k)), agent_name) for k in ("command", *hooks.WINDOWS_KEYS))
                    found.append((next((n for n in names if n), ""), event, gi, hi, h))
    return found


def _matcher(events: Mapping[str, Any], event: str, group: int) -> object:
    return events[event][group].get("matcher")


def hook_states(config: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The ``[hooks.state]`` table of a parsed config.toml."""
    state = as_dict(as_dict(config.get("hooks")).get("state"))
    return {k.strip(): as_dict(v) for k, v in state.items() if as_dict(v)}


def assess(
    hooks_path: str, events: Mapping[str, Any], config: Mapping[str, Any], agent_name: str
) -> list[HookTrust]:
    """The trust status of each of our handlers in ``events`` given the user's parsed config.toml."""
    states = hook_states(config)
    paths = dict.fromkeys((key_path(hooks_path), os.path.abspath(hooks_path)))
    result: list[HookTrust] = []
    for hook, event, gi, hi, handler in our_handlers(events, agent_name):
        keys = [trust_key(path, event, gi, hi) for path in paths]
        state = next((states[k] for k in keys if k in states), as_dict(None))
        trusted = as_str(state.get("trusted_hash")) or None
        current = handler_hash(event, _matcher(events, event, gi), handler)
        result.append(
            HookTrust(
                hook,
                event,
                keys[0],
                current,
                trusted,
                state.get("enabled") is not False,
            )
        )
    return result


def project_trust(config: Mapping[str, Any], repo_root: str) -> str | None:
    """The ``trust_level`` the user's config gives this repository ("trusted", "untrusted" or None)."""
    projects = as_dict(config.get("projects"))
    for root in dict.fromkeys((os.path.realpath(repo_root), os.path.abspath(repo_root))):
        level = as_str(as_dict(projects.get(root)).get("trust_level"))
        if level:
            return level
    return None


@dataclass(frozen=True)
class TrustWritten:
    """What ``write_trust`` did to the user's config.toml, so that the command can name every change."""

    keys: list[str]
    """The ``[hooks.state]`` keys of our handlers, all trusted now."""
    changed: list[str]
    """Those of ``keys`` whose entry was added or updated (the rest already held the hash)."""
    stale: list[str]
    """Entries of our handlers' earlier positions, removed."""
    project: str
    """The ``[projects."..."]`` key whose ``trust_level`` was set to ``"trusted"``, or ``""``."""


def write_trust(
    config_path: str, hooks_path: str, events: Mapping[str, Any], agent_name: str, *, project_root: str = ""
) -> TrustWritten:
    """Trust our handlers (and, with ``project_root``, the project) in the user's config.toml.

    Only our ``[hooks.state."..."]`` tables are added or updated; a user's ``enabled = false`` is kept;
    entries left behind by our handlers' earlier positions in this file are removed. Returns what
    changed. The file's comments and layout are kept (tomlkit).
    """
    import tomlkit
    from entire_core.config.toml import edit_toml

    ours = our_handlers(events, agent_name)
    path = key_path(hooks_path)
    wanted = {
        trust_key(path, e, gi, hi): handler_hash(e, _matcher(events, e, gi), h) for _, e, gi, hi, h in ours
    }
    changed: list[str] = []
    stale: list[str] = []
    project = ""
    with edit_toml(config_path) as doc:
        if project_root:
            projects = _table(doc.data, "projects", header=False)
            entry = _table(projects, os.path.realpath(project_root))
            if entry.get("trust_level") != "trusted":
                project = os.path.realpath(project_root)
                fresh = "trust_level" not in entry and not entry
                entry["trust_level"] = "trusted"
                # The comment lines that ended the table before ours label the table after it.
                if fresh and not _adopt_trailing_comments(projects, os.path.realpath(project_root)):
                    entry.add(tomlkit.nl())  # a blank line before whatever table follows it
        state = _table(_table(doc.data, "hooks", header=False), "state", header=False)
        for key in [k for k in state if k.startswith(path + ":") and k not in wanted]:
            old = as_dict(state[key])
            # Only an entry that trusted one of our handlers at a position it no longer holds, and
            # says nothing else: a user's entry (or their enabled = false) stays.
            if old.get("trusted_hash") in wanted.values() and set(old) == {"trusted_hash"}:
                del state[key]
                stale.append(key)
        for key, digest in wanted.items():
            entry = _table(state, key)
            if entry.get("trusted_hash") != digest:
                fresh = not entry
                entry["trusted_hash"] = digest
                changed.append(key)
                if fresh:
                    _adopt_trailing_comments(state, key)
    return TrustWritten(list(wanted), changed, stale, project)


def our_hashes(events: Mapping[str, Any], agent_name: str) -> set[str]:
    """The trust hashes of our handlers: those in ``events`` and those ``install-hooks`` writes."""
    found = {
        handler_hash(e, _matcher(events, e, gi), h) for _, e, gi, _, h in our_handlers(events, agent_name)
    }
    found |= {
        handler_hash(event, None, hooks.handler(agent_name, hook))
        for hook, event in hooks.HOOK_EVENTS.items()
    }
    return found


def remove_trust(config_path: str, hooks_path: str, events: Mapping[str, Any], agent_name: str) -> list[str]:
    """Remove the ``[hooks.state]`` entries of our handlers for this hooks file; return their keys.

    An entry is ours when it is keyed under this hooks file and holds the hash of one of our handlers
    (installed now, or as ``install-hooks`` writes them, so it works after ``uninstall-hooks`` too).
    Tables left empty are removed; project trust (``[projects]``) is never touched. A missing
    config.toml is left missing.
    """
    from entire_core.config.toml import edit_toml

    if not os.path.exists(config_path):
        return []
    prefixes = tuple(dict.fromkeys(p + ":" for p in (key_path(hooks_path), os.path.abspath(hooks_path))))
    hashes = our_hashes(events, agent_name)
    removed: list[str] = []
    with edit_toml(config_path, create=False) as doc:
        data: Any = doc.data
        hooks_table: Any = data.get("hooks")
        state: Any = hooks_table.get("state") if hooks_table is not None else None
        if hooks_table is None or state is None:
            return []
        for key in list(state):
            if key.startswith(prefixes) and as_dict(state[key]).get("trusted_hash") in hashes:
                del state[key]
                removed.append(key)
        if removed and not state:
            del hooks_table["state"]
        if removed and not hooks_table:
            del doc.data["hooks"]
    return removed


def _quoted(key: str) -> str:
    """A TOML key as config.toml spells it (a basic string: quotes and backslashes escaped)."""
    return '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _adopt_trailing_comments(container: Any, name: str) -> bool:
    """Move the comment lines ending the table before ``container[name]`` to the end of that new table.

    tomlkit keeps a comment above a table header in the body of the table before it, so a table added
    after that one lands between the comment and the table the comment describes. Returns whether a
    comment was moved.
    """
    from tomlkit.items import Comment, Table, Whitespace

    body = container.value.body
    index = next(i for i, (key, _) in enumerate(body) if key is not None and key.key == name)
    previous = next(
        (item for key, item in reversed(body[:index]) if key is not None and isinstance(item, Table)), None
    )
    if previous is None:
        return False
    items = previous.value.body
    start = len(items)
    while start and items[start - 1][0] is None and isinstance(items[start - 1][1], (Whitespace, Comment)):
        start -= 1
    trailing = items[start:]
    if not any(isinstance(item, Comment) for _, item in trailing):
        return False
    del items[start:]
    container[name].value.body.extend(trailing)
    return True


def _table(container: Any, name: str, *, header: bool = True) -> Any:
    """``container[name]``, created when missing; without ``header`` it is written only as a prefix of
    its subtables' headers (``[hooks.state."..."]``, as Codex writes them)."""
    import tomlkit

    table = container.get(name)
    if table is None:
        table = tomlkit.table(is_super_table=not header)
        container[name] = table
    return table


# -- reading the two files, for doctor and for the trust command ----------------------------------------


def read_config(path: str) -> tuple[dict[str, Any], str]:
    """The user's parsed config.toml (empty when absent), and why it could not be read."""
    from entire_core.config.toml import parse_toml_text
    from entire_core.errors import ConfigError

    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    except FileNotFoundError:
        return {}, ""
    except OSError as exc:
        return {}, f"cannot read {path}: {exc.strerror}"
    try:
        return parse_toml_text(text), ""
    except ConfigError as exc:
        return {}, f"{path} does not parse ({exc}): Codex refuses to start until it is fixed"


def read_hooks(path: str) -> tuple[dict[str, Any] | None, str]:
    """The ``hooks`` object of the repository's hooks.json (None when absent), and what is wrong with it."""
    from entire_core.config.json import parse_json_text
    from entire_core.errors import ConfigError

    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    except FileNotFoundError:
        return None, ""
    try:
        return hooks.check_shape(parse_json_text(text, comments=False), path), ""
    except ConfigError as exc:
        message = str(exc)
        if message.startswith(path):
            return None, message
        return None, f"{path} does not parse ({exc}): Codex ignores the whole file, your own hooks too"


# -- the trust command ----------------------------------------------------------------------------------


def trust_command(agent: Agent, flags: Flags) -> int:
    """Write trust entries for our installed hooks (and with ``--project``, the project) into config.toml.

    The only code that writes the user's config.toml, and only when asked. ``--project`` and
    ``--remove`` are parsed by core, as the command declares them (``agent.CodexAgent.commands``).
    """
    from entire_core import program_name
    from entire_core.cli_stdio import print_error
    from entire_core.errors import ConfigError

    from entire_agent_openai_codex import paths

    remove, project = flags.bool_("remove"), flags.bool_("project")
    if remove and project:
        print_error(agent.name, "trust", "--remove leaves project trust alone", "drop --project")
        return 2
    root = agent.repo_root
    hooks_path = os.path.join(root, hooks.HOOKS_FILE)
    config_path = os.path.join(paths.codex_home(agent.env), "config.toml")
    events, problem = read_hooks(hooks_path)
    if remove:
        removed = remove_trust(config_path, hooks_path, events or {}, agent.name)
        print(f"Removed {len(removed)} trust entries of Entire's hooks from {config_path}")
        return 0
    if problem or events is None:
        raise ConfigError(
            problem
            or f"{hooks_path} does not exist: install the hooks first (`entire enable --agent openai-codex`)"
        )
    if not our_handlers(events, agent.name):
        raise ConfigError(
            f"{hooks_path} holds no Entire hooks: install them first (`entire enable --agent openai-codex`)"
        )
    written = write_trust(config_path, hooks_path, events, agent.name, project_root=root if project else "")
    # Every change to the user's file is named: our [hooks.state] entries, stale ones, the project.
    print(f"Trusted {len(written.keys)} Entire hooks in {config_path} ([hooks.state] entries):")
    for key in written.keys:
        print(f"  {key}{'' if key in written.changed else ' (already trusted)'}")
    for key in written.stale:
        print(f"Removed the stale entry {key} from {config_path}: our hook no longer sits there")
    if written.project:
        print(
            f"Marked {written.project} a trusted project in {config_path} "
            f'([projects.{_quoted(written.project)}] trust_level = "trusted")'
        )
    elif project:
        print(f"{os.path.realpath(root)} was already a trusted project in {config_path}")
    config, _ = read_config(config_path)
    if project_trust(config, root) != "trusted":
        program = program_name(agent.name)
        print(
            f"\nThe project itself is not trusted, so Codex still ignores .codex/: run `{program} trust --project`."
        )
    return 0
