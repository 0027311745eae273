"""Hostile test input that is harmless when it escapes, and the check that keeps destructive input out.

A test that feeds shell metacharacters to quoting code keeps their *shapes* (``;``, ``$( )``, backticks,
newlines, quotes) but never a destructive verb: each payload, if a shell ever ran it, would only create
the canary file named by ``$ENTIRE_TEST_CANARY``. The pytest plugin points that variable into each
test's own temporary directory and fails the test when the file appears.

``destructive_commands`` finds what must never be in a test string, fixture or contract-kit case
(recursive or forced deletion, file-system formatting, raw disk writes, fork bombs); the guard test
``tests/test_test_safety.py`` runs it over the test trees.
"""

from __future__ import annotations

import re
from pathlib import Path

CANARY_ENV = "ENTIRE_TEST_CANARY"
"""The variable naming the file a hostile payload creates if a shell runs it."""

_TOUCH = 'touch "$ENTIRE_TEST_CANARY"'

CANARY_PAYLOADS = (
    f"x; {_TOUCH}",
    f"$({_TOUCH})",
    f"`{_TOUCH}`",
    f"x\n{_TOUCH}",
    f"x || {_TOUCH}",
    f"x | {_TOUCH}",
)
"""Command injections in each shell shape; the only thing any of them can do is create the canary."""

_DESTRUCTIVE = (
    (r"\brm\s+(?:-[A-Za-z]*[rRf][A-Za-z]*|--recursive|--force)\b", "recursive or forced rm"),
    (r"\b(?:mkfs|mke2fs|wipefs|shred)\b", "a file-system or disk wipe"),
    (r"\bdd\s[^\n]*\bof=", "dd onto a file or device"),
    (r">\s*/dev/(?:sd|hd|nvme|vd|xvd|disk|mmcblk)", "a write to a raw disk"),
    (r":\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:", "a fork bomb"),
    (
        r"\b(?:chmod|chown)\s+-[A-Za-z]*R[A-Za-z]*\s+[^\s]*\s*(?:/|~|\$HOME)(?:\s|$|[\"'])",
        "a recursive chmod or chown of / or home",
    ),
    (r"\bfind\s[^\n]*\s-delete\b", "find -delete"),
    (r"\bgit\s+clean\s+-[A-Za-z]*f", "git clean -f"),
    (r"\bRemove-Item\b[^\n]*-Recurse", "PowerShell's recursive Remove-Item"),
    (r"\b(?:rd|rmdir|del)\s+/[sSqQ]\b", "cmd.exe's recursive delete"),
)
DESTRUCTIVE = tuple((re.compile(pattern), what) for pattern, what in _DESTRUCTIVE)
"""Each pattern of a destructive command, with what it is."""


def destructive_commands(text: str) -> list[tuple[int, str]]:
    """``(line number, what)`` for every destructive command in ``text``."""
    found: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        found.extend((number, what) for pattern, what in DESTRUCTIVE if pattern.search(line))
    return found


SCANNED_SUFFIXES = frozenset({".py", ".json", ".jsonl", ".md", ".toml", ".yml", ".yaml", ".txt", ".sh", ".cfg",
                              ".ini", ".tmpl", ".log", ""})  # fmt: skip
"""Text files a test string or fixture can live in (``""``: files without a suffix, such as scripts)."""

SKIPPED_DIRECTORIES = frozenset({".venv", "__pycache__", ".git", "node_modules", "build", "dist", ".hypothesis",
                                 ".pytest_cache", ".ruff_cache", "mutants"})  # fmt: skip


def scan(roots: list[Path]) -> list[str]:
    """``path:line: what`` for every destructive command in the text files under ``roots``."""
    found: list[str] = []
    for root in roots:
        files = [root] if root.is_file() else sorted(root.rglob("*"))
        for path in files:
            if not path.is_file() or path.suffix not in SCANNED_SUFFIXES:
                continue
            if SKIPPED_DIRECTORIES.intersection(path.parts):
                continue
            text = path.read_bytes().decode("utf-8", errors="replace")
            found.extend(f"{path}:{line}: {what}" for line, what in destructive_commands(text))
    return found
