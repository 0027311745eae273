"""An exclusive, inter-process lock per edited file, kept outside the user's directories."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Generator
from contextlib import contextmanager, suppress

from entire_core.errors import ConfigError
from entire_core.locks import try_lock, unlock

_TIMEOUT_SECONDS = 10.0
_POLL_SECONDS = 0.02


def lock_file_for(path: str | os.PathLike[str]) -> str:
    """Where the lock for ``path`` lives: named by the hash of its real path, so a symlink shares it."""
    import hashlib
    import tempfile

    # normcase: on Windows C:\Repo\x and c:\repo\x are one file, and realpath keeps the caller's
    # spelling of a file that does not exist yet; on POSIX it changes nothing.
    real: str = os.path.normcase(os.path.realpath(os.fspath(path)))
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()
    return os.path.join(tempfile.gettempdir(), "entire-config-locks", f"{digest}.lock")


@contextmanager
def locked(path: str | os.PathLike[str]) -> Generator[None, None, None]:
    """Hold the exclusive lock for editing ``path``; give up with ConfigError after a bounded wait.

    Not re-entrant: editing the same file again inside the ``with`` waits for itself and times out.
    """
    lock_file = lock_file_for(path)
    try:
        fd = _open(lock_file)
    except OSError as exc:
        raise ConfigError(f"cannot lock {os.fspath(path)}: {exc.strerror or exc}") from None
    try:
        deadline = time.monotonic() + _TIMEOUT_SECONDS
        while not try_lock(fd):
            if time.monotonic() >= deadline:
                raise ConfigError(f"timed out waiting for the lock on {os.fspath(path)}")
            time.sleep(_POLL_SECONDS)
        try:
            yield
        finally:
            unlock(fd)
    finally:
        os.close(fd)


def _open(lock_file: str) -> int:
    directory = os.path.dirname(lock_file)
    if not os.path.isdir(directory):
        os.makedirs(directory, exist_ok=True)
        # Shared like /tmp itself (sticky, world-writable): on a multi-user machine every user needs it.
        with suppress(OSError):
            os.chmod(directory, 0o1777)
    # O_NOFOLLOW: another user must not be able to point our lock file somewhere else.
    flags = os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    # flock works on a read-only descriptor, which also lets two users share a lock file they did not create.
    flags |= os.O_RDWR if sys.platform == "win32" else os.O_RDONLY
    return os.open(lock_file, flags, 0o644)
