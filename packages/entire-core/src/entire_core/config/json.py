"""Edit JSON and JSONC files by minimal text edits, so comments, layout and number spellings survive.

The original text is parsed into a small concrete syntax tree that knows where every value, member
and comma is (``_json_syntax``). On exit the old data is diffed against the new data and only the
differing spans are rewritten (``_json_edit``): changed scalars in place, removed members cut out with
their comma, new members appended after the last one in the sibling's indentation and the file's
newline style. Adding and then removing the same members gives back the original bytes.

Why our own editor rather than a maintained one: measured against jsonc-edit 0.2.1 and json-five
1.1.2 on the cases of ``tests/config/test_json_properties.py`` (752 drawn edits, 17 unparseable
inputs), ours passes every property; jsonc-edit passes 0/392 add-then-remove round trips (it sends
values to jsonc-parser as JSON, which has no ``undefined``, so it cannot remove anything), 302/392
read-backs (it skips an edit when Python's ``==`` calls old and new equal: ``1`` over ``True``) and
refuses 2 of 17 broken inputs (jsonc-parser edits what it cannot parse); json-five passes 369/392
round trips and 11/17 refusals (it reads JSON5, and decodes ``\ud83d\ude00`` into two lone
surrogates) and only edits a model, so the diff and layout above would still be ours to write.
jsonc-edit is not a binding either: it runs a Node.js daemon and npm-installs jsonc-parser into
``~/.jsonc-edit`` on first use (import plus one edit: 6.9x ``python -c "import json"`` against 2.7x
for ours); json-five pulls in sly and the native regex wheel. Import, as CPU time against
``import json`` (farm-bench medians of 21): ours 1.86x, jsonc-edit 2.51x, json-five 3.48x.
Reproduce with the commands in ``tools/bench/jsonc_eval.py``.
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

    def __init__(self, path: str, existed: bool, data: Any, blank: str | None = None) -> None:
        super().__init__(path, existed)
        self.data = data
        self.blank = blank
        """The file's text when it existed and held no JSON value (empty, or only whitespace), else None."""
        self.restored: str | None = None

    def restore(self, text: str) -> None:
        """Write exactly ``text`` on exit instead of the data: for giving back a file that held no JSON
        value (``blank``), which no serializer writes byte for byte (``{}`` is not an empty file)."""
        self.restored = text


@contextmanager
def edit_json(
    path: str | os.PathLike[str], *, comments: bool = False, create: bool = True
) -> Generator[JsonDocument, None, None]:
    """Lock and parse a JSON (or, with ``comments``, JSONC) file; write back only what changed.

    A missing file reads as ``{}`` when ``create`` is true, and so does a blank one (its text is in
    ``doc.blank``, for ``doc.restore``). A file that does not parse raises ConfigError and is never
    written; so is a change that does not re-parse to the intended data.
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
        blank = original.text if original.existed and root is None else None
        doc = JsonDocument(name, original.existed, copy.deepcopy(old), blank)
        yield doc

        if doc.deleted:
            if original.existed:
                delete_file(name)
            return
        if doc.restored is not None:
            if doc.restored != original.text:
                write_text(name, doc.restored, original, doc.before_write)
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
        write_text(name, text, original, doc.before_write)


def parse_json_text(text: str, *, comments: bool) -> Any:
    """Parse JSON (or JSONC when ``comments``) into plain data, exactly as ``edit_json`` reads files."""
    return Parser(text.removeprefix("\ufeff"), comments).document().value


def read_json_object(path: str, *, comments: bool) -> dict[str, Any] | None:
    """A JSON (or JSONC) file whose top level is an object, for reading only: None when it is missing,
    ``{}`` when it is blank; ConfigError naming the file when it cannot be read, does not parse or is
    not an object."""
    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    if not text.strip():
        return {}
    try:
        value = parse_json_text(text, comments=comments)
    except ConfigError as exc:
        raise ConfigError(f"cannot parse {path}: {exc}") from None
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: the top level is not a JSON object")
    found: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
    return found
