"""Reading Aider's chat history (``.aider.chat.history.md``): bytes, lines or a file range to ``History``.

What the analyzers ask of it (prompts, modified files) is answered here too. The line grammar is in
``entire_agent_aider.markdown``, sessions and turns in ``entire_agent_aider.parser``. Offsets are
byte offsets into the history file (``parse``, ``parse_range``: the lifecycle reads Aider's own file)
or line indices (``parse_lines``: a view, whose positions the CLI counts in lines). Used by
``parse-hook``: standard library only.
"""

from __future__ import annotations

from entire_agent_aider.parser import History, Parser, add_once

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import BinaryIO


def iter_lines(data: bytes, start: int = 0) -> list[tuple[str, int, int]]:
    """The complete lines of ``data`` from ``start``: text without line break, start and end offsets."""
    out: list[tuple[str, int, int]] = []
    pos = start
    size = len(data)
    while pos < size:
        newline = data.find(b"\n", pos)
        if newline < 0:
            break
        raw = data[pos:newline]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        out.append((raw.decode("utf-8", "replace"), pos, newline + 1))
        pos = newline + 1
    return out


def parse(data: bytes, start: int = 0) -> History:
    """Parse the complete lines of ``data`` from byte ``start`` (a line start); a cut final line is left.

    Offsets in the result are exact byte offsets into ``data``, whatever its line endings.
    """
    parser = Parser(start)
    for line, offset, end in iter_lines(data, start):
        parser.feed(line, offset, end)
    return parser.finish()


def parse_lines(lines: Iterable[bytes]) -> History:
    """Parse complete lines given without their line breaks (a view's, ``view.view_lines``).

    Offsets in the result are line indices: line N of ``lines`` spans ``[N, N + 1)``, as the Entire
    CLI counts a view's lines.
    """
    parser = Parser()
    for index, raw in enumerate(lines):
        parser.feed(raw.decode("utf-8", "replace"), index, index + 1)
    return parser.finish()


LONG_LINE = 1 << 16
"""A line longer than this is parsed from its start and its last bytes (``parse_range``)."""
_TAIL = 16


def parse_range(f: BinaryIO, begin: int, stop: int, *, block: int = 1 << 20) -> tuple[History, int]:
    """Parse the complete lines of the open file ``f`` in ``[begin, stop)``, reading block by block.

    Returns the history (offsets from ``begin``, exact bytes) and where the last complete line ends.
    Memory stays bounded whatever a line's size: a line longer than ``LONG_LINE`` (a 20 MB tool output)
    is fed as its first ``LONG_LINE`` bytes and its last few, which is all the lifecycle reads of it
    (a tool line's kind is its start, its end says whether the tool message goes on). User lines
    (``####``) are kept whole: prompts are never cut.
    """
    parser = Parser(0)
    f.seek(begin)
    remaining = stop - begin
    base = 0  # offset of the current block from ``begin``
    start = 0  # offset of the current line
    head = bytearray()
    tail = b""
    cut = False
    while remaining > 0:
        chunk = f.read(min(block, remaining))
        if not chunk:
            break
        remaining -= len(chunk)
        at = 0
        view = memoryview(chunk)
        while True:
            newline = chunk.find(b"\n", at)
            piece = view[at : newline if newline >= 0 else len(chunk)]
            if cut:
                tail = (tail + bytes(piece[-_TAIL:]))[-_TAIL:]
            elif len(head) + len(piece) <= LONG_LINE or (bytes(head[:4]) + bytes(piece[:4]))[:4] == b"####":
                head += piece
            else:
                tail = (bytes(head[-_TAIL:]) + bytes(piece[-_TAIL:]))[-_TAIL:]
                head += piece[: LONG_LINE - len(head)]
                cut = True
            if newline < 0:
                break
            raw = bytes(head) + b" [...] " + tail if cut else bytes(head)
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            end = base + newline + 1
            parser.feed(raw.decode("utf-8", "replace"), start, end)
            start, at = end, newline + 1
            head.clear()
            tail, cut = b"", False
        base += len(chunk)
    return parser.finish(), start


def complete_end(data: bytes) -> int:
    """The offset just after the last line break of ``data``."""
    return data.rfind(b"\n") + 1


def prompts(history: History) -> list[str]:
    """What the user asked the model, oldest first: local commands and architect echoes left out."""
    return [turn.prompt for turn in history.turns() if turn.is_llm]


def modified_files(history: History) -> list[str]:
    """Every ``Applied edit to`` path (and file created at launch), first occurrence order."""
    files: list[str] = []
    for session in history.sessions:
        for path in session.files_created:
            add_once(files, path)
        for turn in session.turns:
            for path in turn.files:
                add_once(files, path)
    return files
