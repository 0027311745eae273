"""Reading and writing a config file's text, keeping its UTF-8 byte order mark, for every editor."""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING, NamedTuple

from entire_core.errors import ConfigError
from entire_core.fsutil import atomic_write, remove_file

if TYPE_CHECKING:
    from collections.abc import Callable


class Original(NamedTuple):
    """A config file as found: its text without the BOM, whether it had one, and whether it existed."""

    text: str
    bom: bool
    existed: bool


def read_original(path: str, *, create: bool) -> Original:
    """Read ``path`` as UTF-8; a missing file is empty text when ``create`` allows, else ConfigError."""
    try:
        with open(path, "rb") as file:
            raw = file.read()
    except FileNotFoundError:
        if not create:
            raise ConfigError(f"{path} does not exist") from None
        return Original("", bom=False, existed=False)
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    bom = raw.startswith(codecs.BOM_UTF8)
    try:
        text = raw[len(codecs.BOM_UTF8) if bom else 0 :].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read {path}: not UTF-8 (byte {exc.start})") from None
    return Original(text, bom=bom, existed=True)


def write_text(
    path: str, text: str, original: Original, before: Callable[[bytes], None] | None = None
) -> None:
    """Atomically replace ``path`` with ``text``, restoring the BOM the original had.

    ``before`` (the document's ``before_write``) gets the bytes once they are known to be writable,
    before the file changes.

    A read-only file is refused, as an editor would: replacing it through a rename would succeed
    (the directory decides that), but the user made it read-only so that nothing changes it. The mode
    bits are checked as well as ``access``, so the refusal holds for root too.
    """
    if original.existed:
        _refuse_read_only(path)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ConfigError(f"cannot write {path}: {exc.reason} in the new text") from None
    if original.bom:
        data = codecs.BOM_UTF8 + data
    if before is not None:
        before(data)
    try:
        atomic_write(path, data)
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None


def _refuse_read_only(path: str) -> None:
    import os
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # gone meanwhile: the write itself says what is wrong
    if not mode & stat.S_IWUSR or not os.access(path, os.W_OK):
        raise ConfigError(f"{path} is read-only; make it writable (chmod u+w) and run again")


class ConfigDocument:
    """What every editor yields: the file's path, whether it existed, and a way to delete it instead."""

    def __init__(self, path: str, existed: bool) -> None:
        self.path = path
        self.existed = existed
        self.deleted = False
        self.before_write: Callable[[bytes], None] | None = None
        """Called with the bytes about to be written, before the file changes (not before a delete): for a
        record that must be on disk before the change it describes (``installs``), so that a process
        killed between the two never leaves the change without its record."""

    def delete(self) -> None:
        """Remove the file on exit instead of writing it (for uninstalling a file we created)."""
        self.deleted = True


def delete_file(path: str) -> None:
    """Remove ``path`` (the link, if it is a symlink), turning OS errors into ConfigError."""
    try:
        remove_file(path)
    except OSError as exc:
        raise ConfigError(f"cannot delete {path}: {exc.strerror or exc}") from None
