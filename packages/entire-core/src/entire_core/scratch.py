"""Scratch state: small JSON files an agent keeps between its own processes, by one rule for every agent.

The Entire CLI starts one plugin process per call, so what a hook learns for a later call (the turn a
Stop hook announced, how far a history file was read) is written down. An agent hands ``Scratch`` its
registry name and a key; this module decides where the file lives (the repository's git-ignored
``.entire/tmp/entire-agent-<name>/``), how a key becomes a file name (a hash, so any path or id is a
safe name), and how it is read and written (JSON, atomically; a missing or damaged file reads as
empty, since scratch state is only ever a hint a later call can do without).

It also decides, once for every agent, what happens when the scratch area cannot be written (a
read-only checkout, a full disk, a file where a directory should be): a hint is written best effort
(``write_hint``), so losing it costs a later call some work, never this call its answer; only state
an agent declares ``durable`` (more than a hint) fails the call when it cannot be written.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def path_key(path: str) -> str:
    """The key of a file: its resolved absolute path, case-folded where the file system folds case.

    One file spelled ``C:\\Repo\\x`` or ``c:\\repo\\x``, or reached through a link, is one key.
    """
    return os.path.normcase(os.path.realpath(path))


def write_hint(path: str, data: bytes) -> bool:
    """Replace ``path`` with ``data`` atomically, best effort; False when it could not be written.

    For files that are only hints (scratch state, caches of positions): an ``OSError`` is swallowed,
    and there is no fsync, since a reader takes a missing, empty or damaged file as no hint.
    """
    from entire_core import fsutil

    try:
        fsutil.atomic_write(path, data, durable=False, fsync=False)
    except OSError:
        return False
    return True


def directory(repo_root: str, agent_name: str) -> str:
    """``<repo>/.entire/tmp/entire-agent-<name>``: inside Entire's git-ignored scratch directory.

    Also where the protocol's sessions live by default (``sessions.default_session_dir``).
    """
    return os.path.join(repo_root, ".entire", "tmp", f"entire-agent-{agent_name}")


class Scratch:
    """The scratch directory of one agent in one repository."""

    __slots__ = ("directory",)

    DIGEST = 24
    """Hex digits of a key's digest in a state file's name (``file``), by which ``states`` knows one."""

    def __init__(self, repo_root: str, agent_name: str) -> None:
        self.directory = directory(repo_root, agent_name)

    def path(self, name: str) -> str:
        """A file or directory of this scratch area named by the agent (a validated id, a fixed name)."""
        return os.path.join(self.directory, name)

    def file(self, kind: str, key: str) -> str:
        """The JSON file holding state of ``kind`` about ``key`` (``path_key`` of a file, or an id)."""
        from entire_core._digest import sha256_hex

        digest = sha256_hex(key.encode("utf-8", "surrogateescape"))[: self.DIGEST]
        return self.path(f"{kind}-{digest}.json")

    def states(self) -> list[str]:
        """Every state file of this area (named as ``file`` names them), whatever its kind; none when the
        area cannot be listed."""
        try:
            names = sorted(os.listdir(self.directory))
        except OSError:
            return []
        digits, tail = frozenset("0123456789abcdef"), self.DIGEST + len(".json")
        return [self.path(name) for name in names
                if name.endswith(".json") and name[-tail - 1 : -tail] == "-" and set(name[-tail:-5]) <= digits]  # fmt: skip

    def load(self, kind: str, key: str, *, earlier: str = "", durable: bool = False) -> dict[str, Any]:
        """The state saved for ``key``, or an empty dict when there is none or it cannot be read.

        ``earlier`` names the file an earlier release kept this state in, read when today's is missing.
        ``durable`` is for state saved ``durable``: a file that is there but cannot be read (its mode, an
        I/O error) raises instead, so that the call fails and no save of an empty state replaces it.
        """
        from entire_core import _json
        from entire_core.jsonvalues import obj

        for path in (self.file(kind, key), self.path(earlier) if earlier else ""):
            try:
                with open(path, "rb") as f:
                    return obj(_json.loads(f.read()))
            except FileNotFoundError:
                continue
            except OSError:
                if durable:
                    raise
                return {}
            except ValueError:
                return {}
        return {}

    def save(self, kind: str, key: str, value: dict[str, Any], *, durable: bool = False) -> bool:
        """Write the state for ``key`` atomically (compact JSON); False when a hint could not be written.

        By default the state is a hint, written by ``write_hint``: best effort and without fsync.
        ``durable`` is for state that is more than a hint (Aider's queue of events not yet delivered):
        fsynced, and a failure to write it raises.
        """
        from entire_core import _json

        data = _json.dumps_state(value).encode("utf-8")
        if not durable:
            return write_hint(self.file(kind, key), data)
        from entire_core import fsutil

        fsutil.atomic_write(self.file(kind, key), data)
        return True

    def remove(self, kind: str, key: str) -> None:
        """Forget the state for ``key``, best effort: nothing happens when there is none or it cannot go.

        A hint left behind is one a later call could have met anyway (from a process killed before
        this one removed it), so every reader already copes with it.
        """
        try:  # noqa: SIM105 - contextlib would be one more import on the hook path
            os.unlink(self.file(kind, key))
        except OSError:
            pass
