"""Fault points: named places where a test kills a plugin process, and the record of reaching them.

Every call of ours is a process the host may kill at any instruction (its 30 s timeout, Ctrl-C, a
closed lid). To test what such a kill leaves behind, core's writers pass named points (``write.*`` in
``fsutil.atomic_write``, ``lock.*`` in ``locks``, ``answer.*`` where the answer goes to stdout,
``guard.*`` where ``process.Guard`` makes its scratch directory, starts and reaps a child, removes the
scratch), and a test, or ``make faults``, picks one through the environment:

- ``ENTIRE_FAULT_AT=[<subcommand>:]<point>[@<text>][#<n>]``: the ``n``-th time (default 1) this
  process (running ``subcommand``, when given) reaches ``point`` (``*``: any point) with a path that
  contains ``text``, it sends itself ``ENTIRE_FAULT_SIGNAL`` (``KILL``, the default, ``TERM``,
  ``INT``, or ``STOP``); with ``ENTIRE_FAULT_ONCE=<file>``, only the first process to get there, which
  makes the file (for a host that runs many plugin processes with one environment; a file made
  beforehand keeps the point disarmed until it is removed). ``subcommand`` may go on with the first
  arguments of the call, space-separated (``parse-hook --hook stop``), to pick one hook's calls;
- ``STOP`` (POSIX) hangs the process where it is, holding what it holds (a lock, a temporary file,
  its caller waiting for the answer), until something kills it: a hang for a caller's own timeout to
  end, as the Entire CLI's 30 s SIGKILL of a plugin call does;
- ``ENTIRE_FAULT_TRACE=<file>``: each point reached is appended to ``file``, one line each,
  ``<pid>\\t<subcommand>\\t<point>\\t<path>``, so that a harness can list a call's points first, then
  kill at each.

Without either variable this module is never imported: a point costs its module one test of a
constant (``_FAULTS``) computed at import.
"""

from __future__ import annotations

import os
import signal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

AT_ENV = "ENTIRE_FAULT_AT"
TRACE_ENV = "ENTIRE_FAULT_TRACE"
SIGNAL_ENV = "ENTIRE_FAULT_SIGNAL"
ONCE_ENV = "ENTIRE_FAULT_ONCE"
SIGNALS = {"KILL": 9, "TERM": 15, "INT": 2, "STOP": int(getattr(signal, "SIGSTOP", 19))}
"""The signals a point may send, by name; ``SIGSTOP`` is 19 on Linux, 17 on macOS and the BSDs."""


def armed(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether fault points act in a process with this environment (what each ``_FAULTS`` holds)."""
    return bool(environ.get(AT_ENV) or environ.get(TRACE_ENV))


def parse(spec: str) -> tuple[str, str, str, int]:
    """``[<subcommand>:]<point>[@<text>][#<n>]`` as ``(subcommand, point, text, n)``; ValueError for
    a spec that is none."""
    body, hashed, count = spec.rpartition("#")
    if not hashed:
        body, count = spec, ""
    head, _, text = body.partition("@")
    subcommand, _, point = head.rpartition(":")
    try:
        n = int(count) if count else 1
    except ValueError:
        n = 0
    if not point or n < 1:
        raise ValueError(f"{AT_ENV}={spec!r}: expected [<subcommand>:]<point>[@<text>][#<n>], n >= 1")
    return subcommand, point, text, n


def subcommand() -> str:
    """The subcommand this process runs (its first argument), as traces and specs name it."""
    import sys

    return sys.argv[1] if len(sys.argv) > 1 else ""


def runs(wanted: str) -> bool:
    """Whether this process's call is ``wanted``: a subcommand, possibly with its first arguments
    (``parse-hook --hook stop``); anything when ``wanted`` is empty."""
    import sys

    words = wanted.split()
    return sys.argv[1 : 1 + len(words)] == words


_seen = 0


def reached(point: str, path: str = "") -> None:
    """This process has reached ``point`` (about ``path``): note it, and die here if it was chosen."""
    global _seen
    trace = os.environ.get(TRACE_ENV)
    if trace:
        line = f"{os.getpid()}\t{subcommand()}\t{point}\t{path}\n"
        fd = os.open(trace, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)
    spec = os.environ.get(AT_ENV)
    if not spec:
        return
    wanted, chosen, text, n = parse(spec)
    if chosen not in ("*", point) or text not in path or not runs(wanted):
        return
    _seen += 1
    if _seen != n:
        return
    once = os.environ.get(ONCE_ENV)
    if once:
        try:
            os.close(os.open(once, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            return  # another process died here already
    signal = SIGNALS.get(os.environ.get(SIGNAL_ENV, "KILL").upper(), 9)
    os.kill(os.getpid(), signal)
