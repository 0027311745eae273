"""Incremental reading of append-only files (JSONL transcripts, chat logs) by byte offset.

An offset is the byte position just after the last complete line already processed. Reading from
it costs the new bytes only, never the whole file, and a line still being written (no final
newline yet) is left for the next call.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, BinaryIO

_BLOCK = 1 << 20


def lines_of(data: bytes) -> list[bytes]:
    """The complete lines of ``data`` (a last line without its newline is still being written)."""
    return data.split(b"\n")[:-1]


def complete_end(path: str, before: int | None = None) -> int:
    """The offset just after the last complete line of ``path`` (of its first ``before`` bytes); 0 for a missing file.

    With ``before``, that is the start of the line holding byte ``before``.
    """
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below; a context manager costs nothing here either
    except (FileNotFoundError, NotADirectoryError):
        return 0
    with f:
        size = os.fstat(f.fileno()).st_size
        end = size if before is None else min(size, before)
        while end > 0:
            start = max(0, end - _BLOCK)
            f.seek(start)
            block = f.read(end - start)
            newline = block.rfind(b"\n")
            if newline >= 0:
                return start + newline + 1
            end = start
        return 0


def line_start_after(path: str, offset: int) -> int:
    """The first line start at or after ``offset`` (the end of the file when no line starts there)."""
    if offset <= 0:
        return 0
    with open(path, "rb") as f:
        f.seek(offset - 1)
        position = offset - 1
        while block := f.read(_BLOCK):
            newline = block.find(b"\n")
            if newline >= 0:
                return position + newline + 1
            position += len(block)
        return position


def last_line_with(
    path: str, needle: bytes, end: int, stop: int, accept: Callable[[bytes], bool] | None = None
) -> int | None:
    """The start of the last complete line before ``end`` that holds ``needle`` (and that ``accept``
    takes), read backwards, never before ``stop`` (a line start); None when there is none."""
    with open(path, "rb") as f:
        position, carry = end, b""
        while position > stop:
            start = max(stop, position - _BLOCK)
            f.seek(start)
            block = f.read(position - start) + carry  # carry: the start of a line read before
            at = block.rfind(needle)
            while at >= 0:
                line_start = block.rfind(b"\n", 0, at) + 1
                if line_start > 0 or start == stop:
                    line_end = block.find(b"\n", at)
                    if line_end >= 0 and (accept is None or accept(block[line_start:line_end])):
                        return start + line_start
                at = block.rfind(needle, 0, line_start - 1) if line_start > 0 else -1
            newline = block.find(b"\n")
            carry = block[: newline + 1] if newline >= 0 else block
            position = start
    return None


def lines_between(
    path: str, begin: int, end: int, *, huge: int = 0, cutter: Callable[[], Any] | None = None
) -> Iterator[tuple[bytes, int]]:
    """Each complete line of ``path`` in ``[begin, end)`` without its newline, and the offset after it.

    A line longer than a block is gathered in pieces and joined once: memory is the line, not more.
    A line longer than ``huge`` is streamed through a ``cutter`` (``feed``, ``result``; see
    ``entire_core.cutting``) instead: memory is what it keeps.
    """
    with open(path, "rb") as f:
        f.seek(begin)
        block_start, remaining = begin, end - begin
        parts: list[bytes] = []
        gathered = 0
        stream: Any = None
        while remaining > 0:
            block = f.read(min(_BLOCK, remaining))
            if not block:
                return
            remaining -= len(block)
            cut = 0
            while True:
                newline = block.find(b"\n", cut)
                piece = block[cut:] if newline < 0 else block[cut:newline]
                if stream is not None:
                    stream.feed(piece)
                elif newline < 0 or parts:
                    parts.append(piece)
                    gathered += len(piece)
                    if huge and cutter is not None and gathered > huge:
                        stream = cutter()
                        for part in parts:
                            stream.feed(part)
                        parts.clear()
                if newline < 0:
                    break
                if stream is not None:
                    line = stream.result()
                    stream = None
                elif parts:
                    line = b"".join(parts)
                    parts.clear()
                else:
                    line = piece
                gathered = 0
                yield line, block_start + newline + 1
                cut = newline + 1
            block_start += len(block)


def count_newlines(path: str, begin: int, end: int) -> int:
    """How many newlines ``path`` has in ``[begin, end)`` (how many lines end there), block by block."""
    count = 0
    with open(path, "rb") as f:
        f.seek(begin)
        remaining = end - begin
        while remaining > 0:
            block = f.read(min(_BLOCK, remaining))
            if not block:
                break
            remaining -= len(block)
            count += block.count(b"\n")
    return count


def line_start_in(path: str, begin: int, lines: int) -> int:
    """The byte at which line ``lines`` (0-based, counted from byte ``begin``) of ``path`` starts; the
    end of the file when it has fewer lines. The file counterpart of ``line_start``."""
    if lines <= 0:
        return begin
    with open(path, "rb") as f:
        after = _after_lines(f, begin, lines)
        return after if after is not None else f.tell()


def line_at(path: str, start: int) -> bytes | None:
    """The complete line at byte ``start``, newline included; None when there is none within 64 MiB."""
    try:
        with open(path, "rb") as f:
            f.seek(start)
            line = f.readline(1 << 26)
    except OSError:
        return None
    return line if line.endswith(b"\n") else None


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


def lines_after(data: bytes, offset: int) -> list[bytes]:
    """Complete lines of in-memory ``data`` after byte ``offset`` (the stdin of calculate-tokens).

    As with ``LineReader``, an offset past the end or inside a line means the transcript was replaced
    since the offset was taken, and gives no lines; a final line without its newline is left out.
    """
    end = data.rfind(b"\n") + 1
    if offset >= end or (offset > 0 and data[offset - 1 : offset] != b"\n"):
        return []
    return [line[:-1] if line.endswith(b"\r") else line for line in data[offset : end - 1].split(b"\n")]


def reverse_lines(path: str, block: int = 1 << 16) -> Iterator[bytes]:
    """The complete lines of ``path`` from the last to the first, reading backwards from the end.

    Finding a session's last assistant message costs the last few lines, not the whole file. Empty
    lines are skipped; a missing file yields nothing.
    """
    try:
        f = open(path, "rb")  # noqa: SIM115 - kept open while the generator is iterated
    except (FileNotFoundError, NotADirectoryError):
        return
    with f:
        position = f.seek(0, os.SEEK_END)
        carry = b""  # the start of the earliest line seen so far; its beginning is further back
        complete = False  # False while still inside a last line that has no newline yet
        while position > 0:
            start = max(0, position - block)
            f.seek(start)
            chunk = f.read(position - start) + carry
            position = start
            if not complete:
                cut = chunk.rfind(b"\n")
                if cut < 0:
                    carry = chunk
                    continue
                chunk, complete = chunk[:cut], True
            parts = chunk.split(b"\n")
            carry = parts[0]
            for line in reversed(parts[1:]):
                if line.strip():
                    yield line[:-1] if line.endswith(b"\r") else line
        if complete and carry.strip():
            yield carry[:-1] if carry.endswith(b"\r") else carry


def line_start(data: bytes, lines: int) -> int:
    """The byte at which line ``lines`` (0-based) of ``data`` starts; the length of ``data`` past its end.

    For agents whose positions are line counts reading bytes (``calculate-tokens``' stdin).
    """
    position = 0
    for _ in range(max(0, lines)):
        newline = data.find(b"\n", position)
        if newline < 0:
            return len(data)
        position = newline + 1
    return position


def read_all(path: str) -> bytes:
    """The bytes of ``path``; none for a file that is not there (yet), or a folder."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return b""


def lines_from(path: str, start: int) -> tuple[list[bytes], int]:
    """The complete lines of ``path`` from line ``start`` on (without newlines), and how many it has in all."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return [], 0
    lines = data.split(b"\n")
    lines.pop()  # what follows the last newline: not a complete line
    return [line.removesuffix(b"\r") for line in lines[max(0, start) :]], len(lines)


def count_lines(path: str) -> tuple[int, int]:
    """How many complete lines ``path`` has, and the byte offset just after the last of them.

    For agents whose offsets are line counts: counting newlines block by block runs at memory speed,
    far cheaper than splitting or parsing the lines. A missing file has none.
    """
    lines = end = position = 0
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return 0, 0
    with f:
        while block := f.read(_BLOCK):
            found = block.count(b"\n")
            if found:
                lines += found
                end = position + block.rfind(b"\n") + 1
            position += len(block)
    return lines, end


def _after_lines(f: BinaryIO, begin: int, lines: int) -> int | None:
    """The byte after the ``lines``-th newline of the open file ``f`` from ``begin``; None when it has fewer."""
    position = begin
    if lines <= 0:
        return position
    f.seek(begin)
    while block := f.read(_BLOCK):
        found = block.count(b"\n")
        if found < lines:
            lines -= found
            position += len(block)
            continue
        at = -1
        for _ in range(lines):
            at = block.find(b"\n", at + 1)
        return position + at + 1
    return None


class LinePositions:
    """Where a line count falls in a file, remembered across processes in a small JSON file.

    A plugin whose offsets count lines can only skip to an offset by counting the newlines before it.
    A mark a writing subcommand left (``remember``) lets a later call start counting there instead of
    at the start of the file; the reading subcommands only look (``line_end``), and so change no file
    (issue 37). A mark is trusted only while the file is the same one (device and inode), long enough,
    and has a newline just before its byte.
    """

    KEEP = 16

    def __init__(self, store: str) -> None:
        self.store = store

    def _load(self) -> dict[str, object]:
        from entire_core import _json

        try:
            with open(self.store, "rb") as f:
                value = _json.loads(f.read())
        except (OSError, ValueError):
            return {}
        return value if isinstance(value, dict) else {}  # pyright: ignore[reportUnknownVariableType]

    def _nearest(self, f: BinaryIO, path: str, lines: int) -> tuple[int, int]:
        """The trusted mark of the open file ``f`` (named ``path``) nearest at or before ``lines``; (0, 0) if none."""
        from entire_core import jsonvalues

        entry = jsonvalues.obj(self._load().get(os.path.realpath(path)))
        st = os.fstat(f.fileno())
        if [st.st_dev, st.st_ino] != entry.get("file"):
            return 0, 0
        marks = {jsonvalues.integer(m[0]): jsonvalues.integer(m[1]) for m in jsonvalues.array(entry.get("marks"))
                 if len(jsonvalues.array(m)) == 2}  # fmt: skip
        for known in sorted((n for n in marks if 0 < n <= lines), reverse=True):
            byte = marks[known]
            if 0 < byte <= st.st_size:
                f.seek(byte - 1)
                if f.read(1) == b"\n":
                    return known, byte
        return 0, 0

    def byte_of(self, path: str, lines: int) -> int | None:
        """The byte offset after the first ``lines`` complete lines of ``path``, if remembered and still true."""
        try:
            with open(path, "rb") as f:
                known, byte = self._nearest(f, path, lines)
        except OSError:
            return None
        return byte if known == lines else None  # line 0 ends at byte 0 of any file

    def line_end(self, path: str, lines: int) -> int | None:
        """The byte offset after the first ``lines`` complete lines of ``path``; None when it has fewer.

        Only reads: newlines are counted from the nearest trusted mark at or before ``lines`` (from the
        start of the file without one), block by block at memory speed, never parsed.
        """
        try:
            with open(path, "rb") as f:
                known, byte = self._nearest(f, path, lines)
                return _after_lines(f, byte, lines - known)
        except OSError:
            return None

    def remember(self, path: str, lines: int, byte: int) -> None:
        """Note that the first ``lines`` complete lines of ``path`` end at ``byte`` (best effort)."""
        from entire_core import jsonvalues

        try:
            st = os.stat(path)
        except OSError:
            return
        key = os.path.realpath(path)
        data = self._load()
        entry = jsonvalues.obj(data.get(key))
        same_file = entry.get("file") == [st.st_dev, st.st_ino]
        if same_file and jsonvalues.array(entry.get("marks"))[-1:] == [[lines, byte]]:
            return  # the newest mark already: no rewrite
        kept = [
            m
            for m in jsonvalues.array(entry.get("marks"))
            if same_file and jsonvalues.array(m)[:1] != [lines]
        ]
        data[key] = {"file": [st.st_dev, st.st_ino], "marks": [*kept[-(self.KEEP - 1) :], [lines, byte]]}
        from entire_core import _json  # only when there is something new to write
        from entire_core.scratch import write_hint

        # A cache: losing it costs a slower read, never a wrong one.
        write_hint(self.store, _json.dumps_state(data).encode("utf-8"))
