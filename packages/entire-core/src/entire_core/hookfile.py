"""Our hook groups in an agent's own JSON or JSONC config file, installed and taken out exactly.

Codex (``.codex/hooks.json``), Gemini (``.gemini/settings.json``) and most agents that have hooks keep
them the same way: ``{"hooks": {<event>: [{matcher?, hooks: [<handler>...]}...]}, ...}``. What differs
is data (the file, our groups, which handlers are ours, switches such as Gemini's
``hooksConfig.enabled``) and a check of the file's shape; ``HookGroupsFile`` takes those and does the
rest once, for every agent:

- install merges our groups (``entire_core.hooks.install_groups``) and sets the switches, and records
  in core's install records (``entire_core.installs``) what it created: the file, its folder, each
  key. A switch the user set to another value is never flipped: install refuses with the agent's
  message, since turning it on would also run the user's own hooks that they turned off.
- uninstall removes our handlers, then exactly what the record says install created, deepest key
  first, and only while it holds nothing of the user's. Without a record that still matches the file
  (none, or the user changed the file since), only our handlers go. A file that held nothing before
  (empty, or only whitespace) gets that text back, byte for byte, not ``{}``. A file install created,
  or one that held nothing, goes (or gets its text back) also when nothing is left in it but keys the
  agent wrote there itself since (``agent_keys``, Qwen's ``"$version"``).
"""

from __future__ import annotations

import contextlib
import os

from entire_core.jsonvalues import obj

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    KeyPath = tuple[str, ...]

CONTAINER = "hooks"
"""The top-level key holding the groups per event."""


class Switch:
    """A value install sets outside the groups (``("hooksConfig", "enabled") = True``).

    ``refusal`` is the message, after the file's name, when the user already set another value.
    """

    __slots__ = ("path", "refusal", "value")

    def __init__(self, path: KeyPath, value: object, refusal: str) -> None:
        self.path = path
        self.value = value
        self.refusal = refusal


class HookGroupsFile:
    """One agent's hooks in one JSON(C) file: ``install``, ``uninstall``, ``installed``."""

    def __init__(
        self,
        path: str,
        *,
        agent_name: str,
        env: Mapping[str, str],
        wanted: Callable[[], dict[str, Any]],
        is_ours: Callable[[Any], bool],
        comments: bool = False,
        switches: tuple[Switch, ...] = (),
        check: Callable[[dict[str, Any], str], None] | None = None,
        earlier_names: Mapping[str, str] | None = None,
        agent_keys: tuple[str, ...] = (),
    ) -> None:
        self.path = path
        self.agent_name = agent_name
        self.env = env
        self.wanted = wanted
        self.is_ours = is_ours
        self.comments = comments
        self.switches = switches
        self.check = check
        """Raises ConfigError when the agent would reject the file; may also tidy what the agent ignores."""
        self.earlier_names = earlier_names or {}
        """Install-record keys an earlier release wrote, and this module's name for each (``created:hooks``)."""
        self.agent_keys = agent_keys
        """Top-level keys the agent writes into the file itself (Qwen's ``"$version"``): adding or changing
        them does not make the install record stale (``installs.fingerprint``)."""

    def _recall(self) -> dict[str, bool]:
        """What earlier installs created, while the file is still what they wrote, in this module's names."""
        from entire_core import installs

        record = installs.recall(self.env, self.agent_name, self.path, self.agent_keys)
        return {self.earlier_names.get(key, key): value for key, value in record.items()}

    # -- install ------------------------------------------------------------------------------------------

    def install(self, *, force: bool = False) -> int:
        """Put our groups and switches in place; return how many handlers were added."""
        from entire_core import hooks, installs
        from entire_core.config.json import edit_json

        created_dir = not os.path.isdir(os.path.dirname(self.path))
        # What earlier installs created counts only while the file is still what they wrote.
        earlier = self._recall()
        original = installs.recall_original(self.env, self.agent_name, self.path, self.agent_keys)
        created: dict[str, bool] = {"created_dir": created_dir}

        def record(written: bytes | None) -> None:
            merged = {key: value or earlier.get(key, False) for key, value in {**earlier, **created}.items()}
            if any(merged.values()) or original is not None:
                installs.remember(
                    self.env, self.agent_name, self.path,
                    original=original, ignore=self.agent_keys, written=written, **merged,
                )  # fmt: skip
            elif written is None:
                installs.forget(self.env, self.agent_name, self.path)

        with edit_json(self.path, comments=self.comments) as doc:
            root = self._root(doc.data)
            created["created_file"] = not doc.existed
            if doc.blank is not None and original is None:
                original = doc.blank  # an empty file goes back empty, not as "{}"
            events = self._container(root, (CONTAINER,), created)
            added = hooks.install_groups(events, self.wanted(), self.is_ours, force=force)
            for switch in self.switches:
                self._set(root, switch, created)
            doc.before_write = record  # the record first: killed after the write, it is still there
        record(None)
        return added

    def _root(self, data: object) -> dict[str, Any]:
        from entire_core.errors import ConfigError

        root = obj(data)
        if root is not data:
            raise ConfigError(f"{self.path}: the top level is not a JSON object")
        if self.check is not None:
            self.check(root, self.path)
        return root

    def _container(self, root: dict[str, Any], path: KeyPath, created: dict[str, bool]) -> dict[str, Any]:
        """The object at ``path``, made where missing (and recorded as created)."""
        from entire_core.errors import ConfigError

        node = root
        for depth, key in enumerate(path):
            if key not in node:
                node[key] = {}
                created[_record_key(path[: depth + 1])] = True
            child = obj(node[key])
            if child is not node[key]:
                raise ConfigError(f"{self.path}: {'.'.join(path[: depth + 1])!r} is not a JSON object")
            node = child
        return node

    def _set(self, root: dict[str, Any], switch: Switch, created: dict[str, bool]) -> None:
        from entire_core.errors import ConfigError

        parent = self._container(root, switch.path[:-1], created)
        key = switch.path[-1]
        if key not in parent:
            parent[key] = switch.value
            created[_record_key(switch.path)] = True
        elif parent[key] != switch.value:
            raise ConfigError(f"{self.path}: {switch.refusal}")

    # -- uninstall ----------------------------------------------------------------------------------------

    def uninstall(self) -> None:
        """Remove our handlers, and exactly what the install record says we created besides."""
        from entire_core import hooks, installs
        from entire_core.config.json import edit_json

        if not os.path.isfile(self.path):
            if installs.recall_folder(self.env, self.agent_name, self.path):
                with contextlib.suppress(OSError):  # not empty: something else lives there
                    os.rmdir(os.path.dirname(self.path))
            installs.forget(self.env, self.agent_name, self.path)
            return
        record = self._recall()
        original = installs.recall_original(self.env, self.agent_name, self.path, self.agent_keys)
        # Another uninstall may delete the file while this one waits for its lock: read as `{}`, it
        # then holds nothing to take out, and nothing is written.
        with edit_json(self.path, comments=self.comments) as doc:
            root = self._root(doc.data)
            events = obj(root.get(CONTAINER))
            if events is root.get(CONTAINER):
                hooks.remove_groups(events, self.is_ours)
            for switch in self.switches:
                parent = _find(root, switch.path[:-1])
                key = switch.path[-1]
                if (
                    record.get(_record_key(switch.path))
                    and parent is not None
                    and parent.get(key) == switch.value
                ):
                    del parent[key]
            for path in sorted(_created_paths(record), key=len, reverse=True):
                parent = _find(root, path[:-1])
                if parent is not None and parent.get(path[-1]) == {}:
                    del parent[path[-1]]
            # What is left may be only the agent's own keys, written there by the agent since (Qwen's
            # "$version"): they came with our file, and go with it.
            left = [key for key in root if key not in self.agent_keys]
            if not left and record.get("created_file"):
                doc.delete()
            elif not left and original is not None:
                doc.restore(original)
        if record.get("created_dir") and not os.path.exists(self.path):
            with contextlib.suppress(OSError):  # not empty: something else lives there
                os.rmdir(os.path.dirname(self.path))
        installs.forget(self.env, self.agent_name, self.path)

    # -- inspect ------------------------------------------------------------------------------------------

    def read(self) -> dict[str, Any] | None:
        """The file parsed (``{}`` when blank); None when missing. ConfigError when it does not parse."""
        from entire_core.config.json import read_json_object

        root = read_json_object(self.path, comments=self.comments)
        return None if root is None else self._root(root)

    def installed(self) -> dict[str, list[Any]]:
        """Our handlers per event (events without ours left out); ConfigError for a broken file."""
        from entire_core import hooks

        root = self.read() or {}
        return hooks.installed_groups(obj(root.get(CONTAINER)), self.is_ours)


def _record_key(path: KeyPath) -> str:
    return "created:" + ".".join(path)


def _created_paths(record: Mapping[str, bool]) -> list[KeyPath]:
    return [
        tuple(key[len("created:") :].split("."))
        for key, value in record.items()
        if value and key.startswith("created:")
    ]


def _find(root: dict[str, Any], path: KeyPath) -> dict[str, Any] | None:
    node = root
    for key in path:
        child = obj(node.get(key))
        if child is not node.get(key):
            return None
        node = child
    return node
