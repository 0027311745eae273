"""Sabotage for ``make faults --pythonpath``: locks are lock files made with O_EXCL and deleted on release, as
git's are, and a lock file left by a killed holder is never taken over (a stuck session: case stale-lock)."""

import os
import time

from entire_core import locks


def acquire(path: str, deadline: float, *, identity: bool = False, flags: int = os.O_RDWR, mode: int = 0o600,
            poll: float = 0.01) -> int | None:  # fmt: skip
    deadline = min(deadline, time.monotonic() + 1.0)  # the stuck call gives up soon, not after 10 s
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    while True:
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            if time.monotonic() > deadline:
                return None
            time.sleep(poll)
            continue
        if locks._FAULTS:
            locks._reached("lock.taken", path)  # the harness finds the locks a step takes by this point
        return fd


def release(fd: int, path: str, *, remove: bool = False) -> None:
    os.unlink(path)
    os.close(fd)


locks.acquire, locks.release = acquire, release
from entire_core.config import _lock  # noqa: E402 - imported by name there

_lock.acquire, _lock.release = acquire, release
