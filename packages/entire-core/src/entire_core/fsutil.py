"""Atomic file writes that keep symlinks and modes, and leave no partial files behind, even when killed.

The bytes go to a temporary file beside the target, which is then renamed over it. A process killed
between the two (the host's 30 s kill, Ctrl-C) cannot remove its temporary file, so the file's name says
whose it is: ``.<name>.<pid>-<start>-<random>.tmp`` (``liveness``: the writer's process id and start
time). Each write first removes, in its directory, such files whose writer no longer runs, and the
``.<name>.<12 hex digits>.tmp`` an older release left beside the same target once it is older than
``OLD_TEMP_SECONDS`` (those name no writer, and a live writer's is seconds old at most).
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import time

_REPLACE_RETRY_SECONDS = 1.0
OLD_TEMP_SECONDS = 600.0
"""An older release's temporary file (no writer in its name) older than this is a leftover."""
_FAULTS = bool(os.environ.get("ENTIRE_FAULT_AT") or os.environ.get("ENTIRE_FAULT_TRACE"))
"""Fault points (``entire_core.faults``) act only when a test armed them."""


def _reached(point: str, path: str) -> None:
    from entire_core import faults

    faults.reached(point, path)


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(
    path: str, data: bytes, *, mode: int | None = None, durable: bool = True, fsync: bool = True
) -> str:
    """Replace ``path`` with ``data`` all at once and return the file actually written.

    A symlink is followed, so the link stays a link and its target gets the new bytes. The existing
    file's permission bits are kept; a new file gets ``mode`` or the usual ``0o666 & ~umask``. The
    bytes go to a temporary file in the same directory, are fsynced, then ``os.replace``d over the
    target, so readers see the old file or the new one, never a mix. Parent directories are created.

    ``durable`` also fsyncs the directory, so that the rename itself survives a power loss. Our own
    derived state that a later call checks and rebuilds (a view's metadata, offset marks, scratch
    state) passes ``durable=False``: after a power loss it may come back as its previous version, never
    torn, and a process that dies changes nothing either way. That directory fsync is the largest
    single cost of a hook on many disks (several milliseconds), paid on every prompt.

    ``fsync=False`` (only with ``durable=False``) skips the file's fsync too, for state whose readers
    take a damaged file as absent (scratch state): a killed process still leaves the old bytes or the
    new, but after a power loss the file may be empty.
    """
    if durable and not fsync:
        raise ValueError("a durable write needs fsync")
    target = os.path.realpath(path)
    if os.path.isdir(target):
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", path)
    directory = os.path.dirname(target)
    os.makedirs(directory, exist_ok=True)
    try:
        keep_mode: int | None = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        keep_mode = None
    final_mode = (
        keep_mode if keep_mode is not None else (mode if mode is not None else 0o666 & ~_current_umask())
    )
    if keep_mode is not None and not keep_mode & stat.S_IWUSR and sys.platform == "win32":
        # Windows cannot replace a read-only file (POSIX can: the directory decides there); say so
        # plainly instead of "access denied" after the retries.
        raise PermissionError(errno.EACCES, "the file is read-only; make it writable and try again", target)

    if _FAULTS:
        _reached("write.begin", target)
    sweep(directory, os.path.basename(target))
    tmp = os.path.join(directory, temp_name(os.path.basename(target)))
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    except OSError as exc:
        raise _naming(exc, path) from None
    try:
        try:
            if _FAULTS:
                _reached("write.created", target)
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if _FAULTS:
                _reached("write.written", target)
            if fsync:
                os.fsync(fd)
                if _FAULTS:
                    _reached("write.synced", target)
        finally:
            os.close(fd)
        os.chmod(tmp, final_mode)
        _replace(tmp, target)
    except BaseException as exc:
        _discard(tmp)
        if isinstance(exc, OSError):
            raise _naming(exc, path) from None
        raise
    if _FAULTS:
        _reached("write.renamed", target)
    if durable:
        _fsync_directory(directory)
        if _FAULTS:
            _reached("write.durable", target)
    return target


_NAME_MAX = 255


def temp_name(name: str) -> str:
    """The name of this process's temporary file for the target ``name``: ``.<name>.<pid>-<start>-<random>.tmp``.

    A target name too long to take the suffix is cut: the suffix alone says whose the file is.
    """
    from entire_core import liveness

    tag = liveness.token().replace(".", "-") + "-" + os.urandom(4).hex()
    stem = name
    while len(os.fsencode(f".{stem}.{tag}.tmp")) > _NAME_MAX and stem:
        stem = stem[:-1]
    return f".{stem}.{tag}.tmp"


def _writer(entry: str) -> str | None:
    """The writer's token (``liveness``) of a temporary file named by ``temp_name``, else None."""
    if not (entry.startswith(".") and entry.endswith(".tmp")):
        return None
    tag = entry[:-4].rpartition(".")[2]
    pid, start, rest = [*tag.split("-", 2), "", ""][:3]
    if not (pid.isdigit() and start.isdigit() and _is_hex(rest, 8)):
        return None
    return f"{pid}.{start}"


def _is_old_temp(entry: str, name: str) -> bool:
    """Whether ``entry`` is an older release's temporary file for ``name``: ``.<name>.<12 hex>.tmp``."""
    prefix = f".{name}."
    if not (entry.startswith(prefix) and entry.endswith(".tmp")):
        return False
    return _is_hex(entry[len(prefix) : -4], 12)


def _is_hex(text: str, length: int) -> bool:
    return len(text) == length and all(c in "0123456789abcdef" for c in text)


def sweep(directory: str, name: str = "") -> list[str]:
    """Remove the temporary files in ``directory`` that killed writers left; the names removed.

    Those of ``temp_name`` whose writer no longer runs, whatever their target, and with ``name``, an
    older release's of that target once older than ``OLD_TEMP_SECONDS``. Best effort: what cannot be
    looked at or removed stays, and the write that asked goes on.
    """
    removed: list[str] = []
    try:
        entries = os.listdir(directory)
    except OSError:
        return removed
    for entry in entries:
        if not entry.endswith(".tmp"):
            continue
        writer = _writer(entry)
        if writer is not None:
            from entire_core import liveness

            if not liveness.gone(writer):
                continue
        elif not (name and _is_old_temp(entry, name)):
            continue
        path = os.path.join(directory, entry)
        try:
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode):
                continue
            if writer is None and time.time() - info.st_mtime < OLD_TEMP_SECONDS:
                continue
            os.unlink(path)
        except OSError:
            continue
        removed.append(entry)
    return removed


def _naming(exc: OSError, path: str) -> OSError:
    """The same error about ``path``: the user knows their file, not our temporary one beside it."""
    return type(exc)(exc.errno, exc.strerror or str(exc), path)


def _discard(tmp: str) -> None:
    """Remove a temporary file after a failure without hiding that failure."""
    try:
        remove_file(tmp)
    except OSError:
        # Windows refuses to delete a read-only file, and the temp file carries the target's mode.
        try:
            os.chmod(tmp, stat.S_IWRITE | stat.S_IREAD)
            remove_file(tmp)
        except OSError:
            pass  # the error that brought us here is the one to report


def _replace(src: str, dst: str) -> None:
    # On Windows a reader (an editor, an antivirus scan) can hold the target open for a moment.
    deadline = time.monotonic() + _REPLACE_RETRY_SECONDS
    while True:
        try:
            os.replace(src, dst)
            return
        except PermissionError:
            if sys.platform != "win32" or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _fsync_directory(directory: str) -> None:
    if sys.platform == "win32":
        return
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_file(path: str) -> bool:
    """Delete ``path`` if it exists; a symlink itself is removed, not its target."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True


def remove_empty_dirs(directory: str, stop_at: str) -> None:
    """Remove ``directory`` and its parents while they are empty, never ``stop_at`` or above it."""
    stop = os.path.realpath(stop_at)
    current = directory
    while os.path.realpath(current) != stop and os.path.realpath(current).startswith(stop + os.sep):
        try:
            os.rmdir(current)
        except OSError:  # not empty, already gone, or not ours to remove
            return
        current = os.path.dirname(current)
