"""Incremental reading of append-only files (JSONL transcripts, chat logs) by byte offset.

An offset is the byte position just after the last complete line already processed. Reading from
it costs the new bytes only, never the whole file, and a line still being written (no final
newline yet) is left for the next call.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import BinaryIO

_BLOCK = 1 << 20


def complete_end(path: str) -> int:
    """The offset just after the last complete line of ``path``; 0 for a missing file."""
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below; a context manager costs nothing here either
    except (FileNotFoundError, NotADirectoryError):
        return 0
    with f:
        size = os.fstat(f.fileno()).st_size
        end = size
        while end > 0:
            start = max(0, end - _BLOCK)
            f.seek(start)
            block = f.read(end - start)
            newline = block.rfind(b"\n")
            if newline >= 0:
                return start + newline + 1
            end = start
        return 0


class LineReader:
    """Iterate the complete lines of ``path`` after ``offset``; ``offset`` then says where reading stopped.

    Lines are yielded without their ``\\n`` (and without a ``\\r`` before it). An offset past the end
    of the file, or one that does not sit just after a newline, means the file was truncated or
    replaced: with ``restart=True`` reading starts again from 0 (``reset`` is then True), otherwise
    nothing is yielded and ``offset`` moves to the end of the current complete lines.
    """

    def __init__(self, path: str, offset: int, *, restart: bool = False) -> None:
        self.path = path
        self.start = max(0, offset)
        self.offset = self.start
        self.reset = False
        self._restart = restart

    def __iter__(self) -> Iterator[bytes]:
        try:
            f = open(self.path, "rb")  # noqa: SIM115
        except (FileNotFoundError, NotADirectoryError):
            self.offset = 0
            return
        with f:
            size = os.fstat(f.fileno()).st_size
            if not self._at_line_start(f, size):
                self.reset = True
                if not self._restart:
                    self.offset = complete_end(self.path)
                    return
                self.start = self.offset = 0
            f.seek(self.start)
            position, remaining, pending = self.start, size - self.start, b""
            while remaining > 0:
                block = f.read(min(_BLOCK, remaining))
                if not block:
                    break
                remaining -= len(block)
                data = pending + block
                last = data.rfind(b"\n")
                if last < 0:
                    pending = data
                    continue
                pending = data[last + 1 :]
                for line in data[:last].split(b"\n"):
                    position += len(line) + 1
                    self.offset = position
                    yield line[:-1] if line.endswith(b"\r") else line

    def _at_line_start(self, f: BinaryIO, size: int) -> bool:
        if self.start == 0:
            return True
        if self.start > size:
            return False
        f.seek(self.start - 1)
        return f.read(1) == b"\n"


def read_lines(path: str, offset: int, *, restart: bool = False) -> tuple[list[bytes], int]:
    """All complete lines after ``offset`` and the new offset (see ``LineReader``)."""
    reader = LineReader(path, offset, restart=restart)
    lines = list(reader)
    return lines, reader.offset
