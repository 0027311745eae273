"""An exclusive, inter-process lock per edited file, kept outside the user's directories while it is held."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Generator
from contextlib import contextmanager

from entire_core.errors import ConfigError
from entire_core.locks import acquire, release

_TIMEOUT_SECONDS = 10.0
_POLL_SECONDS = 0.02


def lock_file_for(path: str | os.PathLike[str]) -> str:
    """Where the lock for ``path`` lives while it is held: in the temporary directory, named by the hash
    of the file's real path, so a symlink shares it."""
    import hashlib
    import tempfile

    # normcase: on Windows C:\Repo\x and c:\repo\x are one file, and realpath keeps the caller's
    # spelling of a file that does not exist yet; on POSIX it changes nothing.
    real: str = os.path.normcase(os.path.realpath(os.fspath(path)))
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()
    return os.path.join(tempfile.gettempdir(), f"entire-config-{digest}.lock")


@contextmanager
def locked(path: str | os.PathLike[str]) -> Generator[None, None, None]:
    """Hold the exclusive lock for editing ``path``; give up with ConfigError after a bounded wait.

    The lock file is deleted when the lock is released (``entire_core.locks.release``): nothing of ours
    stays in the temporary directory. Not re-entrant: editing the same file again inside the ``with``
    waits for itself and times out.
    """
    lock_file = lock_file_for(path)
    # O_NOFOLLOW: another user must not be able to point our lock file somewhere else. flock works on a
    # read-only descriptor, which also lets two users share a lock file one of them made.
    flags = getattr(os, "O_NOFOLLOW", 0) | (os.O_RDWR if sys.platform == "win32" else os.O_RDONLY)
    try:
        fd = acquire(lock_file, time.monotonic() + _TIMEOUT_SECONDS, identity=True, flags=flags, mode=0o644,
                     poll=_POLL_SECONDS)  # fmt: skip
    except OSError as exc:
        raise ConfigError(f"cannot lock {os.fspath(path)}: {exc.strerror or exc}") from None
    if fd is None:
        raise ConfigError(f"timed out waiting for the lock on {os.fspath(path)}")
    try:
        yield
    finally:
        release(fd, lock_file, remove=True)
