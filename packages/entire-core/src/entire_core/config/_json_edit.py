"""Minimal text edits that turn a parsed JSON(C) text into one holding new data.

``Editor`` diffs the old tree against the new data and collects ``(start, end, replacement)`` edits:
changed scalars in place, removed entries cut out with their comma, new entries appended after the
last one in the sibling's indentation and the file's newline style, array elements matched on a
longest common subsequence. Everything outside those spans is kept byte for byte.
"""

from __future__ import annotations

import json
from typing import Any, cast

from entire_core.config._json_syntax import (
    Node,
    comment_end,
    end_of_whitespace,
    indent_end,
    line_indent,
    start_of_whitespace,
    starts_line,
)


class Editor:
    """Collects ``(start, end, replacement)`` edits on the original text, then applies them in order."""

    def __init__(self, text: str, root: Node, line_comment_ends: set[int]) -> None:
        self.text = text
        self.root = root
        self.line_comment_ends = line_comment_ends
        self.edits: list[tuple[int, int, str]] = []
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.unit, self.colon, self.comma = detect_style(text, root)

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

    def _diff(self, node: Node, new: Any, multiline: bool) -> None:
        if same(node.value, new):
            return
        if node.kind == "object" and isinstance(new, dict):
            self._object(node, cast("dict[str, Any]", new), multiline)
        elif node.kind == "array" and isinstance(new, list):
            self._array(node, cast("list[Any]", new), multiline)
        else:
            rendered = self._render(new, line_indent(self.text, node.start), multiline)
            self.edits.append((node.start, node.end, rendered))

    def _object(self, node: Node, new: dict[str, Any], parent_multiline: bool) -> None:
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

    def _array(self, node: Node, new: list[Any], parent_multiline: bool) -> None:
        """Keep the longest common subsequence; between two kept elements, pair old and new in order."""
        multiline = self._multiline(node, parent_multiline)
        old = node.entries
        removed: set[int] = set()
        inserted: dict[int, list[Any]] = {}
        appended: list[tuple[str | None, Any]] = []
        next_old = next_new = 0
        keys = [canonical(entry.node.value) for entry in old], [canonical(value) for value in new]
        for i, k in [*common_subsequence(*keys), (len(old), len(new))]:
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
        node: Node,
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
            rendered = self._render(new, line_indent(text, node.start), multiline)
            self.edits.append((node.start, node.end, rendered))
            return

        for i in sorted(removed):
            entry = entries[i]
            if i < last:  # a later entry stays: take this one with its comma and the blanks after it
                self._cut(entry.start, end_of_whitespace(text, commas[i] + 1))
                continue
            # Trailing: take the blanks before it, so comments between entries stay, and the comma before.
            self._cut(self._trailing_cut_start(node, i), entry.node.end)
            if i > 0 and not (i - 1 == last and appended):
                self._cut(commas[i - 1], commas[i - 1] + 1)

        for i, values in inserted.items():
            anchor = entries[i].start
            indent = line_indent(text, anchor)
            gap = self.newline + indent if multiline and starts_line(text, anchor) else self.comma[1:]
            rendered = "".join(self._render(value, indent, multiline) + "," + gap for value in values)
            self.edits.append((anchor, anchor, rendered))

        if not appended:
            return
        if last_comment is None:
            previous = entries[last]
            indent = line_indent(text, previous.start)
            has_comma = last < len(entries) - 1  # the comma of a removed entry that followed it
            if not has_comma:
                self.edits.append((previous.node.end, previous.node.end, ","))
            if multiline:
                at, gap = self._line_tail(previous.node.end), self.newline + indent
            else:
                at, gap = commas[last] + 1 if has_comma else previous.node.end, self.comma[1:]
        else:  # only comments are left inside: add after the last one
            indent = line_indent(text, node.start) + self.unit
            at, gap = last_comment, self.newline + indent
        rendered = [self._render_entry(key, value, indent, multiline) for key, value in appended]
        self.edits.append((at, at, gap + ("," + gap).join(rendered)))

    def _trailing_cut_start(self, node: Node, i: int) -> int:
        """Start of the blanks before entry ``i``, but never the line break that ends a ``//`` comment
        when something stays after the entry on its line (it would become part of the comment)."""
        text, entry = self.text, node.entries[i]
        start = start_of_whitespace(text, entry.start)
        if start not in self.line_comment_ends:
            return start
        after = indent_end(text, entry.node.end, len(text))
        if i < len(node.commas):  # this entry's comma goes too
            after = indent_end(text, after + 1, len(text))
        if after == len(text) or text[after] in "\r\n":
            return start
        return start + (2 if text.startswith("\r\n", start) else 1)

    def _cut(self, start: int, end: int) -> None:
        self.edits.append((start, end, ""))

    def _multiline(self, node: Node, parent_multiline: bool) -> bool:
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
            pos = indent_end(text, pos, len(text))
            if text.startswith(",", pos):
                pos += 1
            elif text.startswith(("//", "/*"), pos):
                pos = comment_end(text, pos)
            else:
                return end
            end = pos

    def _last_comment_end(self, node: Node) -> int | None:
        """End of the last comment between the entries of ``node`` (not inside them), if any."""
        starts = [entry.start for entry in node.entries] + [node.end - 1]
        ends = [node.start + 1] + [entry.node.end for entry in node.entries]
        last = None
        for pos, stop in zip(ends, starts, strict=True):
            while pos < stop:  # between entries there are only blanks, commas and comments
                if self.text.startswith(("//", "/*"), pos):
                    pos = last = comment_end(self.text, pos)
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


def detect_style(text: str, root: Node) -> tuple[str, str, str]:
    """The file's indent unit, key separator (``": "``) and inline item separator (``", "``)."""
    unit = colon = comma = None
    nodes = [root]
    for node in nodes:  # breadth first, so the outermost examples win
        for i, entry in enumerate(node.entries):
            nodes.append(entry.node)
            if unit is None and starts_line(text, entry.start):
                outer, inner = line_indent(text, node.start), line_indent(text, entry.start)
                if len(inner) > len(outer) and inner.startswith(outer):
                    unit = inner[len(outer) :]
            between = text[entry.key_end : entry.node.start]
            if colon is None and entry.key is not None and between.strip() == ":" and "\n" not in between:
                colon = between
            between = text[node.commas[i] : node.entries[i + 1].start] if i < len(node.commas) else ""
            if comma is None and between.strip() == "," and "\n" not in between:
                comma = between
    return unit or "  ", colon or ": ", comma or ", "


def same(a: Any, b: Any) -> bool:
    """Deep equality in which types matter: ``1``, ``1.0`` and ``True`` all differ."""
    if isinstance(a, dict):
        if not isinstance(b, dict):
            return False
        a_dict, b_dict = cast("dict[str, Any]", a), cast("dict[str, Any]", b)
        return a_dict.keys() == b_dict.keys() and all(same(v, b_dict[k]) for k, v in a_dict.items())
    if isinstance(a, list):
        if not isinstance(b, list):
            return False
        a_list, b_list = cast("list[Any]", a), cast("list[Any]", b)
        return len(a_list) == len(b_list) and all(map(same, a_list, b_list))
    return type(a) is type(b) and a == b


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def common_subsequence(a: list[str], b: list[str]) -> list[tuple[int, int]]:
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
