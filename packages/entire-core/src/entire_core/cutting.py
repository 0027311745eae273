"""Cutting a transcript record down to size, with a visible marker that says what was cut.

For ``entire_core.views``: an agent's ``ViewFormat.shorten`` cuts the bulk of an oversized record
(``cut_text`` on a string, ``shorten_json`` on a JSON record, sparing what ``protected`` names), and
core cuts a record too large to hold while it is still being read (``StringCutter`` for JSON, whose
long strings lose their middle, ``TextCutter`` for a line of text). A cut never splits an escape
sequence, an escaped surrogate pair or a UTF-8 character, so what was valid stays valid.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MARKER = (
    "[entire: {cut} of {total} bytes cut here to keep the transcript within the Entire CLI's 10 MiB limit]"
)
MIN_KEEP = 256


def cut_text(text: str, keep: int) -> str:
    """``text`` shortened to about ``keep`` characters: its start and its end, with a marker between."""
    keep = max(MIN_KEEP, keep)
    if len(text) <= keep:
        return text
    head = keep * 3 // 4
    tail = keep - head
    removed = text[head : len(text) - tail]
    cut = len(removed.encode("utf-8", "surrogatepass"))
    total = len(text.encode("utf-8", "surrogatepass"))
    return f"{text[:head]}\n{MARKER.format(cut=cut, total=total)}\n{text[len(text) - tail :]}"


Path = tuple["str | int", ...]


def shorten_json(record: bytes, limit: int, protected: Callable[[Path], bool]) -> bytes | None:
    """A JSON record with its largest unprotected strings cut (``cut_text``) until it fits ``limit``.

    ``protected(path)`` names the strings that must stay whole (a prompt, a patch); ``path`` holds the
    keys and list indexes from the record's root. None when the record is not JSON or nothing shrinks.
    """
    import json

    try:
        value = json.loads(record)
    except (ValueError, RecursionError):
        return None
    return shorten_value(value, len(record), limit, protected)


def shorten_value(
    value: Any, size: int, limit: int, protected: Callable[[Path], bool], *, changed: bool = False
) -> bytes | None:
    """``shorten_json`` on a record already parsed (``size`` bytes as read; ``changed``: already altered)."""
    import json
    from typing import cast

    leaves: list[tuple[int, Any, Any]] = []

    def walk(node: Any, path: Path) -> None:
        if isinstance(node, dict):
            pairs = list(cast("dict[Any, Any]", node).items())
        elif isinstance(node, list):
            pairs = list(enumerate(cast("list[Any]", node)))
        else:
            return
        for key, child in pairs:
            where: Path = (*path, key)
            if isinstance(child, str):
                if len(child) > MIN_KEEP and not protected(where):
                    leaves.append((len(child), cast("Any", node), key))
            else:
                walk(child, where)

    walk(value, ())
    over = size - limit
    for length, node, key in sorted(leaves, key=lambda leaf: leaf[0], reverse=True):
        if over <= 0:
            break
        short = cut_text(node[key], length - over)
        if len(short) < length:
            node[key] = short
            over -= length - len(short)
            changed = True
    if not changed:
        return None
    out = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    return out if len(out) < size else None


class StringCutter:
    """Cuts every long JSON string of a record that arrives in pieces: memory is what is kept.

    ``feed`` the record's bytes in any pieces, then ``result``. Strings longer than ``keep`` bytes keep
    their start and end around a ``MARKER``; everything else is kept as it is, so a valid JSON record
    stays valid. For records too large to parse (a history restated in one record).
    """

    def __init__(self, keep: int) -> None:
        import re

        self.keep = max(MIN_KEEP, keep)
        self._special = re.compile(rb'["\\]')
        self._out: list[bytes] = []
        self._in_string = False
        self._escape = False
        self._content = bytearray()
        self._length = 0

    def feed(self, data: bytes) -> None:
        i, n = 0, len(data)
        while i < n:
            if not self._in_string:
                j = data.find(b'"', i)
                if j < 0:
                    self._out.append(data[i:])
                    return
                self._out.append(data[i : j + 1])
                self._in_string, self._length = True, 0
                self._content.clear()
                i = j + 1
                continue
            if self._escape:  # the byte after a backslash that ended the last piece
                self._take(data[i : i + 1])
                self._escape = False
                i += 1
                continue
            match = self._special.search(data, i)
            if match is None:
                self._take(data[i:])
                return
            j = match.start()
            if data[j] == 0x5C:  # a backslash: it and the byte it escapes are content
                self._take(data[i : j + 2])
                self._escape = j + 1 >= n
                i = j + 2
                continue
            self._take(data[i:j])
            self._close()
            i = j + 1

    def _take(self, piece: bytes) -> None:
        self._content += piece
        self._length += len(piece)
        if len(self._content) > 4 * self.keep:  # keep the start and the newest end only
            del self._content[self.keep : len(self._content) - self.keep]

    def _close(self) -> None:
        content = bytes(self._content)
        head = content[: _clean_cut(content, self.keep * 3 // 4)]
        tail = content[_clean_cut(content, len(content) - self.keep // 4, forward=True) :]
        note = MARKER.format(cut=self._length - len(head) - len(tail), total=self._length).encode()
        if self._length <= self.keep or len(head) + len(tail) + len(note) + 4 >= self._length:
            self._out += (content, b'"')  # whole (never longer than 4 * keep here): cutting saves nothing
        else:
            self._out += (head, b"\\n", note, b"\\n", tail, b'"')
        self._in_string = False
        self._content.clear()

    def result(self) -> bytes:
        """The record with its long strings cut (an unterminated string is closed as it stands)."""
        if self._in_string:
            self._close()
        return b"".join(self._out)


class TextCutter:
    """A line of text that arrives in pieces, cut to its start and end around a ``MARKER``."""

    def __init__(self, keep: int) -> None:
        self.keep = max(MIN_KEEP, keep)
        self._head = bytearray()
        self._tail = bytearray()
        self._length = 0

    def feed(self, data: bytes) -> None:
        self._length += len(data)
        room = self.keep * 3 // 4 - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        self._tail += data
        if len(self._tail) > 4 * self.keep:
            del self._tail[: len(self._tail) - self.keep // 4]

    def result(self) -> bytes:
        head, tail = bytes(self._head), bytes(self._tail[-(self.keep // 4) :])
        while head[-1:] and (head[-1] & 0xC0) == 0x80:  # not inside a UTF-8 character
            head = head[:-1]
        if head[-1:] and head[-1] >= 0xC0:
            head = head[:-1]
        while tail[:1] and (tail[0] & 0xC0) == 0x80:
            tail = tail[1:]
        note = MARKER.format(cut=self._length - len(head) - len(tail), total=self._length).encode()
        return head + b" " + note + b" " + tail


def _surrogate_escape(six: bytes, second: bytes) -> bool:
    """Whether ``six`` is an escaped high (``second`` = 8-B) or low (C-F) surrogate, ``\\uDxxx``."""
    return (
        len(six) == 6
        and six[:2] == b"\\u"
        and six[2:3] in (b"d", b"D")
        and six[3:4] in second
        and six[3:4] != b""
    )


def _clean_cut(data: bytes, at: int, *, forward: bool = False) -> int:
    """``at`` moved off the middle of an escape sequence or a UTF-8 character (backwards, or ``forward``)."""
    step = 1 if forward else -1
    while 0 < at < len(data):
        backslashes = len(data[max(0, at - 6) : at]) - len(data[max(0, at - 6) : at].rstrip(b"\\"))
        unicode_escape = data.rfind(b"\\u", max(0, at - 5), at)
        if (data[at] & 0xC0) == 0x80 or backslashes % 2 or (unicode_escape >= 0 and at - unicode_escape < 6):
            at += step
            continue
        if _surrogate_escape(data[max(0, at - 6) : at], b"89abAB") or _surrogate_escape(
            data[at : at + 6], b"cdefCDEF"
        ):
            at += 6 * step  # not between the two halves of an escaped surrogate pair
            continue
        return at
    return max(0, min(at, len(data)))
