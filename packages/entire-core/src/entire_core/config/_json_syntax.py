"""The concrete syntax tree of a JSON or JSONC text: every value, member and comma with its span.

``Parser`` reads the text strictly (JSON, plus comments when asked: no trailing commas, no duplicate
keys) and records where each piece is, so the editor can change one span and leave the rest alone. The
small text helpers below answer layout questions (indent, line starts, comment ends) for both.
"""

from __future__ import annotations

import json
import re
from typing import Any, NamedTuple, cast

from entire_core.errors import ConfigError

_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS: tuple[tuple[str, Any], ...] = (("true", True), ("false", False), ("null", None))


class Node:
    """A value and its span ``text[start:end]``; containers also know their entries and commas."""

    __slots__ = ("commas", "end", "entries", "kind", "start", "value")

    def __init__(self, start: int, end: int, value: Any, kind: str = "scalar") -> None:
        self.start, self.end, self.value = start, end, value
        self.kind = kind  # "scalar", "object" or "array"
        self.entries: list[Entry] = []
        self.commas: list[int] = []  # commas[i] separates entries i and i + 1


class Entry(NamedTuple):
    """An object member (``key`` set, ``start`` at the key) or an array element (``start`` at the value)."""

    start: int
    key: str | None
    key_end: int
    node: Node


class Parser:
    """A strict recursive-descent reader of one JSON(C) document that builds ``Node`` trees.

    ``line_comment_ends`` collects where each ``//`` comment ends (at its line break), because the
    editor must never cut that line break while text stays after it.
    """

    def __init__(self, text: str, comments: bool) -> None:
        self.text = text
        self.comments = comments
        self.pos = 0
        self.line_comment_ends: set[int] = set()

    def document(self) -> Node:
        """The whole text as one value; ConfigError (with line and column) if it is not valid."""
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
            self.pos = end_of_whitespace(self.text, self.pos)
            if not self.text.startswith(("//", "/*"), self.pos):
                return
            if not self.comments:
                raise self._error("comments are not allowed in this file")
            end = comment_end(self.text, self.pos)
            if end < 0:
                raise self._error("unterminated comment")
            if self.text.startswith("//", self.pos):
                self.line_comment_ends.add(end)
            self.pos = end

    def _value(self) -> Node:
        self._skip()
        start, text = self.pos, self.text
        char = text[start : start + 1]
        if char == "{":
            return self._container("}")
        if char == "[":
            return self._container("]")
        if char == '"':
            value, self.pos = self._string()
            return Node(start, self.pos, value)
        number = _NUMBER.match(text, start)
        if number:
            self.pos = number.end()
            try:
                value = float(number[0]) if number[1] or number[2] else int(number[0])
            except ValueError:
                raise self._error("number too long", start) from None
            return Node(start, self.pos, value)
        for literal, value in _LITERALS:
            if text.startswith(literal, start):
                self.pos = start + len(literal)
                return Node(start, self.pos, value)
        raise self._error("expected a value" if char else "unexpected end of file")

    def _string(self) -> tuple[str, int]:
        try:
            value, end = _DECODER.raw_decode(self.text, self.pos)
        except json.JSONDecodeError as exc:
            raise self._error(exc.msg.removesuffix(" at").removesuffix(" starting"), exc.pos) from None
        return cast(str, value), end

    def _container(self, close: str) -> Node:
        node = Node(self.pos, -1, {}, "object") if close == "}" else Node(self.pos, -1, [], "array")
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

    def _entry(self, node: Node) -> None:
        start = self.pos
        if node.kind == "array":
            child = self._value()
            node.entries.append(Entry(start, None, start, child))
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
        node.entries.append(Entry(start, key, key_end, child))
        members[key] = child.value


_DECODER = json.JSONDecoder()


def end_of_whitespace(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def start_of_whitespace(text: str, pos: int) -> int:
    while pos > 0 and text[pos - 1] in " \t\r\n":
        pos -= 1
    return pos


def comment_end(text: str, pos: int) -> int:
    """End of the comment starting at ``pos`` (-1 if a block comment never ends)."""
    if text.startswith("//", pos):
        ends = [end for end in (text.find("\n", pos), text.find("\r", pos)) if end >= 0]
        return min(ends, default=len(text))
    end = text.find("*/", pos + 2)
    return end + 2 if end >= 0 else -1


def line_indent(text: str, pos: int) -> str:
    """The spaces and tabs that start the line holding ``pos``."""
    line_start = text.rfind("\n", 0, pos) + 1
    return text[line_start : indent_end(text, line_start, pos)]


def indent_end(text: str, pos: int, limit: int) -> int:
    while pos < limit and text[pos] in " \t":
        pos += 1
    return pos


def starts_line(text: str, pos: int) -> bool:
    line_start = text.rfind("\n", 0, pos) + 1
    return indent_end(text, line_start, pos) == pos
