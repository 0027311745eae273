"""An exclusive lock between a plugin's own processes, cheap enough for the hook path.

Every hook is a new process and agents may fire hooks concurrently, so state shared between calls
needs a lock. This uses the operating system's advisory file lock (``fcntl.flock``, or
``msvcrt.locking`` on Windows): a few hundred microseconds to import, and released by the kernel
when a process dies, so a crashed hook never leaves a stale lock behind. Lock libraries such as
``filelock`` cost tens of milliseconds to import and stay off the hook path.
"""

from __future__ import annotations

import os
import sys
import time

WAIT_SECONDS = 10.0
_FAULTS = bool(os.environ.get("ENTIRE_FAULT_AT") or os.environ.get("ENTIRE_FAULT_TRACE"))
"""Fault points (``entire_core.faults``) act only when a test armed them."""


def _reached(point: str, path: str) -> None:
    from entire_core import faults

    faults.reached(point, path)


class exclusive:  # lower case: used like contextlib.suppress, as a context manager
    """Hold an exclusive lock on ``path`` (created if missing) for the ``with`` block.

    The file is left in place, beside the state it guards, unless ``remove``: then it is deleted as the
    lock is released, for locks in places shared with other programs (the temporary directory, the
    plugin's state directory) where nothing of ours may stay behind.
    """

    def __init__(self, path: str, wait: float = WAIT_SECONDS, *, remove: bool = False) -> None:
        self.path = path
        self.wait = wait
        self.remove = remove
        self._fd = -1

    def __enter__(self) -> exclusive:
        fd = acquire(self.path, time.monotonic() + self.wait, identity=self.remove)
        if fd is None:
            from entire_core.errors import AgentError

            raise AgentError(f"timed out after {self.wait:.0f}s waiting for the lock {self.path}")
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd >= 0:
            release(self._fd, self.path, remove=self.remove)
            self._fd = -1


def acquire(
    path: str,
    deadline: float,
    *,
    identity: bool = False,
    flags: int = os.O_RDWR,
    mode: int = 0o600,
    poll: float = 0.01,
) -> int | None:
    """Open ``path`` (made, with its directory, where missing) and lock it; the descriptor, or None at ``deadline``.

    ``identity`` is for lock files their holders delete (``release(remove=True)``): a process that waited
    on a file its holder then deleted holds a lock nobody else sees, so it checks that ``path`` still
    names the file it locked, and starts over when it does not. Such a lock also deletes what killed
    holders of its family left (``sweep_family``). OSError from opening is the caller's.
    """
    while True:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        try:
            fd = os.open(path, flags | os.O_CREAT, mode)
        except FileNotFoundError:
            if time.monotonic() > deadline:
                raise
            continue  # the directory was removed meanwhile: make it again
        while not try_lock(fd):
            if time.monotonic() > deadline:
                os.close(fd)
                return None
            time.sleep(poll)
        if not identity or _still_named(fd, path):
            if _FAULTS:
                _reached("lock.taken", path)
            if identity:
                sweep_family(path)
            return fd
        unlock(fd)
        os.close(fd)


def sweep_family(path: str) -> list[str]:
    """Delete the lock files of ``path``'s family that no one holds; the names deleted.

    A lock deleted on release (``entire-config-<digest>.lock`` in the temporary directory, Aider's
    ``drain-<key>.lock``) stays when its holder is killed before it could delete it, in a directory
    shared with other programs, and nothing of ours may stay there. Its family is its directory and
    its name up to the last ``-``: each file of it that can be locked at once has no holder, and is
    deleted while locked, as ``release`` deletes its own. Best effort; nothing on Windows, where an
    open file cannot be deleted anyway.
    """
    directory, name = os.path.split(path)
    family, dash, _ = name.rpartition("-")
    if sys.platform == "win32" or not dash or not name.endswith(".lock"):
        return []
    try:
        entries = os.listdir(directory or ".")
    except OSError:
        return []
    removed: list[str] = []
    for entry in entries:
        if entry == name or not entry.startswith(family + "-") or not entry.endswith(".lock"):
            continue
        other = os.path.join(directory, entry)
        try:
            fd = os.open(other, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            if try_lock(fd):
                try:
                    if _still_named(fd, other):
                        os.unlink(other)
                        removed.append(entry)
                except OSError:
                    pass  # another user's file in a shared directory
                finally:
                    unlock(fd)
        finally:
            os.close(fd)
    return removed


def _still_named(fd: int, path: str) -> bool:
    """Whether ``path`` names the open file ``fd`` (not a file made after ours was deleted, nor none)."""
    held = os.fstat(fd)
    try:
        named = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    return (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino)


def release(fd: int, path: str, *, remove: bool = False) -> None:
    """Unlock and close ``fd``; with ``remove``, delete ``path`` first, while the lock is still held."""
    if _FAULTS:
        _reached("lock.release", path)
    if remove:
        try:  # noqa: SIM105 - contextlib would be one more import
            os.unlink(path)
        except OSError:
            pass  # another user's file in a shared directory, or Windows, where an open file stays
    unlock(fd)
    os.close(fd)


def try_lock(fd: int) -> bool:
    """Take the exclusive lock on an open file without waiting; False if another process holds it."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def unlock(fd: int) -> None:
    """Release a lock taken with ``try_lock``."""
    if sys.platform == "win32":  # pragma: no cover
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)  # msvcrt locks bytes from the current position
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)
