"""Whether the process that left something behind still runs: a token naming a process, and a test of it.

A hook killed mid-way leaves what it was doing (a temporary file, an event it was answering), and the
next call has to tell such a leftover from the work of a call that is still running beside it. So the
leftover carries a token naming its process: ``<pid>.<start>``, where ``start`` is the process's start
time (in clock ticks since boot, from ``/proc``; ``0`` where there is no ``/proc``), so that a process
id reused by a newer process never passes for the one that died. Stdlib only, and cheap: the hook path
reads one ``/proc`` file per process.
"""

from __future__ import annotations

import os
import sys

_mine: str = ""


def _start_of(pid: int) -> str | None:
    """The start time of ``pid`` from ``/proc`` ("0" where there is no ``/proc``); None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except FileNotFoundError:
        return None if os.path.isdir("/proc/self") else "0"
    except (OSError, IndexError):
        return "0"
    if fields[0] in (b"Z", b"X"):
        return None  # exited, not reaped yet
    return fields[19].decode("ascii")


def token() -> str:
    """This process's token, ``<pid>.<start>``."""
    global _mine
    if not _mine:
        _mine = f"{os.getpid()}.{_start_of(os.getpid()) or '0'}"
    return _mine


def gone(owner: str) -> bool:
    """Whether the process named by ``owner`` (a ``token``) has ended; a token that is none reads as ended."""
    pid_text, _, start = owner.partition(".")
    if not pid_text.isdigit() or not start.isdigit():
        return True
    pid = int(pid_text)
    if pid == os.getpid():
        return owner != token()
    if os.path.isdir("/proc/self"):
        now = _start_of(pid)
        return now is None or (start != "0" and now != start)
    return not _runs(pid)


def _runs(pid: int) -> bool:
    """Whether ``pid`` runs, where there is no ``/proc`` (macOS, Windows)."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        # os.kill(pid, 0) would terminate the process on Windows: ask for a handle instead.
        import ctypes

        kernel32 = ctypes.windll.kernel32  # pyright: ignore[reportAttributeAccessIssue, reportUnknownMemberType, reportUnknownVariableType]
        handle = kernel32.OpenProcess(0x00100000 | 0x1000, False, pid)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if not handle:
            return kernel32.GetLastError() == 5  # pyright: ignore[reportUnknownMemberType]  # access denied: it runs, as another user
        try:
            return kernel32.WaitForSingleObject(handle, 0) == 0x102  # pyright: ignore[reportUnknownMemberType]  # WAIT_TIMEOUT: still running
        finally:
            kernel32.CloseHandle(handle)  # pyright: ignore[reportUnknownMemberType]
    try:  # pragma: no cover - macOS and other systems without /proc
        os.kill(pid, 0)
    except ProcessLookupError:  # pragma: no cover
        return False
    except PermissionError:  # pragma: no cover - another user's process
        return True
    return True  # pragma: no cover
