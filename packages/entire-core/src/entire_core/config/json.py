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
from collections.abc import Generator
from contextlib import contextmanager
from typing import Any

from entire_core.config._files import ConfigDocument, delete_file, read_original, write_text
from entire_core.config._json_edit import Editor, same
from entire_core.config._json_syntax import Node, Parser
from entire_core.config._lock import locked
from entire_core.errors import ConfigError


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
        parser = Parser(original.text, comments)
        root: Node | None = None
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
        if same(old, doc.data):
            return
        try:
            if root is None:
                text = json.dumps(doc.data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
            else:
                text = Editor(original.text, root, parser.line_comment_ends).rewrite(doc.data)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"cannot write {name}: {exc}") from None
        try:
            written = parse_json_text(text, comments=comments)
        except ConfigError as exc:  # pragma: no cover - would be a bug in the editor
            raise ConfigError(f"cannot write {name}: the edit would not parse: {exc}") from None
        if not same(written, doc.data):
            raise ConfigError(f"cannot write {name}: the data holds values JSON cannot represent")
        write_text(name, text, original)


def parse_json_text(text: str, *, comments: bool) -> Any:
    """Parse JSON (or JSONC when ``comments``) into plain data, exactly as ``edit_json`` reads files."""
    return Parser(text.removeprefix("\ufeff"), comments).document().value
