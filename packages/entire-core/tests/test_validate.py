"""Identifiers and paths from outside are checked before they touch the filesystem."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from entire_core import validate
from entire_core.errors import InvalidInput

GOOD_SESSION_IDS = [
    "abc",
    "01a22a67-d916-7711-8aa0-848df6c49ae4",
    "s_1.jsonl",
    "aider-20260101-100000-0a1b2c3d4e",
    "x" * 255,
]
BAD_SESSION_IDS = ["", " ", "..", ".", "a/b", "a\\b", "../etc", "C:", "c:x", "x:y", "*", "a?", "[a]", "a\0b",
                   "a\nb", " a", "a ", "a.", "CON", "con.txt", "LPT1", "a..b", "x" * 256,
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


@pytest.mark.parametrize("value", ["", "abc", "toolu_01-X"])
def test_good_tool_ids(value: str) -> None:
    assert validate.tool_id(value) == value


@pytest.mark.parametrize("value", ["a b", "a/b", "a.b", "é", "x" * 256])
def test_bad_tool_ids(value: str) -> None:
    with pytest.raises(InvalidInput, match="subagent_id"):
        validate.tool_id(value, "subagent_id")
    assert not validate.is_tool_id(value)


def test_is_tool_id_wants_a_non_empty_id_tool_id_accepts() -> None:
    assert validate.is_tool_id("toolu_01-X") and validate.is_tool_id("x" * 255)
    assert not validate.is_tool_id("")


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
