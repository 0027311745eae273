"""Edit one marked block of lines in a text file (Aider's YAML), leaving every other byte alone.

The block runs from a line equal to ``begin`` to a line equal to ``end``; both must be whole-line
comments in the file's language. A new block is appended at the end of the file, or inserted before
the line the caller's ``place`` names (YAML's ``...`` document end marker: after it, the block would
be a second document). When the file did not end with a line break, one has to be added before an
appended block; the begin marker is then written as ``begin + NEWLINE_ADDED`` so that removing the
block also removes that line break and restores the file byte for byte.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Generator
from contextlib import contextmanager

from entire_core.config._files import ConfigDocument, delete_file, read_original, write_text
from entire_core.config._lock import locked
from entire_core.errors import ConfigError

NEWLINE_ADDED = " (newline added above)"
"""Suffix of a begin marker whose block was appended to a file that did not end with a line break."""

_LINES = re.compile(r"[^\n]*\n|[^\n]+")


class TextBlockDocument(ConfigDocument):
    """A file with a managed block: set ``block`` to the body text to install, or to None to remove."""

    def __init__(
        self,
        path: str,
        existed: bool,
        text: str,
        begin: str,
        end: str,
        place: Callable[[list[str]], int | None] | None = None,
    ) -> None:
        super().__init__(path, existed)
        self._begin, self._end = begin, end
        self._place = place
        self._lines = _LINES.findall(text)
        self._span = _find_block(self._lines, begin, end, path)
        self._newline = "\r\n" if "\r\n" in text else "\n"
        self.block = self._body_text() if self._span else None

    @property
    def text_outside(self) -> str:
        """The file's original text without the block (what removing the block would write)."""
        if self._span is None:
            return "".join(self._lines)
        first, last = self._span
        begin_line, before, after = self._lines[first], self._lines[:first], self._lines[last + 1 :]
        if begin_line.rstrip("\r\n") == self._begin + NEWLINE_ADDED and before and not after:
            # We added the line break that ends the line above, with the same style as the marker's.
            before[-1] = before[-1].removesuffix("\r\n" if begin_line.endswith("\r\n") else "\n")
        return "".join(before + after)

    def new_text(self) -> str:
        """The file's text with ``block`` installed, replaced or removed."""
        if self.block is None:
            return self.text_outside
        body = self.block.replace("\r\n", "\n")
        if body and not body.endswith("\n"):
            body += "\n"
        markers = {self._begin, self._begin + NEWLINE_ADDED, self._end}
        if {line.rstrip("\n") for line in _LINES.findall(body)} & markers:
            raise ConfigError(f"cannot write {self.path}: the block's text contains its own marker")
        body = body.replace("\n", self._newline)
        if self._span is not None:
            first, last = self._span
            return "".join(self._lines[: first + 1]) + body + "".join(self._lines[last:])
        block = self._begin + self._newline + body + self._end + self._newline
        at = self._place(list(self._lines)) if self._place is not None else None
        if at is not None and 0 <= at < len(self._lines):
            # The line before ``at`` ends with a line break (it is followed by a line), so removing
            # the block gives back the file as it was.
            return "".join(self._lines[:at]) + block + "".join(self._lines[at:])
        text = "".join(self._lines)
        begin = self._begin
        if text and not text.endswith("\n"):
            text += self._newline
            begin += NEWLINE_ADDED
        return text + begin + self._newline + body + self._end + self._newline

    def _body_text(self) -> str:
        assert self._span is not None
        first, last = self._span
        return "".join(self._lines[first + 1 : last]).replace("\r\n", "\n")


@contextmanager
def edit_text_block(
    path: str | os.PathLike[str],
    *,
    begin: str,
    end: str,
    validate: Callable[[str], None] | None = None,
    create: bool = True,
    place: Callable[[list[str]], int | None] | None = None,
) -> Generator[TextBlockDocument, None, None]:
    """Lock the file and yield its marked block; write the file back only if its text changed.

    ``validate`` receives the complete new text before anything is written (for example, to parse it
    as YAML) and raises ConfigError to refuse it. ``place`` receives the file's lines (each with its
    line break) and returns the index of the line a new block goes before, or None for the end.
    Misplaced or repeated markers are a ConfigError.
    """
    if begin == end or not begin or not end or "\n" in begin + end:
        raise ValueError("begin and end must be two different, non-empty single lines")
    name = os.fspath(path)
    with locked(name):
        original = read_original(name, create=create)
        doc = TextBlockDocument(name, original.existed, original.text, begin, end, place)
        yield doc

        if doc.deleted:
            if original.existed:
                delete_file(name)
            return
        text = doc.new_text()
        if text == original.text:
            return
        if validate is not None:
            validate(text)
        write_text(name, text, original, doc.before_write)


def _find_block(lines: list[str], begin: str, end: str, path: str) -> tuple[int, int] | None:
    """Indexes of the begin and end marker lines, or None when the file has no block."""
    content = [line.rstrip("\r\n") for line in lines]
    begins = [i for i, line in enumerate(content) if line in (begin, begin + NEWLINE_ADDED)]
    ends = [i for i, line in enumerate(content) if line == end]
    if not begins and not ends:
        return None
    if len(begins) > 1 or len(ends) > 1:
        raise ConfigError(f"{path}: the marker {begin if len(begins) > 1 else end!r} appears more than once")
    if not ends:
        raise ConfigError(f"{path}: {begin!r} has no matching {end!r}")
    if not begins or begins[0] > ends[0]:
        raise ConfigError(f"{path}: {end!r} has no {begin!r} before it")
    return begins[0], ends[0]
