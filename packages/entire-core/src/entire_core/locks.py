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


class exclusive:  # lower case: used like contextlib.suppress, as a context manager
    """Hold an exclusive lock on ``path`` (created if missing, left in place) for the ``with`` block."""

    def __init__(self, path: str, wait: float = WAIT_SECONDS) -> None:
        self.path = path
        self.wait = wait
        self._fd = -1

    def __enter__(self) -> exclusive:
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + self.wait
        while not try_lock(self._fd):
            if time.monotonic() > deadline:
                os.close(self._fd)
                self._fd = -1
                from entire_core.errors import AgentError

                raise AgentError(f"timed out after {self.wait:.0f}s waiting for the lock {self.path}")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd >= 0:
            unlock(self._fd)
            os.close(self._fd)
            self._fd = -1


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
