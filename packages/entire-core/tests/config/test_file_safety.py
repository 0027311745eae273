"""Behaviour every editor shares: no needless writes, atomic replace, symlinks, modes, delete, errors."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from entire_core.config.json import edit_json
from entire_core.config.textblock import edit_text_block
from entire_core.config.toml import edit_toml
from entire_core.errors import ConfigError

BEGIN, END = "# >>> entire test >>>", "# <<< entire test <<<"


def _set_block(doc: Any) -> None:
    doc.block = "b: 2\n"


def _set_json(doc: Any) -> None:
    doc.data["b"] = 2


def _set_toml(doc: Any) -> None:
    doc.data["b"] = 2


# name: (open the editor, valid original, a change, text that does not parse)
EDITORS: dict[str, tuple[Callable[..., AbstractContextManager[Any]], str, Callable[[Any], None], str]] = {
    "json": (edit_json, '{\n  "a": 1\n}\n', _set_json, '{\n  "a": 1,\n}\n'),
    "toml": (edit_toml, "a = 1\n", _set_toml, "a = \n"),
    "textblock": (
        lambda path, **kw: edit_text_block(path, begin=BEGIN, end=END, **kw),
        "a: 1\n",
        _set_block,
        f"a: 1\n{BEGIN}\n",
    ),
}


@pytest.fixture(params=sorted(EDITORS))
def editor(
    request: pytest.FixtureRequest,
) -> tuple[Callable[..., AbstractContextManager[Any]], str, Callable[[Any], None], str]:
    return EDITORS[request.param]


def _entries(directory: Path) -> list[str]:
    return sorted(os.listdir(directory))


def test_unchanged_document_is_not_written(editor: Any, tmp_path: Path) -> None:
    open_editor, original, _, _ = editor
    path = tmp_path / "config"
    path.write_text(original)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    before = path.stat()
    with open_editor(path) as doc:
        assert doc.existed
    after = path.stat()
    assert (after.st_mtime_ns, after.st_ino) == (before.st_mtime_ns, before.st_ino)


def test_change_replaces_the_file_atomically_and_leaves_no_debris(editor: Any, tmp_path: Path) -> None:
    open_editor, original, change, _ = editor
    path = tmp_path / "config"
    path.write_text(original)
    with open_editor(path) as doc:
        change(doc)
    assert path.read_text() != original
    assert _entries(tmp_path) == ["config"]


def test_parse_error_names_the_file_and_writes_nothing(editor: Any, tmp_path: Path) -> None:
    open_editor, _, _, broken = editor
    path = tmp_path / "broken.conf"
    path.write_text(broken)
    with pytest.raises(ConfigError, match=r"broken\.conf") as info, open_editor(path):
        pytest.fail("must not get here")  # pragma: no cover
    assert "\n" not in str(info.value)
    assert path.read_text() == broken
    assert _entries(tmp_path) == ["broken.conf"]


def test_exception_inside_with_writes_nothing(editor: Any, tmp_path: Path) -> None:
    open_editor, original, change, _ = editor
    path = tmp_path / "config"
    path.write_text(original)
    with pytest.raises(RuntimeError), open_editor(path) as doc:
        change(doc)
        raise RuntimeError("caller failed")
    assert path.read_text() == original
    assert _entries(tmp_path) == ["config"]


def test_symlink_stays_a_link_and_its_target_changes(editor: Any, tmp_path: Path) -> None:
    open_editor, original, change, _ = editor
    target = tmp_path / "dotfiles" / "config"
    target.parent.mkdir()
    target.write_text(original)
    link = tmp_path / "link"
    link.symlink_to(target)
    with open_editor(link) as doc:
        change(doc)
    assert link.is_symlink()
    assert target.read_text() != original
    assert _entries(target.parent) == ["config"]


@pytest.mark.parametrize("mode", [0o644, 0o600])
def test_mode_is_kept(editor: Any, tmp_path: Path, mode: int) -> None:
    open_editor, original, change, _ = editor
    path = tmp_path / "config"
    path.write_text(original)
    path.chmod(mode)
    with open_editor(path) as doc:
        change(doc)
    assert stat.S_IMODE(path.stat().st_mode) == mode


@pytest.mark.parametrize("mode", [0o444, 0o400])
def test_a_read_only_file_is_refused_not_replaced(editor: Any, tmp_path: Path, mode: int) -> None:
    """As an editor would; the mode bits decide, so this holds when the tests run as root too."""
    open_editor, original, change, _ = editor
    path = tmp_path / "locked.conf"
    path.write_text(original)
    path.chmod(mode)
    before = path.stat()
    with pytest.raises(ConfigError, match=r"locked\.conf is read-only") as info, open_editor(path) as doc:
        change(doc)
    assert "\n" not in str(info.value)
    assert path.read_text() == original
    after = path.stat()
    assert (after.st_ino, stat.S_IMODE(after.st_mode)) == (before.st_ino, mode)
    assert _entries(tmp_path) == ["locked.conf"]


def test_delete_removes_the_file(editor: Any, tmp_path: Path) -> None:
    open_editor, original, change, _ = editor
    path = tmp_path / "config"
    path.write_text(original)
    with open_editor(path) as doc:
        change(doc)
        doc.delete()
    assert _entries(tmp_path) == []


def test_delete_of_a_missing_file_does_nothing(editor: Any, tmp_path: Path) -> None:
    open_editor, _, change, _ = editor
    with open_editor(tmp_path / "missing") as doc:
        assert not doc.existed
        change(doc)
        doc.delete()
    assert _entries(tmp_path) == []


def test_missing_file_is_created_only_when_changed(editor: Any, tmp_path: Path) -> None:
    open_editor, _, change, _ = editor
    path = tmp_path / "sub" / "config"
    with open_editor(path):
        pass
    assert not path.parent.exists()
    with open_editor(path) as doc:
        change(doc)
    assert path.exists()


def test_missing_file_without_create_is_an_error(editor: Any, tmp_path: Path) -> None:
    open_editor, _, _, _ = editor
    with pytest.raises(ConfigError, match="does not exist"), open_editor(tmp_path / "missing", create=False):
        pass  # pragma: no cover


def test_invalid_utf8_is_an_error(editor: Any, tmp_path: Path) -> None:
    open_editor, _, _, _ = editor
    path = tmp_path / "latin1"
    path.write_bytes(b"a = \xe9\n")
    with pytest.raises(ConfigError, match=r"latin1: not UTF-8 \(byte 4\)"), open_editor(path):
        pass  # pragma: no cover


def test_unreadable_path_is_an_error(editor: Any, tmp_path: Path) -> None:
    open_editor, _, _, _ = editor
    with pytest.raises(ConfigError, match="cannot read"), open_editor(tmp_path):
        pass  # pragma: no cover


def test_delete_failure_is_a_config_error(editor: Any, tmp_path: Path) -> None:
    open_editor, original, _, _ = editor
    path = tmp_path / "config"
    path.write_text(original)
    with pytest.raises(ConfigError, match="cannot delete"), open_editor(path) as doc:
        doc.delete()
        path.unlink()
        path.mkdir()  # unlink() of a directory fails


def test_a_failed_write_names_the_users_file_not_our_temporary_one(editor: Any) -> None:
    # /proc/self/ exists but no file can be created in it, not even by root: the temporary file
    # beside the target fails for real.
    open_editor, _, change, _ = editor
    target = "/proc/self/entire-test-config"
    if not os.path.isdir("/proc/self"):
        pytest.skip("needs /proc")
    with pytest.raises(ConfigError) as caught, open_editor(target) as doc:
        change(doc)
    message = str(caught.value)
    assert message.startswith(f"cannot write {target}: "), message
    assert ".tmp" not in message


def test_a_directory_in_place_of_the_config_file_is_named(editor: Any, tmp_path: Path) -> None:
    open_editor, _, _, _ = editor
    (tmp_path / "config").mkdir()
    with (
        pytest.raises(ConfigError, match=r"cannot read .*config: Is a directory"),
        open_editor(tmp_path / "config"),
    ):
        pass  # pragma: no cover
