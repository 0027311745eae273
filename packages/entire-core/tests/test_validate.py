"""Identifiers and paths from outside are checked before they touch the filesystem."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from entire_core import validate
from entire_core.errors import InvalidInput

GOOD_SESSION_IDS = [
    "abc",
    "a",
    "9",
    "LPT10",  # Windows reserves COM0-COM9 and LPT0-LPT9, not two-digit numbers
    "COM10.jsonl",
    "CONSOLE",
    "a.b",
    "01a22a67-d916-7711-8aa0-848df6c49ae4",
    "s_1.jsonl",
    "aider-20260101-100000-0a1b2c3d4e",
    "x" * 255,
]
BAD_SESSION_IDS = ["", " ", "..", ".", "a/b", "a\\b", "../etc", "C:", "c:x", "x:y", "*", "a?", "[a]", "a\0b",
                   "a\nb", " a", "a ", "a.", "CON", "con.txt", "LPT1", "LPT0", "lpt9.log", "COM0", "com9", "NUL.x.y",
                   "conin$", "a..b", "x" * 256,
                   "a b", "é", "-rf", ".hidden", "_x", "x;y", "a'b", 'a"b', "$(id)", "`id`", "%P%", "a&b"]  # fmt: skip


@pytest.mark.parametrize("value", GOOD_SESSION_IDS)
def test_good_session_ids(value: str) -> None:
    assert validate.session_id(value) == value
    assert validate.is_session_id(value)


@pytest.mark.parametrize("value", BAD_SESSION_IDS)
def test_bad_session_ids(value: str) -> None:
    with pytest.raises(InvalidInput):
        validate.session_id(value)
    assert not validate.is_session_id(value)


@pytest.mark.parametrize("value", ["", "a", "abc", "toolu_01-X", "x" * 255])
def test_good_tool_ids(value: str) -> None:
    assert validate.tool_id(value) == value
    assert validate.is_tool_id(value) == bool(value)


@pytest.mark.parametrize("value", ["a b", "a/b", "a.b", "é", "x" * 256])
def test_bad_tool_ids(value: str) -> None:
    with pytest.raises(InvalidInput, match="subagent_id"):
        validate.tool_id(value, "subagent_id")
    assert not validate.is_tool_id(value)


def test_is_tool_id_wants_a_non_empty_id_tool_id_accepts() -> None:
    assert validate.is_tool_id("toolu_01-X") and validate.is_tool_id("x" * 255)
    assert not validate.is_tool_id("")


@pytest.mark.parametrize("value", ["", "gpt-4o", "gemini-2.5-pro", "openai/gpt-4o:latest", "a", "x" * 255])
def test_good_model_names(value: str) -> None:
    assert validate.model_name(value) == value


@pytest.mark.parametrize(
    ("value", "problem"),
    [("x" * 256, "longer than 255"), ("-m", "invalid model name"), ("a b", "invalid model name"),
     ("a%b", "invalid model name"), ("a&b", "invalid model name"), ('a"b', "invalid model name"),
     ("é", "invalid model name")],
)  # fmt: skip
def test_bad_model_names(value: str, problem: str) -> None:
    with pytest.raises(InvalidInput, match=problem):
        validate.model_name(value)


def test_a_too_long_tool_id_is_refused_for_its_length() -> None:
    with pytest.raises(InvalidInput, match="tool_use_id is longer than 255"):
        validate.tool_id("x" * 256)


def test_path_within_refuses_an_empty_path(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="path is empty"):
        validate.path_within(str(tmp_path), "")
    with pytest.raises(InvalidInput, match="NUL"):
        validate.path_within(str(tmp_path), "a\0b")


def test_path_within(tmp_path: Path) -> None:
    base = tmp_path / "base"
    base.mkdir()
    assert validate.path_within(str(base), "a/b.json") == os.path.join(str(base), "a/b.json")
    assert validate.path_within(str(base), "a/../b") == os.path.join(str(base), "a/../b")
    for escape in ("../x", "a/../../x", str(tmp_path / "other"), "\0"):
        with pytest.raises(InvalidInput):
            validate.path_within(str(base), escape)
    (base / "link").symlink_to(tmp_path)
    with pytest.raises(InvalidInput):
        validate.path_within(str(base), "link/escaped")


def test_external_path() -> None:
    assert validate.external_path("/a/b", "x") == "/a/b"
    for bad in ("", "/a/../b", "..\\x", "a\0"):
        with pytest.raises(InvalidInput):
            validate.external_path(bad, "x")


@pytest.mark.parametrize("blank", ["", " ", "\t\n", "   "])
def test_a_blank_session_id_is_called_empty(blank: str) -> None:
    # Whitespace alone is what a shell variable left unset tends to leave: name that, not its spaces.
    with pytest.raises(InvalidInput, match="session id is empty"):
        validate.session_id(blank)
