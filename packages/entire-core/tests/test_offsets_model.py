"""Every reader of ``entire_core.offsets`` against an obviously right in-memory model, on every small file.

The readers work block by block, and their bugs hide at block edges: a newline that is a block's first
or last byte, a line that starts at index 1, a range of one byte. So each reader runs with tiny blocks
(1, 2 and 3 bytes) over every file of up to five bytes made of ``a``, ``\\n`` and ``\\r``, at every
offset, and must answer exactly what the model says.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from entire_core import offsets

ALPHABET = (b"a", b"\n", b"\r")
FILES = [b"".join(p) for n in range(6) for p in itertools.product(ALPHABET, repeat=n)]
BLOCKS = (1, 2, 3)


@pytest.fixture
def written(tmp_path: Path) -> Callable[[bytes], str]:
    path = tmp_path / "t"

    def write(data: bytes) -> str:
        path.write_bytes(data)
        return str(path)

    return write


def each_file(
    written: Callable[[bytes], str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[bytes, str, int]]:
    """Every small file, written, under every tiny block size."""
    for block in BLOCKS:
        monkeypatch.setattr(offsets, "_BLOCK", block)
        for data in FILES:
            yield data, written(data), block


# -- the model ---------------------------------------------------------------------------------------


def model_complete_end(data: bytes, before: int | None = None) -> int:
    end = len(data) if before is None else min(len(data), before)
    return data.rfind(b"\n", 0, end) + 1


def line_starts(data: bytes) -> list[int]:
    """Where each line starts, the partial last one included, and the end when the data ends in a newline."""
    return [0] + [i + 1 for i, byte in enumerate(data) if byte == 10]


def complete_lines(data: bytes, begin: int, end: int) -> list[tuple[int, bytes, int]]:
    """``(start, line without its newline, offset after it)`` for the complete lines in ``[begin, end)``."""
    found: list[tuple[int, bytes, int]] = []
    start = begin
    while (newline := data.find(b"\n", start, end)) >= 0:
        found.append((start, data[start:newline], newline + 1))
        start = newline + 1
    return found


def crlf(line: bytes) -> bytes:
    return line[:-1] if line.endswith(b"\r") else line


# -- the readers -------------------------------------------------------------------------------------


def test_complete_end(written: Callable[[bytes], str], monkeypatch: pytest.MonkeyPatch) -> None:
    for data, path, block in each_file(written, monkeypatch):
        assert offsets.complete_end(path) == model_complete_end(data), (data, block)
        for before in range(len(data) + 2):
            assert offsets.complete_end(path, before) == model_complete_end(data, before), (
                data,
                block,
                before,
            )


def test_line_start_after(written: Callable[[bytes], str], monkeypatch: pytest.MonkeyPatch) -> None:
    for data, path, block in each_file(written, monkeypatch):
        for offset in range(-1, len(data) + 1):
            later = [s for s in line_starts(data) if s >= offset]
            expected = later[0] if later and offset > 0 else (0 if offset <= 0 else len(data))
            assert offsets.line_start_after(path, offset) == expected, (data, block, offset)


ACCEPTS: dict[str, Callable[[bytes], bool] | None] = {
    "any": None,
    "short": lambda line: len(line) < 2,
    "exactly a": lambda line: line == b"a",
    "none": lambda line: False,
}
"""What the caller takes of a line holding the needle: rejections send the search further back."""


@pytest.mark.parametrize("needle", [b"a", b"aa", b"\r"])
@pytest.mark.parametrize("accept", ACCEPTS, ids=str)
def test_last_line_with(
    written: Callable[[bytes], str], monkeypatch: pytest.MonkeyPatch, needle: bytes, accept: str
) -> None:
    takes = ACCEPTS[accept]
    for data, path, block in each_file(written, monkeypatch):
        starts = line_starts(data)
        for stop, end in itertools.combinations_with_replacement(starts, 2):
            lines = complete_lines(data, stop, end)
            holding = [start for start, line, _ in lines if needle in line and (takes is None or takes(line))]
            expected = holding[-1] if holding else None
            assert offsets.last_line_with(path, needle, end, stop, takes) == expected, (
                data,
                block,
                stop,
                end,
            )


class Marking:
    """A cutter that keeps every byte and marks the line it was used for."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def feed(self, data: bytes) -> None:
        self.parts.append(data)

    def result(self) -> bytes:
        return b"<" + b"".join(self.parts) + b">"


def test_lines_between(written: Callable[[bytes], str], monkeypatch: pytest.MonkeyPatch) -> None:
    for data, path, block in each_file(written, monkeypatch):
        starts = line_starts(data)
        for begin, end in itertools.combinations_with_replacement(starts, 2):
            expected = [(line, after) for _, line, after in complete_lines(data, begin, end)]
            assert list(offsets.lines_between(path, begin, end)) == expected, (data, block, begin, end)
            # A cutter without ``huge``, or ``huge`` without a cutter, changes nothing.
            assert list(offsets.lines_between(path, begin, end, cutter=Marking)) == expected
            assert list(offsets.lines_between(path, begin, end, huge=block)) == expected
            # Lines longer than ``huge`` (at least a block, so that they span blocks) go through the cutter.
            cut = [(b"<" + line + b">" if len(line) > block else line, after) for line, after in expected]
            assert list(offsets.lines_between(path, begin, end, huge=block, cutter=Marking)) == cut, (
                data, block, begin, end,
            )  # fmt: skip


@pytest.mark.parametrize("restart", [False, True])
def test_line_reader(written: Callable[[bytes], str], monkeypatch: pytest.MonkeyPatch, restart: bool) -> None:
    for data, path, block in each_file(written, monkeypatch):
        for offset in range(-1, len(data) + 2):
            start = max(0, offset)
            at_line_start = start == 0 or (start <= len(data) and data[start - 1 : start] == b"\n")
            if not at_line_start and restart:
                start = 0
            lines = [crlf(line) for _, line, _ in complete_lines(data, start, len(data))]
            if not at_line_start and not restart:
                lines = []
            reader = offsets.LineReader(path, offset, restart=restart)
            assert (list(reader), reader.offset, reader.reset) == (lines, model_complete_end(data), not at_line_start), (
                data, block, offset,
            )  # fmt: skip


def test_lines_after() -> None:
    for data in FILES:
        end = model_complete_end(data)
        for offset in range(len(data) + 2):
            inside = offset > 0 and data[offset - 1 : offset] != b"\n"
            expected = (
                []
                if offset >= end or inside
                else [crlf(line) for _, line, _ in complete_lines(data, offset, end)]
            )
            assert offsets.lines_after(data, offset) == expected, (data, offset)


def test_reverse_lines(written: Callable[[bytes], str], monkeypatch: pytest.MonkeyPatch) -> None:
    for data, path, block in each_file(written, monkeypatch):
        lines = [crlf(line) for _, line, _ in complete_lines(data, 0, len(data)) if line.strip()]
        assert list(offsets.reverse_lines(path, block)) == lines[::-1], (data, block)


def test_count_lines(written: Callable[[bytes], str], monkeypatch: pytest.MonkeyPatch) -> None:
    for data, path, block in each_file(written, monkeypatch):
        assert offsets.count_lines(path) == (data.count(b"\n"), model_complete_end(data)), (data, block)


def test_a_file_that_grows_while_it_is_read_is_read_to_its_size_when_reading_began(
    written: Callable[[bytes], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(offsets, "_BLOCK", 2)
    path = written(b"a\nb\n")
    reader = offsets.LineReader(path, 0)
    seen: list[bytes] = []
    for line in reader:
        seen.append(line)
        with open(path, "ab") as f:
            f.write(b"more\n")
    assert (seen, reader.offset) == ([b"a", b"b"], 4)


def test_a_file_that_grows_while_it_is_read_from_an_offset_is_read_to_its_size_then(
    written: Callable[[bytes], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(offsets, "_BLOCK", 2)
    path = written(b"x\na\nb\n")
    reader = offsets.LineReader(path, 2)
    seen: list[bytes] = []
    for line in reader:
        seen.append(line)
        with open(path, "ab") as f:
            f.write(b"m\n")  # as long as the offset: a reader that read offset + size bytes would yield it
    assert (seen, reader.offset) == ([b"a", b"b"], 6)


def test_a_file_cut_short_while_it_is_read_ends_the_reading(
    written: Callable[[bytes], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the reader's buffer, a read that finds the end early stops instead of looping."""
    monkeypatch.setattr(offsets, "_BLOCK", 2)
    lines = [b"line %05d" % n for n in range(4000)]
    path = written(b"".join(line + b"\n" for line in lines))
    reader = offsets.LineReader(path, 0)
    seen: list[bytes] = []
    for line in reader:
        if not seen:
            with open(path, "r+b") as f:
                f.truncate(11)
        seen.append(line)
    assert 1 <= len(seen) < len(lines) and seen == lines[: len(seen)]
    assert reader.offset == 11 * len(seen)


def test_the_defaults_read_the_whole_file_backwards_and_never_restart(
    written: Callable[[bytes], str],
) -> None:
    path = written(b"a\nb\nc\n")
    assert list(offsets.reverse_lines(path)) == [b"c", b"b", b"a"]
    reader = offsets.LineReader(path, 1)  # inside a line: the file was rewritten
    assert (list(reader), reader.offset, reader.reset) == ([], 6, True)
    assert offsets.read_lines(path, 1) == ([], 6)
