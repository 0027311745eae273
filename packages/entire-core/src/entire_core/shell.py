"""Commands we print for people to paste into a shell (``format-resume-command``), quoted for it.

The Entire CLI prints our resume command after ``entire session resume <branch>``; the user pastes it
into their terminal. On Linux and macOS that is a POSIX shell. On Windows it may be cmd.exe or
PowerShell, and we cannot tell which, so a Windows command must mean the same in both.
"""

from __future__ import annotations

import sys

from entire_core.errors import InvalidInput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

POSIX = "posix"
WINDOWS = "windows"
"""cmd.exe and PowerShell alike."""

_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:")
"""Characters that mean themselves, unquoted, in sh, bash, zsh, cmd.exe and PowerShell."""
_PLAIN_ON_WINDOWS = _PLAIN | {"\\"}
"""A backslash is an escape in POSIX shells but a path separator in cmd.exe and PowerShell."""
_SPECIAL_IN_DOUBLE_QUOTES = frozenset('"%!$`')
"""Characters cmd.exe (``%``, ``!``) or PowerShell (``$``, backtick) still interpret inside "..."."""


def default_shell() -> str:
    """The shell a command printed on this machine is pasted into: ``windows`` on Windows, else ``posix``."""
    return WINDOWS if sys.platform == "win32" else POSIX


def quote(word: str, shell: str) -> str:
    """``word`` as one argument for ``shell`` (``posix`` or ``windows``).

    POSIX words are single-quoted (``'`` written as ``'"'"'``). A Windows word that needs quoting is
    double-quoted, which cmd.exe and PowerShell read alike only when it holds none of ``" % ! $ `
    ``, no control character and no trailing backslash; any other word is refused with InvalidInput.
    """
    if word and (_PLAIN_ON_WINDOWS if shell == WINDOWS else _PLAIN).issuperset(word):
        return word
    if shell == POSIX:
        return "'" + word.replace("'", "'\"'\"'") + "'"
    if shell != WINDOWS:
        raise ValueError(f"unknown shell {shell!r}")
    bad = next((c for c in word if c in _SPECIAL_IN_DOUBLE_QUOTES or ord(c) < 0x20 or c == "\x7f"), None)
    if bad is not None or word.endswith("\\"):
        shown = repr(bad) if bad is not None else "a trailing backslash"
        raise InvalidInput(f"{word!r} cannot be quoted alike for cmd.exe and PowerShell (it holds {shown})")
    return f'"{word}"'


def join(argv: Sequence[str], shell: str | None = None) -> str:
    """The command line that runs ``argv`` in ``shell`` (default: this machine's, ``default_shell``)."""
    if not argv:
        raise ValueError("empty command")
    chosen = shell or default_shell()
    return " ".join(quote(word, chosen) for word in argv)
