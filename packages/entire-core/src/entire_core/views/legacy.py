"""Views written by v1 (positions in bytes, a tag in the header), recognised and rebuilt as v2 on first touch.

All that v1 needs is here: its metadata is recognised by ``VERSION`` (``ViewFile.load`` keeps it as
``legacy``), and ``resume_at`` finds the turn that was in progress, where offsets the CLI took in v1
resume after the rebuild (``View._upgrade``). Ending v1 support is deleting this module and those call
sites, and the ``legacy`` fallbacks beside them.
"""

from __future__ import annotations

from entire_core import offsets

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VERSION = 1
"""The ``v`` of a v1 view's metadata."""
TAG_PREFIX = b"entire-view:v1:"
"""What v1 headers carried (a format may still recognise its older snapshots by it)."""


def resume_at(view: str, legacy: dict[str, Any], native: str, start: int) -> int:
    """Where in ``native`` the turn a v1 view (``legacy``: its metadata) had in progress starts; -1 for none."""
    found: int | None = None
    turn = int(legacy.get("turn", -1)) if isinstance(legacy.get("turn"), int) else -1
    if turn >= 0 and legacy.get("native") == native and not legacy.get("mirror"):
        found = _turn_start(view, turn, legacy, native, start)
    return found if found is not None else -1


def _turn_start(view: str, turn: int, legacy: dict[str, Any], native: str, start: int) -> int | None:
    """Where in ``native`` the v1 view's turn in progress (its byte ``turn``) starts: that record's line."""
    line = offsets.line_at(view, turn)
    if line is None:
        return None
    consumed = int(legacy.get("native_end", 0))
    found: int | None = None
    position = start
    for native_line, stop in offsets.lines_between(native, start, consumed):
        if native_line + b"\n" == line:
            found = position
        position = stop
    if found is None:
        # Prompts are never cut, so the line is there unless the file changed: the turn's byte
        # distance from the end is kept (records after it may have been shortened, so this is late).
        found = offsets.complete_end(native, max(start, consumed - (int(legacy.get("view_size", 0)) - turn)))
    return found
