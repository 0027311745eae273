"""Frames: where a view's body starts and where it ends, in lines as the CLI counts them, and the
offsets the CLI hands back clamped to them (translated to bytes for agents whose parsers count bytes)."""

from __future__ import annotations

from entire_core.views.format import BYTES, LINES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.types import TokenUsage


class Frame:
    """A view's body start (line), its end (lines, as the CLI counts them) and where old offsets resume.

    For agents whose parsers count bytes (``unit = "bytes"``) it also translates lines to bytes.
    """

    __slots__ = ("body", "cut", "end", "resume", "starts")

    def __init__(
        self,
        body: int = 0,
        end: int | None = None,
        resume: int | None = None,
        starts: Any = None,
        cut: dict[str, Any] | None = None,
    ) -> None:
        self.body = body
        self.end = end
        self.resume = resume
        self.starts = starts
        """A function of a line index to the byte it starts at, and its inverse (``_Starts``)."""
        self.cut = cut
        """What the marker carries of lines a re-base dropped: ``{"from", "tokens", "total"}``."""

    def carried(self, offset: int, *, total: bool = False) -> TokenUsage | None:
        """The usage of dropped lines an ``--offset`` counts from: the CLI's stored start, cut away since."""
        if self.cut is None or offset >= self.body or offset > int(self.cut["from"]):
            return None
        from entire_core.types import TokenUsage

        return TokenUsage.from_wire(self.cut["total" if total else "tokens"])

    def line(self, offset: int) -> int:
        """The line an ``--offset`` means: one inside the header is the body's start, one past the end the end."""
        if offset < self.body:
            return self.body
        if self.end is not None and offset > self.end:
            return (
                self.resume if self.resume is not None and self.body <= self.resume <= self.end else self.end
            )
        return offset

    def local(self, offset: int) -> int:
        """The agent's own position for an ``--offset`` (a line, or its byte for a bytes agent)."""
        line = self.line(offset)
        return self.starts.byte_of(line) if self.starts is not None else line

    def position(self, local: int) -> int:
        """The line position of the agent's own position ``local``."""
        return self.starts.line_of(local) if self.starts is not None else local


class _Starts:
    """Line starts of view bytes (or a view file), for agents whose parsers count bytes."""

    __slots__ = ("data", "path")

    def __init__(self, data: bytes | None = None, path: str | None = None) -> None:
        self.data = data
        self.path = path

    def _bytes(self) -> bytes:
        if self.data is None:
            try:
                with open(self.path or "", "rb") as f:
                    self.data = f.read()
            except OSError:
                self.data = b""
        return self.data

    def byte_of(self, line: int) -> int:
        data = self._bytes()
        position = 0
        for _ in range(line):
            newline = data.find(b"\n", position)
            if newline < 0:
                return position
            position = newline + 1
        return position

    def line_of(self, byte: int) -> int:
        return self._bytes().count(b"\n", 0, byte)


def host_lines(data: bytes) -> int:
    """How many lines the CLI counts in ``data``: split on ``\\n``, trailing blank lines dropped."""
    parts = data.split(b"\n")
    while parts and not parts[-1].strip():  # Go's TrimSpace: a line of spaces is blank too
        parts.pop()
    return len(parts)


def frame_of(data: bytes, unit: str = LINES, lines: int = 0) -> Frame:
    """The frame of view bytes (the stdin of ``calculate-tokens``); no marker means no header (and no end:
    an offset past it is the agent's to read). ``lines`` is ignored (v1 looked for a tag in that many first lines).
    """
    from entire_core.views.wire import MARKER_PREFIX, head_lines_of, marker_values

    body = head_lines_of(data)
    resume = cut = None
    if body:
        at = data.find(MARKER_PREFIX)
        end = data.find(b"\n", at)
        values = marker_values(data[at : len(data) if end < 0 else end].rstrip(b"\r"))
        if values is not None:
            resume, cut = values[1], values[2]
    # Bytes without a header are the agent's own file: its own reading of a stale offset applies.
    end = host_lines(data) if body else None
    return Frame(body, end, resume, _Starts(data=data) if unit == BYTES else None, cut)


def file_starts(path: str, unit: str) -> _Starts | None:
    """Line starts of a file for a bytes agent (None for a lines one): its offsets are lines on the wire."""
    return _Starts(path=path) if unit == BYTES else None


def frame_of_file(path: str, unit: str = LINES) -> Frame:
    """The frame of a view file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return Frame()
    return frame_of(data, unit)
