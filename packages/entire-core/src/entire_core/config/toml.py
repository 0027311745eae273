"""Edit TOML files through tomlkit, which keeps comments, order and layout, validated by tomllib."""

from __future__ import annotations

import os
import re
from collections.abc import Generator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from entire_core.config._files import ConfigDocument, delete_file, read_original, write_text
from entire_core.config._lock import locked
from entire_core.errors import ConfigError

if TYPE_CHECKING:
    from tomlkit import TOMLDocument

# Blank lines at the very end of the text, after its last line break.
_BLANK_TAIL = re.compile(r"(\r?\n)(?:[ \t]*\r?\n)+\Z")


class TomlDocument(ConfigDocument):
    """A TOML file being edited: mutate ``data``, a tomlkit document."""

    def __init__(self, path: str, existed: bool, data: TOMLDocument) -> None:
        super().__init__(path, existed)
        self.data = data


@contextmanager
def edit_toml(path: str | os.PathLike[str], *, create: bool = True) -> Generator[TomlDocument, None, None]:
    """Lock and parse a TOML file; write it back only if tomlkit's text differs from the original.

    A missing file is an empty document when ``create`` is true. A file that does not parse raises
    ConfigError and is never written; the new text must read back (with tomllib) as the document's data.
    """
    import tomllib

    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    name = os.fspath(path)
    with locked(name):
        original = read_original(name, create=create)
        try:
            tomllib.loads(original.text)  # tomlkit accepts a few things TOML does not
            data = tomlkit.parse(original.text)
        except (tomllib.TOMLDecodeError, TOMLKitError) as exc:
            raise ConfigError(f"cannot parse {name}: {exc}") from None
        doc = TomlDocument(name, original.existed, data)
        yield doc

        if doc.deleted:
            if original.existed:
                delete_file(name)
            return
        text = _like_original(doc.data.as_string(), original.text)
        if text == original.text:
            return
        try:
            written = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:  # pragma: no cover - would be a bug in tomlkit
            raise ConfigError(f"cannot write {name}: the edit would not parse: {exc}") from None
        if written != doc.data.unwrap():
            raise ConfigError(f"cannot write {name}: the edit does not read back as the intended data")
        write_text(name, text, original, doc.before_write)


def parse_toml_text(text: str) -> dict[str, Any]:
    """Parse TOML into plain data (tomllib) for read-only use; errors are ConfigError."""
    import tomllib

    try:
        return tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(exc)) from None


def _like_original(text: str, original: str) -> str:
    """tomlkit's text with the original's line breaks, and without blank lines it left at the end.

    tomlkit writes new lines with LF even in a CRLF file. It also separates a table it appends from
    the one above by a blank line, but when that table is deleted later, the blank line (which the
    parser gave to the table above) stays behind; trimming it makes uninstall restore the file.
    """
    if "\r\n" in original and "\n" not in original.replace("\r\n", ""):
        text = re.sub(r"(?<!\r)\n", "\r\n", text)
    if not _BLANK_TAIL.search(original):
        text = _BLANK_TAIL.sub(r"\1", text)
    return text
