"""Where views live, and one view's file with its metadata on disk: crash-safe writes, repair after a
kill, and the CLI's own record of the session the view holds."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from entire_core.views.format import ViewOwner

VERSION = 2
"""The ``v`` of the metadata this module writes."""


def views_dir(env: Mapping[str, str], agent_name: str, repo_root: str) -> str:
    """The directory of one repository's views (``get-session-dir``): outside the repository."""
    from entire_core._digest import sha256_hex
    from entire_core.paths import state_dir

    real = os.path.normcase(os.path.realpath(repo_root))
    digest = sha256_hex(real.encode("utf-8", "surrogateescape"))[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(real))[:40]
    return os.path.join(state_dir(env, agent_name), "views", f"{name}-{digest}")


def is_view_path(agent: ViewOwner, path: str) -> bool:
    """True when ``path`` names a file in one of this plugin's view directories."""
    from entire_core.paths import state_dir

    root = os.path.join(state_dir(agent.env, agent.name), "views")
    parent = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    return os.path.normcase(parent) == os.path.normcase(os.path.abspath(root))


class ViewFile:
    """One view file and its metadata (``.meta/<key>.json``), which is the commit point of every change.

    An append that was not committed is cut off again (``recover``); a rewritten view is prepared as
    ``<view>.next``, the metadata names it, and only then is it renamed into place (``write_whole``).
    """

    def __init__(self, path: str, suffix: str) -> None:
        self.path = path
        self.suffix = suffix
        """The agent's session file suffix, which view names end with."""
        directory, name = os.path.split(path)
        self.key = name[: -len(suffix)] if name.endswith(suffix) else name
        self.meta_path = os.path.join(directory, ".meta", self.key + ".json")
        self.next_path = path + ".next"
        self.meta: dict[str, Any] = {}
        self.legacy: dict[str, Any] = {}
        """The metadata of a v1 view, until it is rebuilt (``views.legacy``)."""

    def load(self) -> dict[str, Any]:
        """The committed metadata (empty when there is none, or only a v1 view's, kept as ``legacy``).

        Metadata that is there but cannot be read (its mode, an I/O error) raises: taken as none, the
        view would be rebuilt without what it records, and a checkpoint come out wrong instead of failing.
        """
        from entire_core import _json, jsonvalues

        try:
            with open(self.meta_path, "rb") as f:
                meta = jsonvalues.obj(_json.loads(f.read()))
        except (FileNotFoundError, NotADirectoryError, ValueError):  # none, or torn: read back from the view
            return {}  # (``views.reclaim``), or made anew when there is none
        if meta.get("v") == VERSION:
            return meta
        from entire_core.views import legacy  # any other metadata: v1's or none

        if meta.get("v") == legacy.VERSION:
            self.legacy = meta
        return {}

    def save(self, *, durable: bool = False) -> None:
        """Commit the metadata. Appends need not survive a power loss: the next call copies them again
        from the native file; a rewrite's commit (``durable``) does, since it names ``<view>.next``."""
        import time

        from entire_core import _json, fsutil

        self.meta["v"] = VERSION
        self.meta["touched"] = int(time.time())
        fsutil.atomic_write(self.meta_path, _json.dumps_state(self.meta).encode("utf-8"), durable=durable)

    def lines(self) -> int:
        """The view's length in lines, as the CLI counts them (a view ending in blank lines: without them)."""
        lines = int(self.meta.get("view_lines", 0))
        size = int(self.meta.get("view_size", 0))
        if size:
            try:
                with open(self.path, "rb") as f:
                    f.seek(max(0, size - 2))
                    tail = f.read(min(size, 2))  # the last committed bytes, not a padding space after them
            except OSError:
                return lines
            if tail.isspace():  # its last line may be blank (spaces, a CR), which the CLI does not count
                from entire_core.views.frames import host_lines

                with open(self.path, "rb") as f:
                    return host_lines(f.read(size))
        return lines

    def read(self) -> bytes:
        """The view's committed bytes."""
        with open(self.path, "rb") as f:
            return f.read(int(self.meta["view_size"]))

    def write_whole(self, data: bytes) -> None:
        """Replace the view with ``data`` through ``<view>.next``, committing through the metadata.

        Its ``view_lines`` are all its lines, trailing blank ones included: an append adds its own to
        them, and ``lines`` drops the blank ones at the end as the CLI does.
        """
        from entire_core import fsutil

        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fsutil.remove_file(self.next_path)
        fd = os.open(self.next_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
                st = os.fstat(fd)
            finally:
                os.close(fd)
        except OSError:  # a full disk: nothing is committed yet, and nothing of the attempt may stay
            fsutil.remove_file(self.next_path)
            raise
        lines = data.count(b"\n") + (1 if data[-1:] not in (b"", b"\n") else 0)
        self.meta.update(view_id=[st.st_dev, st.st_ino], view_size=len(data), view_lines=lines, pad=0)
        try:
            self.save(durable=True)
        except OSError:  # a full disk: the attempt goes too, unless the metadata on disk already names it
            try:
                named = self.load().get("view_id")
            except OSError:
                named = None
            if named != [st.st_dev, st.st_ino]:
                fsutil.remove_file(self.next_path)
            raise
        os.replace(self.next_path, self.path)

    def set_resume(self, resume: int) -> None:
        """Write ``resume`` into the header's marker (so the bytes on stdin carry it too)."""
        from entire_core.views.wire import with_resume

        self.write_whole(with_resume(self.read(), resume))

    def recover(self) -> bool:
        """Repair what a killed process left; False when only a rebuild can help."""
        m = self.meta
        want = m.get("view_id")
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            st = None
        if st is None or [st.st_dev, st.st_ino] != want:
            try:
                nxt = os.stat(self.next_path)
            except FileNotFoundError:
                return False
            if [nxt.st_dev, nxt.st_ino] != want:
                return False
            os.replace(self.next_path, self.path)
            st = os.stat(self.path)
        size = int(m.get("view_size", 0))
        if st.st_size < size:
            return False
        if st.st_size != size + int(m.get("pad", 0)):  # an append that was never committed
            with open(self.path, "r+b") as f:
                f.truncate(size)
            m["pad"] = 0
        return True

    def sweep(self) -> None:
        """Remove views of sessions untouched for ``KEEP_SECONDS`` (best effort)."""
        import time

        from entire_core import fsutil
        from entire_core.views.format import KEEP_SECONDS

        meta_dir = os.path.dirname(self.meta_path)
        cutoff = time.time() - KEEP_SECONDS
        try:
            names = os.listdir(meta_dir)
        except OSError:
            return
        for name in names:
            if not name.endswith(".json") or os.path.join(meta_dir, name) == self.meta_path:
                continue
            meta = os.path.join(meta_dir, name)
            try:
                if os.stat(meta).st_mtime >= cutoff:
                    continue
                key = name[: -len(".json")]
                view = os.path.join(os.path.dirname(meta_dir), key + self.suffix)
                for path in (view, view + ".next", meta, meta[: -len(".json")] + ".lock"):
                    fsutil.remove_file(path)
            except OSError:
                continue

    # -- the CLI's own record of the session ---------------------------------------------------------------

    def host_start(self, repo_root: str) -> int | None:
        """The ``checkpoint_transcript_start`` the CLI stored for this session, when it is about this view."""
        state = self.host_state(repo_root)
        start = state.get("checkpoint_transcript_start", 0) if state is not None else None
        return start if isinstance(start, int) and start >= 0 else None

    def host_state(self, repo_root: str) -> dict[str, Any] | None:
        """The CLI's state file for this session (``.git/entire-sessions/<id>.json``), when it is about this view."""
        from entire_core import _json, gitdir, jsonvalues

        common = gitdir.common_dir(repo_root)
        if common is None:
            return None
        try:
            with open(os.path.join(common, "entire-sessions", self.key + ".json"), "rb") as f:
                state = jsonvalues.obj(_json.loads(f.read(1 << 20)))
        except (OSError, ValueError):
            return None
        recorded = state.get("transcript_path")
        if not isinstance(recorded, str) or not recorded:
            return None
        if os.path.normcase(os.path.abspath(recorded)) != os.path.normcase(os.path.abspath(self.path)):
            return None
        return state
