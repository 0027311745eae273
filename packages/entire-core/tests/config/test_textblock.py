"""The marked-block editor on Aider-style YAML files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from entire_core.config.textblock import NEWLINE_ADDED, edit_text_block
from entire_core.errors import ConfigError
from hypothesis import given, settings
from hypothesis import strategies as st

DATA = Path(__file__).parent / "data"
BEGIN, END = "# >>> entire-agent-aider >>>", "# <<< entire-agent-aider <<<"
BODY = "test-cmd: entire-agent-aider hook test\nnotifications: true\n"


def validate_yaml(text: str) -> None:
    try:
        yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"not valid YAML: {exc}") from None


def install(path: Path, body: str | None = BODY) -> None:
    with edit_text_block(path, begin=BEGIN, end=END, validate=validate_yaml) as doc:
        doc.block = body


@pytest.mark.parametrize("name", ["aider_crlf.yml", "aider_no_eol.yml"])
def test_install_then_uninstall_restores_the_bytes(data_file: Callable[[str], Path], name: str) -> None:
    path = data_file(name)
    original = path.read_bytes()
    install(path)
    installed = path.read_bytes()
    assert installed.startswith(original)
    assert yaml.safe_load(installed)["notifications"] is True
    install(path, None)
    assert path.read_bytes() == original


@pytest.mark.parametrize("original", ["a: 1\n...\n", "a: 1\r\n...\r\n# after\r\n"])
def test_a_block_placed_before_a_line_comes_out_exactly(tmp_path: Path, original: str) -> None:
    path = tmp_path / "conf.yml"
    path.write_bytes(original.encode())
    at = original.replace("\r\n", "\n").split("\n").index("...")

    with edit_text_block(path, begin=BEGIN, end=END, validate=validate_yaml, place=lambda lines: at) as doc:
        doc.block = BODY
    lines = path.read_bytes().decode().splitlines()
    assert lines[at] == BEGIN and lines[at + 3] == END and lines[at + 4] == "..."
    assert yaml.safe_load(path.read_text())["notifications"] is True
    install(path, None)
    assert path.read_bytes() == original.encode()


def test_block_uses_the_file_newlines(data_file: Callable[[str], Path]) -> None:
    path = data_file("aider_crlf.yml")
    original = path.read_bytes()
    install(path)
    added = path.read_bytes()[len(original) :]
    assert added == (f"{BEGIN}\n{BODY}{END}\n").replace("\n", "\r\n").encode()


def test_missing_final_newline_is_remembered_in_the_begin_marker(data_file: Callable[[str], Path]) -> None:
    path = data_file("aider_no_eol.yml")
    original = path.read_text()
    install(path)
    assert path.read_text() == f"{original}\n{BEGIN}{NEWLINE_ADDED}\n{BODY}{END}\n"
    with edit_text_block(path, begin=BEGIN, end=END) as doc:
        assert doc.block == BODY
        assert doc.text_outside == original


def test_added_newline_stays_when_the_user_wrote_after_the_block(data_file: Callable[[str], Path]) -> None:
    path = data_file("aider_no_eol.yml")
    original = path.read_text()
    install(path)
    path.write_text(path.read_text() + "map-tokens: 1024\n")
    install(path, None)
    assert path.read_text() == original + "\nmap-tokens: 1024\n"


def test_replacing_the_body_keeps_the_markers_and_the_rest(tmp_path: Path) -> None:
    path = tmp_path / ".aider.conf.yml"
    path.write_text(f"a: 1\n{BEGIN}{NEWLINE_ADDED}\nold: 1\n{END}\nb: 2\n")
    install(path, "new: 2")
    assert path.read_text() == f"a: 1\n{BEGIN}{NEWLINE_ADDED}\nnew: 2\n{END}\nb: 2\n"


def test_same_body_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / ".aider.conf.yml"
    path.write_bytes(
        f"a: 1\r\n{BEGIN}\r\n{BODY}{END}\r\n".replace("\n", "\r\n").replace("\r\r", "\r").encode()
    )
    mtime = path.stat().st_mtime_ns
    with edit_text_block(path, begin=BEGIN, end=END) as doc:
        assert doc.block == BODY  # line breaks normalised to \n
        doc.block = BODY.replace("\n", "\r\n")
    assert path.stat().st_mtime_ns == mtime


def test_text_outside_lets_callers_look_for_user_settings(tmp_path: Path) -> None:
    path = tmp_path / ".aider.conf.yml"
    path.write_text(f"# mine\ntest-cmd: make test\n{BEGIN}\n{BODY}{END}\n")
    with edit_text_block(path, begin=BEGIN, end=END) as doc:
        assert yaml.safe_load(doc.text_outside) == {"test-cmd": "make test"}
    with edit_text_block(tmp_path / "none.yml", begin=BEGIN, end=END) as doc:
        assert doc.block is None
        assert doc.text_outside == ""


def test_new_file_holds_just_the_block_and_can_be_deleted_on_removal(tmp_path: Path) -> None:
    path = tmp_path / ".aider.conf.yml"
    install(path)
    assert path.read_text() == f"{BEGIN}\n{BODY}{END}\n"
    with edit_text_block(path, begin=BEGIN, end=END) as doc:
        doc.block = None
        if not doc.text_outside.strip():
            doc.delete()
    assert not path.exists()


def test_empty_body(tmp_path: Path) -> None:
    path = tmp_path / "f.yml"
    path.write_text("a: 1\n")
    install(path, "")
    assert path.read_text() == f"a: 1\n{BEGIN}\n{END}\n"
    with edit_text_block(path, begin=BEGIN, end=END) as doc:
        assert doc.block == ""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"{BEGIN}\n{END}\n{BEGIN}\n{END}\n", "appears more than once"),
        (f"{BEGIN}\n{END}\n{END}\n", "appears more than once"),
        (f"a: 1\n{BEGIN}\nb: 2\n", "has no matching"),
        (f"a: 1\n{END}\n", "has no .* before it"),
        (f"{END}\n{BEGIN}\n", "has no .* before it"),
    ],
)
def test_misplaced_markers_are_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "f.yml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=f"f.yml: .*{message}"), edit_text_block(path, begin=BEGIN, end=END):
        pass  # pragma: no cover
    assert path.read_text() == text


def test_body_must_not_contain_the_markers(tmp_path: Path) -> None:
    path = tmp_path / "f.yml"
    with pytest.raises(ConfigError, match="contains its own marker"):
        install(path, f"a: 1\n{END}\n")
    assert not path.exists()


def test_validation_failure_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "f.yml"
    path.write_text("a: 1\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        install(path, "b: [unclosed\n")
    assert path.read_text() == "a: 1\n"


@pytest.mark.parametrize(("begin", "end"), [("# x", "# x"), ("", "# y"), ("# a\n# b", "# y")])
def test_bad_markers_are_a_programming_error(tmp_path: Path, begin: str, end: str) -> None:
    with (
        pytest.raises(ValueError, match="begin and end"),
        edit_text_block(tmp_path / "f", begin=begin, end=end),
    ):
        pass  # pragma: no cover


lines = st.text(st.characters(exclude_characters="\r\n", exclude_categories=["Cs"]), max_size=10)


@settings(max_examples=100, deadline=None)
@given(
    body=st.lists(lines, max_size=4),
    original_lines=st.lists(lines, max_size=4),
    newline=st.sampled_from(["\n", "\r\n"]),
    final_newline=st.booleans(),
)
def test_install_uninstall_round_trip_for_any_text(
    body: list[str], original_lines: list[str], newline: str, final_newline: bool
) -> None:
    import tempfile

    original = newline.join(original_lines) + (newline if final_newline and original_lines else "")
    if {BEGIN, END, BEGIN + NEWLINE_ADDED} & {*original_lines, *body}:
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "f.yml"
        path.write_bytes(original.encode())
        with edit_text_block(path, begin=BEGIN, end=END) as doc:
            doc.block = "".join(f"{line}\n" for line in body)
        with edit_text_block(path, begin=BEGIN, end=END) as doc:
            assert doc.block == "".join(f"{line}\n" for line in body)
            assert doc.text_outside == original
            doc.block = None
        assert path.read_bytes() == original.encode()
