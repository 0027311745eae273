"""Checks for identifiers and paths that come from outside before they touch the filesystem.

Session ids reach us from hook payloads and from checkpoint metadata on a shared branch, so they are
attacker-influenced. The rules are a superset of the Entire CLI's ``ValidateSessionID``: whatever we
accept, the CLI accepts too, and nothing we accept can name another directory.
"""

from __future__ import annotations

import os

_SESSION_ID_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_SESSION_ID_CHARS = _SESSION_ID_FIRST | frozenset("._-")
_TOOL_ID_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
_WINDOWS_DEVICES = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"COM{i}" for i in range(10)]
    + [f"LPT{i}" for i in range(10)]
)
_MAX_ID_LENGTH = 255


def _invalid(message: str) -> Exception:
    # Imported here: valid input (every hook's) never needs the error classes.
    from entire_core.errors import InvalidInput

    return InvalidInput(message)


def session_id(value: str) -> str:
    """Return ``value`` if it is a session id the CLI accepts and one of our agents could have made.

    The CLI's ``ValidateSessionID`` refuses separators, ``:``, glob characters and ``.``/``..``. Our
    agents only ever make ids of letters, digits, ``.``, ``_`` and ``-`` (Codex and Gemini use UUIDs,
    Aider ``aider-<time>-<hash>``), so that is all we take: such an id is one path component on every
    OS, never a flag (it starts with a letter or digit) and needs no quoting in any shell, which keeps
    the resume commands we print safe to paste.
    """
    problem = _session_id_problem(value)
    if problem:
        raise _invalid(problem)
    return value


def is_session_id(value: str) -> bool:
    """Whether ``session_id`` accepts ``value``: for ids that are only a hint when valid."""
    return not _session_id_problem(value)


def _session_id_problem(value: str) -> str:
    if not value or not value.strip():
        return "session id is empty"
    if len(value) > _MAX_ID_LENGTH:
        return f"session id is longer than {_MAX_ID_LENGTH} characters"
    bad = next((c for c in value if c not in _SESSION_ID_CHARS), None)
    if bad is not None:
        return f"session id {value!r} contains {bad!r}: only letters, digits, '.', '_' and '-' are allowed"
    if value[0] not in _SESSION_ID_FIRST:
        return f"session id {value!r} must start with a letter or a digit"
    if ".." in value:
        return f"session id {value!r} contains a relative path component"
    if value.endswith("."):
        return f"session id {value!r} ends with a dot, which Windows drops from file names"
    if value.split(".", 1)[0].upper() in _WINDOWS_DEVICES:
        return f"session id {value!r} is a reserved device name on Windows"
    return ""


def tool_id(value: str, what: str = "tool_use_id") -> str:
    """Return ``value`` if it is empty or matches ``[A-Za-z0-9_-]+`` (tool-use and subagent ids)."""
    if len(value) > _MAX_ID_LENGTH:
        raise _invalid(f"{what} is longer than {_MAX_ID_LENGTH} characters")
    if not _TOOL_ID_CHARS.issuperset(value):
        raise _invalid(f"{what} {value!r} may only contain letters, digits, '_' and '-'")
    return value


def is_tool_id(value: str) -> bool:
    """Whether ``value`` is a non-empty id ``tool_id`` accepts: for picking ids out of transcripts."""
    return 0 < len(value) <= _MAX_ID_LENGTH and _TOOL_ID_CHARS.issuperset(value)


_MODEL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:/-")


def model_name(value: str) -> str:
    """Return ``value`` if it is empty or matches ``[A-Za-z0-9._:/-]+``, safe as a command-line word.

    Agents installed by npm are ``.cmd`` shims on Windows, which run through cmd.exe: its parsing of
    ``%``, ``^``, ``&`` and quotes differs from the quoting Python applies, so a model name from the
    CLI must not carry any of them.
    """
    if len(value) > _MAX_ID_LENGTH:
        raise _invalid(f"model name is longer than {_MAX_ID_LENGTH} characters")
    if not _MODEL_CHARS.issuperset(value) or value.startswith("-"):
        raise _invalid(f"invalid model name {value!r}: only letters, digits and . _ : / - are allowed")
    return value


def has_parent_reference(path: str) -> bool:
    """True if ``path`` has a ``..`` component under either separator."""
    return ".." in path.replace("\\", "/").split("/")


def path_within(base: str, path: str) -> str:
    """Return ``path`` joined onto ``base`` if the result stays inside ``base`` after resolving links.

    Relative paths are taken relative to ``base``. The returned path is the joined, unresolved one:
    callers echo it back, and resolving would turn ``/var`` into ``/private/var`` on macOS.
    """
    if "\0" in path:
        raise _invalid("path contains a NUL byte")
    if not path:
        raise _invalid("path is empty")
    joined = os.path.join(base, path)
    real_base = os.path.realpath(base)
    real = os.path.realpath(joined)
    if not _is_within(real_base, real):
        raise _invalid(f"path {path!r} is outside {base!r}")
    return joined


def _is_within(base: str, path: str) -> bool:
    if os.name == "nt":
        base, path = os.path.normcase(base), os.path.normcase(path)
    try:
        return os.path.commonpath([base, path]) == base
    except ValueError:  # different drives on Windows
        return False


def external_path(value: str, what: str) -> str:
    """Return a path given to us on the command line or in JSON if it is safe to read or write.

    It must be non-empty, free of NUL bytes and free of ``..`` components, which the CLI never sends.
    """
    if not value:
        raise _invalid(f"{what} is empty")
    if "\0" in value:
        raise _invalid(f"{what} contains a NUL byte")
    if has_parent_reference(value):
        raise _invalid(f"{what} {value!r} contains a '..' component")
    return value
