"""Edit JSON and JSONC files by minimal text edits, so comments, layout and number spellings survive.

The original text is parsed into a small concrete syntax tree that knows where every value, member
and comma is. On exit the old data is diffed against the new data and only the differing spans are
rewritten: changed scalars in place, removed members cut out with their comma, new members appended
after the last one in the sibling's indentation and the file's newline style. Adding and then
removing the same members gives back the original bytes.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Generator
from contextlib import contextmanager
from typing import Any, NamedTuple, cast

from entire_core.config._files import ConfigDocument, delete_file, read_original, write_text
from entire_core.config._lock import locked
from entire_core.errors import ConfigError

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS: tuple[tuple[str, Any], ...] = (("true", True), ("false", False), ("null", None))


class JsonDocument(ConfigDocument):
    """A JSON file being edited: mutate or replace ``data`` (plain dicts, lists and scalars)."""

    def __init__(self, path: str, existed: bool, data: Any) -> None:
        super().__init__(path, existed)
        self.data = data


@contextmanager
def edit_json(
    path: str | os.PathLike[str], *, comments: bool = False, create: bool = True
) -> Generator[JsonDocument, None, None]:
    """Lock and parse a JSON (or, with ``comments``, JSONC) file; write back only what changed.

    A missing file reads as ``{}`` when ``create`` is true. A file that does not parse raises
    ConfigError and is never written; so is a change that does not re-parse to the intended data.
    """
    name = os.fspath(path)
    with locked(name):
        original = read_original(name, create=create)
        parser = _Parser(original.text, comments)
        root: _Node | None = None
        if original.text.strip():
            try:
                root = parser.document()
            except ConfigError as exc:
                raise ConfigError(f"cannot parse {name}: {exc}") from None
        old: Any = root.value if root is not None else {}
        doc = JsonDocument(name, original.existed, copy.deepcopy(old))
        yield doc

        if doc.deleted:
            if original.existed:
                delete_file(name)
            return
        if _same(old, doc.data):
            return
        try:
            if root is None:
                text = json.dumps(doc.data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
            else:
                text = _Editor(original.text, root, parser.line_comment_ends).rewrite(doc.data)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"cannot write {name}: {exc}") from None
        try:
            written = parse_json_text(text, comments=comments)
        except ConfigError as exc:  # pragma: no cover - would be a bug in the editor
            raise ConfigError(f"cannot write {name}: the edit would not parse: {exc}") from None
        if not _same(written, doc.data):
            raise ConfigError(f"cannot write {name}: the data holds values JSON cannot represent")
        write_text(name, text, original)


def parse_json_text(text: str, *, comments: bool) -> Any:
    """Parse JSON (or JSONC when ``comments``) into plain data, exactly as ``edit_json`` reads files."""
    return _Parser(text.removeprefix("\ufeff"), comments).document().value


# ---------------------------------------------------------------------------------------------------
# Concrete syntax tree


class _Node:
    """A value and its span ``text[start:end]``; containers also know their entries and commas."""

    __slots__ = ("commas", "end", "entries", "kind", "start", "value")

    def __init__(self, start: int, end: int, value: Any, kind: str = "scalar") -> None:
        self.start, self.end, self.value = start, end, value
        self.kind = kind  # "scalar", "object" or "array"
        self.entries: list[_Entry] = []
        self.commas: list[int] = []  # commas[i] separates entries i and i + 1


class _Entry(NamedTuple):
    """An object member (``key`` set, ``start`` at the key) or an array element (``start`` at the value)."""

    start: int
    key: str | None
    key_end: int
    node: _Node


class _Parser:
    def __init__(self, text: str, comments: bool) -> None:
        self.text = text
        self.comments = comments
        self.pos = 0
        self.line_comment_ends: set[int] = set()

    def document(self) -> _Node:
        try:
            root = self._value()
        except RecursionError:
            raise self._error("nested too deeply") from None
        self._skip()
        if self.pos < len(self.text):
            raise self._error("unexpected text after the JSON value")
        return root

    def _error(self, message: str, pos: int | None = None) -> ConfigError:
        pos = self.pos if pos is None else pos
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return ConfigError(f"line {line}, column {column}: {message}")

    def _skip(self) -> None:
        """Skip whitespace and, in JSONC, comments."""
        while True:
            self.pos = _end_of_whitespace(self.text, self.pos)
            if not self.text.startswith(("//", "/*"), self.pos):
                return
            if not self.comments:
                raise self._error("comments are not allowed in this file")
            end = _comment_end(self.text, self.pos)
            if end < 0:
                raise self._error("unterminated comment")
            if self.text.startswith("//", self.pos):
                self.line_comment_ends.add(end)
            self.pos = end

    def _value(self) -> _Node:
        self._skip()
        start, text = self.pos, self.text
        char = text[start : start + 1]
        if char == "{":
            return self._container("}")
        if char == "[":
            return self._container("]")
        if char == '"':
            value, self.pos = self._string()
            return _Node(start, self.pos, value)
        number = _NUMBER.match(text, start)
        if number:
            self.pos = number.end()
            try:
                value = float(number[0]) if number[1] or number[2] else int(number[0])
            except ValueError:
                raise self._error("number too long", start) from None
            return _Node(start, self.pos, value)
        for literal, value in _LITERALS:
            if text.startswith(literal, start):
                self.pos = start + len(literal)
                return _Node(start, self.pos, value)
        raise self._error("expected a value" if char else "unexpected end of file")

    def _string(self) -> tuple[str, int]:
        try:
            value, end = _DECODER.raw_decode(self.text, self.pos)
        except json.JSONDecodeError as exc:
            raise self._error(exc.msg.removesuffix(" at").removesuffix(" starting"), exc.pos) from None
        return cast(str, value), end

    def _container(self, close: str) -> _Node:
        node = _Node(self.pos, -1, {}, "object") if close == "}" else _Node(self.pos, -1, [], "array")
        self.pos += 1
        self._skip()
        if not self.text.startswith(close, self.pos):
            while True:
                self._entry(node)
                self._skip()
                if not self.text.startswith(",", self.pos):
                    break
                node.commas.append(self.pos)
                self.pos += 1
                self._skip()
                if self.text.startswith(close, self.pos):
                    raise self._error("trailing comma", node.commas[-1])
            if not self.text.startswith(close, self.pos):
                raise self._error(f"expected ',' or '{close}'")
        self.pos += 1
        node.end = self.pos
        return node

    def _entry(self, node: _Node) -> None:
        start = self.pos
        if node.kind == "array":
            child = self._value()
            node.entries.append(_Entry(start, None, start, child))
            cast("list[Any]", node.value).append(child.value)
            return
        members = cast("dict[str, Any]", node.value)
        if not self.text.startswith('"', start):
            raise self._error("expected a string key")
        key, key_end = self._string()
        if key in members:
            raise self._error(f"duplicate key {json.dumps(key, ensure_ascii=False)}", start)
        self.pos = key_end
        self._skip()
        if not self.text.startswith(":", self.pos):
            raise self._error("expected ':'")
        self.pos += 1
        child = self._value()
        node.entries.append(_Entry(start, key, key_end, child))
        members[key] = child.value


_DECODER = json.JSONDecoder()


def _end_of_whitespace(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _start_of_whitespace(text: str, pos: int) -> int:
    while pos > 0 and text[pos - 1] in " \t\r\n":
        pos -= 1
    return pos


def _comment_end(text: str, pos: int) -> int:
    """End of the comment starting at ``pos`` (-1 if a block comment never ends)."""
    if text.startswith("//", pos):
        ends = [end for end in (text.find("\n", pos), text.find("\r", pos)) if end >= 0]
        return min(ends, default=len(text))
    end = text.find("*/", pos + 2)
    return end + 2 if end >= 0 else -1


def _line_indent(text: str, pos: int) -> str:
    """The spaces and tabs that start the line holding ``pos``."""
    line_start = text.rfind("\n", 0, pos) + 1
    return text[line_start : _indent_end(text, line_start, pos)]


def _indent_end(text: str, pos: int, limit: int) -> int:
    while pos < limit and text[pos] in " \t":
        pos += 1
    return pos


def _starts_line(text: str, pos: int) -> bool:
    line_start = text.rfind("\n", 0, pos) + 1
    return _indent_end(text, line_start, pos) == pos


# ---------------------------------------------------------------------------------------------------
# Minimal edits


class _Editor:
    """Collects ``(start, end, replacement)`` edits on the original text, then applies them in order."""

    def __init__(self, text: str, root: _Node, line_comment_ends: set[int]) -> None:
        self.text = text
        self.root = root
        self.line_comment_ends = line_comment_ends
        self.edits: list[tuple[int, int, str]] = []
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.unit, self.colon, self.comma = _detect_style(text, root)

    def rewrite(self, new: Any) -> str:
        self._diff(self.root, new, multiline=True)
        # A stable sort keeps insertions at one position in the order they were made, and puts an
        # insertion at p before a deletion that starts at p.
        out: list[str] = []
        pos = 0
        for start, end, replacement in sorted(self.edits, key=lambda edit: edit[:2]):
            assert start >= pos, "overlapping edits"
            out += [self.text[pos:start], replacement]
            pos = end
        out.append(self.text[pos:])
        return "".join(out)

    def _diff(self, node: _Node, new: Any, multiline: bool) -> None:
        if _same(node.value, new):
            return
        if node.kind == "object" and isinstance(new, dict):
            self._object(node, cast("dict[str, Any]", new), multiline)
        elif node.kind == "array" and isinstance(new, list):
            self._array(node, cast("list[Any]", new), multiline)
        else:
            rendered = self._render(new, _line_indent(self.text, node.start), multiline)
            self.edits.append((node.start, node.end, rendered))

    def _object(self, node: _Node, new: dict[str, Any], parent_multiline: bool) -> None:
        multiline = self._multiline(node, parent_multiline)
        removed: set[int] = set()
        for i, entry in enumerate(node.entries):
            if entry.key in new:
                self._diff(entry.node, new[entry.key], multiline)
            else:
                removed.add(i)
        old_keys = {entry.key for entry in node.entries}
        added: list[tuple[str | None, Any]] = [(k, v) for k, v in new.items() if k not in old_keys]
        self._splice(node, new, multiline, removed, {}, added)

    def _array(self, node: _Node, new: list[Any], parent_multiline: bool) -> None:
        """Keep the longest common subsequence; between two kept elements, pair old and new in order."""
        multiline = self._multiline(node, parent_multiline)
        old = node.entries
        removed: set[int] = set()
        inserted: dict[int, list[Any]] = {}
        appended: list[tuple[str | None, Any]] = []
        next_old = next_new = 0
        keys = [_canonical(entry.node.value) for entry in old], [_canonical(value) for value in new]
        for i, k in [*_common_subsequence(*keys), (len(old), len(new))]:
            paired = min(i - next_old, k - next_new)
            for offset in range(paired):
                self._diff(old[next_old + offset].node, new[next_new + offset], multiline)
            removed.update(range(next_old + paired, i))
            extra = new[next_new + paired : k]
            if extra and i < len(old):
                inserted[i] = extra
            elif extra:
                appended = [(None, value) for value in extra]
            next_old, next_new = i + 1, k + 1
        self._splice(node, new, multiline, removed, inserted, appended)

    def _splice(
        self,
        node: _Node,
        new: Any,
        multiline: bool,
        removed: set[int],
        inserted: dict[int, list[Any]],
        appended: list[tuple[str | None, Any]],
    ) -> None:
        """Cut the removed entries, insert new elements before kept ones, append new entries at the end."""
        text, entries, commas = self.text, node.entries, node.commas
        kept = [i for i in range(len(entries)) if i not in removed]
        last = kept[-1] if kept else -1
        last_comment = None if kept else self._last_comment_end(node)
        if not kept and last_comment is None:
            # Nothing of the user's is left inside: lay the whole container out afresh (`{}` when empty).
            rendered = self._render(new, _line_indent(text, node.start), multiline)
            self.edits.append((node.start, node.end, rendered))
            return

        for i in sorted(removed):
            entry = entries[i]
            if i < last:  # a later entry stays: take this one with its comma and the blanks after it
                self._cut(entry.start, _end_of_whitespace(text, commas[i] + 1))
                continue
            # Trailing: take the blanks before it, so comments between entries stay, and the comma before.
            self._cut(self._trailing_cut_start(node, i), entry.node.end)
            if i > 0 and not (i - 1 == last and appended):
                self._cut(commas[i - 1], commas[i - 1] + 1)

        for i, values in inserted.items():
            anchor = entries[i].start
            indent = _line_indent(text, anchor)
            gap = self.newline + indent if multiline and _starts_line(text, anchor) else self.comma[1:]
            rendered = "".join(self._render(value, indent, multiline) + "," + gap for value in values)
            self.edits.append((anchor, anchor, rendered))

        if not appended:
            return
        if last_comment is None:
            previous = entries[last]
            indent = _line_indent(text, previous.start)
            has_comma = last < len(entries) - 1  # the comma of a removed entry that followed it
            if not has_comma:
                self.edits.append((previous.node.end, previous.node.end, ","))
            if multiline:
                at, gap = self._line_tail(previous.node.end), self.newline + indent
            else:
                at, gap = commas[last] + 1 if has_comma else previous.node.end, self.comma[1:]
        else:  # only comments are left inside: add after the last one
            indent = _line_indent(text, node.start) + self.unit
            at, gap = last_comment, self.newline + indent
        rendered = [self._render_entry(key, value, indent, multiline) for key, value in appended]
        self.edits.append((at, at, gap + ("," + gap).join(rendered)))

    def _trailing_cut_start(self, node: _Node, i: int) -> int:
        """Start of the blanks before entry ``i``, but never the line break that ends a ``//`` comment
        when something stays after the entry on its line (it would become part of the comment)."""
        text, entry = self.text, node.entries[i]
        start = _start_of_whitespace(text, entry.start)
        if start not in self.line_comment_ends:
            return start
        after = _indent_end(text, entry.node.end, len(text))
        if i < len(node.commas):  # this entry's comma goes too
            after = _indent_end(text, after + 1, len(text))
        if after == len(text) or text[after] in "\r\n":
            return start
        return start + (2 if text.startswith("\r\n", start) else 1)

    def _cut(self, start: int, end: int) -> None:
        self.edits.append((start, end, ""))

    def _multiline(self, node: _Node, parent_multiline: bool) -> bool:
        """Whether new entries go on their own lines: yes if a line break precedes the last entry.

        An empty container follows its parent, so ``{}`` in a pretty-printed file opens up over lines.
        """
        if not node.entries:
            return parent_multiline
        return "\n" in self.text[node.start : node.entries[-1].start]

    def _line_tail(self, pos: int) -> int:
        """End of the comma and comments that follow ``pos`` on its line."""
        text, end = self.text, pos
        while True:
            pos = _indent_end(text, pos, len(text))
            if text.startswith(",", pos):
                pos += 1
            elif text.startswith(("//", "/*"), pos):
                pos = _comment_end(text, pos)
            else:
                return end
            end = pos

    def _last_comment_end(self, node: _Node) -> int | None:
        """End of the last comment between the entries of ``node`` (not inside them), if any."""
        starts = [entry.start for entry in node.entries] + [node.end - 1]
        ends = [node.start + 1] + [entry.node.end for entry in node.entries]
        last = None
        for pos, stop in zip(ends, starts, strict=True):
            while pos < stop:  # between entries there are only blanks, commas and comments
                if self.text.startswith(("//", "/*"), pos):
                    pos = last = _comment_end(self.text, pos)
                else:
                    pos += 1
        return last

    def _render(self, value: Any, indent: str, multiline: bool) -> str:
        """``value`` as JSON for a place whose line starts with ``indent``."""
        if not multiline:
            separators = (self.comma, self.colon)
            return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=separators)
        pretty = json.dumps(
            value, ensure_ascii=False, allow_nan=False, indent=self.unit, separators=(",", self.colon)
        )
        return pretty.replace("\n", self.newline + indent)

    def _render_entry(self, key: str | None, value: Any, indent: str, multiline: bool) -> str:
        rendered = self._render(value, indent, multiline)
        return rendered if key is None else json.dumps(key, ensure_ascii=False) + self.colon + rendered


def _detect_style(text: str, root: _Node) -> tuple[str, str, str]:
    """The file's indent unit, key separator (``": "``) and inline item separator (``", "``)."""
    unit = colon = comma = None
    nodes = [root]
    for node in nodes:  # breadth first, so the outermost examples win
        for i, entry in enumerate(node.entries):
            nodes.append(entry.node)
            if unit is None and _starts_line(text, entry.start):
                outer, inner = _line_indent(text, node.start), _line_indent(text, entry.start)
                if len(inner) > len(outer) and inner.startswith(outer):
                    unit = inner[len(outer) :]
            between = text[entry.key_end : entry.node.start]
            if colon is None and entry.key is not None and between.strip() == ":" and "\n" not in between:
                colon = between
            between = text[node.commas[i] : node.entries[i + 1].start] if i < len(node.commas) else ""
            if comma is None and between.strip() == "," and "\n" not in between:
                comma = between
    return unit or "  ", colon or ": ", comma or ", "


def _same(a: Any, b: Any) -> bool:
    """Deep equality in which types matter: ``1``, ``1.0`` and ``True`` all differ."""
    if isinstance(a, dict):
        if not isinstance(b, dict):
            return False
        a_dict, b_dict = cast("dict[str, Any]", a), cast("dict[str, Any]", b)
        return a_dict.keys() == b_dict.keys() and all(_same(v, b_dict[k]) for k, v in a_dict.items())
    if isinstance(a, list):
        if not isinstance(b, list):
            return False
        a_list, b_list = cast("list[Any]", a), cast("list[Any]", b)
        return len(a_list) == len(b_list) and all(map(_same, a_list, b_list))
    return type(a) is type(b) and a == b


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _common_subsequence(a: list[str], b: list[str]) -> list[tuple[int, int]]:
    """Index pairs of a longest common subsequence of ``a`` and ``b``.

    Among the longest ones, prefer the one that keeps elements at the same position: when stepping
    past both ``a[i]`` and ``b[k]`` costs nothing, they are left to be paired up (edited in place),
    so a modified element is not matched against an equal twin further on.
    """
    longest = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in reversed(range(len(a))):
        for k in reversed(range(len(b))):
            if a[i] == b[k]:
                longest[i][k] = longest[i + 1][k + 1] + 1
            else:
                longest[i][k] = max(longest[i + 1][k], longest[i][k + 1])
    pairs: list[tuple[int, int]] = []
    i = k = 0
    while i < len(a) and k < len(b):
        if a[i] == b[k]:
            pairs.append((i, k))
            i, k = i + 1, k + 1
        elif longest[i + 1][k + 1] == longest[i][k]:
            i, k = i + 1, k + 1
        elif longest[i + 1][k] >= longest[i][k + 1]:
            i += 1
        else:
            k += 1
    return pairs
