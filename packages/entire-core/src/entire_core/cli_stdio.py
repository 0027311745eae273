"""The protocol's stdin, stdout and stderr: reading the input, one answer alone on file descriptor 1,
and an error as one line on stderr (``print_error``).

The Entire CLI decodes a plugin's stdout into strict Go types, so while agent code runs, file
descriptor 1 points at stderr (a stray ``print`` or child process cannot corrupt the answer), and
only the answer is written to the real stdout, once, at the end.
"""

from __future__ import annotations

import os
import sys

from entire_core import program_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

HOOK_STDIN_WAIT_SECONDS = 0.5
"""How long ``parse-hook`` waits for a payload on a pipe that stays open and silent (IDEs do this)."""
_FAULTS = bool(os.environ.get("ENTIRE_FAULT_AT") or os.environ.get("ENTIRE_FAULT_TRACE"))
"""Fault points (``entire_core.faults``) act only when a test armed them."""
_when_answered: list[Callable[[], object]] = []


def when_answered(callback: Callable[[], object]) -> None:
    """Run ``callback`` once this call's answer is wholly written to stdout; never if it could not be.

    For what may only happen once the host can have the answer: an event leaves its queue
    (``entire_core.eventqueue``). A failure of ``callback`` is ignored: the answer is out, and exiting
    non-zero now would make the host throw it away.
    """
    _when_answered.append(callback)


def read_stdin(*, wait: float | None = None) -> bytes:
    """All of stdin as bytes; a terminal or missing stdin reads as empty.

    With ``wait``, stop when the pipe stays silent that long: the CLI closes the pipe after the
    payload, but some callers keep it open without writing, and a hook must never hang on that.
    """
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return b""
    if os.isatty(fd):
        return b""
    if wait is None:
        return _read_all(fd)
    if _THREADED_STDIN:
        return _read_with_thread(fd, wait)
    chunks: list[bytes] = []
    if _read_ready(fd, chunks):
        return b"".join(chunks)
    import select

    while True:
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            break
        data = os.read(fd, 1 << 16)
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def _read_ready(fd: int, chunks: list[bytes]) -> bool:
    """Read what the pipe holds without waiting; True when that reached its end.

    The CLI writes the payload and closes the pipe before a hook's interpreter is up, so this is
    usually all there is to do, and ``select`` (a shared library on most builds) is never loaded.
    """
    blocking = os.get_blocking(fd)
    os.set_blocking(fd, False)
    try:
        while data := os.read(fd, 1 << 16):
            chunks.append(data)
    except BlockingIOError:
        return False  # the pipe is open and, for now, silent
    finally:
        os.set_blocking(fd, blocking)
    return True


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while data := os.read(fd, 1 << 20):
        chunks.append(data)
    return b"".join(chunks)


_THREADED_STDIN = sys.platform == "win32"
"""Windows cannot ``select`` on a pipe, so a thread reads stdin there (tests force this on Linux)."""


def _read_with_thread(fd: int, wait: float) -> bytes:
    """Like the ``select`` loop: read until EOF or until the pipe stays silent for ``wait`` seconds.

    The daemon thread reads the raw fd with ``os.read``: a thread still blocked in
    ``sys.stdin.buffer.read()`` holds the BufferedReader's lock, and interpreter shutdown then aborts
    with "could not acquire lock for <stdin>" (exit 134) after the answer was computed.
    """
    import threading

    chunks: list[bytes] = []
    eof: list[bool] = []
    arrived = threading.Condition()

    def pump() -> None:
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except OSError:
                data = b""
            with arrived:
                if data:
                    chunks.append(data)
                else:
                    eof.append(True)
                arrived.notify()
            if not data:
                return

    threading.Thread(target=pump, name="stdin-reader", daemon=True).start()
    with arrived:
        while not eof:
            seen = len(chunks)
            arrived.wait(wait)
            if len(chunks) == seen and not eof:
                break  # silent for `wait` seconds with the pipe still open
        return b"".join(chunks)


def encode_answer(answer: bytes | dict[str, object] | None) -> bytes:
    """The exact stdout bytes of an answer: raw bytes as they are, JSON as one value and a newline."""
    if answer is None:
        return b""
    if isinstance(answer, bytes):
        return answer
    from entire_core import _json

    return (_json.dumps(answer) + "\n").encode("utf-8")


class AnswerChannel:
    """``with AnswerChannel() as answer``: fd 1 points at stderr inside; ``answer.write`` reaches the real stdout."""

    __slots__ = ("_fd",)

    def __init__(self) -> None:
        self._fd = -1

    def __enter__(self) -> AnswerChannel:
        _when_answered.clear()  # an earlier in-process call's, never answered through a channel
        sys.stdout.flush()
        self._fd = os.dup(1)
        os.dup2(2, 1)
        return self

    def __exit__(self, *exc: object) -> None:
        os.dup2(self._fd, 1)
        os.close(self._fd)

    def write(self, data: bytes) -> int:
        """Write the whole answer; the exit status: 0, or 1 when the reader has gone (a broken pipe)."""
        sys.stdout.flush()  # whatever agent code printed goes to stderr before the answer
        if _FAULTS:
            _reached("answer.begin")
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except BrokenPipeError:
            _when_answered.clear()
            return 1
        if _FAULTS:
            _reached("answer.written")
        while _when_answered:
            try:  # noqa: SIM105 - contextlib would be one more import on the hook path
                _when_answered.pop(0)()
            except Exception:
                pass  # see when_answered: the answer is out
        return 0


# -- errors ---------------------------------------------------------------------------------------------


def one_line(message: str, limit: int = 2000) -> str:
    """Collapse a message to a single line the CLI can show after ``<subcommand>: ``."""
    text = " ".join(message.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def error_line(agent_name: str, subcommand: str, what: str, fix: str = "") -> str:
    """The one error format of every agent: ``entire-agent-<name> <subcommand>: <what is wrong>[: <what to do>]``.

    ``subcommand`` is empty only when there is none to name (none given, or one that does not exist).
    One line, without its line break.
    """
    where = program_name(agent_name) + (f" {subcommand}" if subcommand else "")
    return one_line(f"{where}: {what}" + (f": {fix}" if fix else ""))


def print_error(agent_name: str, subcommand: str, what: str, fix: str = "") -> None:
    """Write ``error_line`` to stderr; a stderr that is gone is ignored (nobody is left to read it)."""
    try:
        sys.stderr.write(error_line(agent_name, subcommand, what, fix) + "\n")
        sys.stderr.flush()
    except OSError:
        pass


def _reached(point: str) -> None:
    from entire_core import faults

    faults.reached(point)
