"""A view's header: exactly K lines that stand for the K lines they replace.

``[the first line][blank padding][the marker][snapshot records]``: the records are the agent's own
restatement of what came before (``ViewFormat.snapshot``), as many of the last ones as fit (after the
format's leading ones, ``snapshot_keep_first``), wrapped for a wrapped format.
"""

from __future__ import annotations

from entire_core.views.format import MIN_BUDGET, NATIVE
from entire_core.views.wire import marker, wrap

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from entire_core.views.format import Budget, ViewFormat

_BLOCK = 1 << 20


def snapshot_of(fmt: ViewFormat, path: str, end: int, limit: int) -> list[bytes]:
    """``fmt.snapshot(path, end, limit)``: the format's native records restating ``path[:end]``."""
    return fmt.snapshot(path, end, limit)


class Headers:
    """Makes the headers of one view: its format's snapshot records within ``room`` bytes, laid out in lines."""

    def __init__(self, fmt: ViewFormat, budget: Budget, view: str, owner: str) -> None:
        self.fmt = fmt
        self.room = budget.snapshot_room
        """What the snapshot records may take."""
        self.scratch = view + ".native"
        """A file beside the view, for a session that starts inside the file given to the format."""
        self.owner = owner
        """The agent's name, for an error of its format."""

    def fitted(
        self,
        lines: int,
        first: bytes,
        records_for: Callable[[int], list[bytes]],
        *,
        wrapped_first: bool,
        lead: bool = False,
    ) -> list[bytes]:
        """The header of ``lines`` lines, its snapshot records asked of the format within the snapshot's
        room (``records_for(limit)``); asked again with less when wrapping took them past that room."""
        room = self.room
        header = self.laid_out(lines, first, records_for(room), wrapped_first=wrapped_first, lead=lead)
        size = sum(len(line) + 1 for line in header)
        if self.fmt.wrap and size > room:
            smaller = max(MIN_BUDGET // 4, room * room // size)
            header = self.laid_out(lines, first, records_for(smaller), wrapped_first=wrapped_first, lead=lead)
        return header

    def snapshot(
        self, path: str, start: int, end: int, first: bytes, limit: int, *, keep_first: bool = False
    ) -> list[bytes]:
        """The agent's snapshot records (native lines) restating ``path[start:end]``, its first line dropped
        (the header's first line) unless ``keep_first`` (a header that starts with ``LEAD``)."""
        if start:
            # The agent's snapshot reads a file that starts with the session: hand it one.
            _copy_range(path, start, end, self.scratch)
            try:
                return self.snapshot(self.scratch, 0, end - start, first, limit, keep_first=keep_first)
            finally:
                from entire_core import fsutil

                fsutil.remove_file(self.scratch)
        records = snapshot_of(self.fmt, path, end, limit)
        if not records or records[0].removesuffix(b"\r") != first.removesuffix(b"\r"):
            from entire_core.errors import AgentError

            raise AgentError(f"{self.owner}: the view snapshot does not start with the session header")
        return records if keep_first else records[1:]

    def laid_out(
        self, lines: int, first: bytes, records: list[bytes], *, wrapped_first: bool, lead: bool = False
    ) -> list[bytes]:
        """Exactly ``lines`` header lines: the first line, padding, the marker, the last snapshot records that fit.

        After ``LEAD`` (``lead``, ``first``) the session's first line is the snapshot's first record, kept
        whenever there is room for one record (``qwen --resume`` checks the session's first record).
        """
        room = lines - 2
        pinned: list[bytes] = []
        if lead and records and room > 0:
            pinned, records, room = records[:1], records[1:], room - 1
        if room <= 0:
            kept: list[bytes] = []
        elif room < len(records):  # the format's leading records that must stay, then the newest ones
            keep = min(self.fmt.snapshot_keep_first, room - 1)
            kept = records[:keep] + records[len(records) - (room - keep) :]
        else:
            kept = records
        kept = pinned + kept
        if self.fmt.wrap:
            if not wrapped_first:
                first = wrap(self.fmt, first, kind=NATIVE)
            kept = [wrap(self.fmt, r, kind=NATIVE) for r in kept]
        return [first] + [b""] * (lines - 2 - len(kept)) + [marker(lines)] + kept


def _copy_range(path: str, begin: int, end: int, target: str) -> None:
    with open(path, "rb") as src, open(target, "wb") as out:
        src.seek(begin)
        remaining = end - begin
        while remaining > 0:
            block = src.read(min(_BLOCK, remaining))
            if not block:
                break
            out.write(block)
            remaining -= len(block)
