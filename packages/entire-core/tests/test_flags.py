"""Flag parsing follows Go's ``flag`` package, which is what the Entire CLI's plugins are tested against."""

from __future__ import annotations

import pytest
from entire_core.cli_flags import BOOL, INT, STR, parse_flags
from entire_core.errors import UsageError

KINDS = {"path": STR, "offset": INT, "force": BOOL, "subagents-dir": STR}


@pytest.mark.parametrize(
    "args",
    [
        ["--path", "a", "--offset", "5"],
        ["-path", "a", "-offset", "5"],
        ["--path=a", "--offset=5"],
        ["-path=a", "-offset=5"],
    ],
)
def test_value_forms(args: list[str]) -> None:
    flags = parse_flags(args, KINDS)
    assert (flags.str_("path"), flags.int_("offset"), flags.bool_("force")) == ("a", 5, False)


def test_empty_values_are_real_values() -> None:
    flags = parse_flags(["--subagents-dir", "", "--path="], KINDS)
    assert flags.str_("subagents-dir") == "" and "subagents-dir" in flags.given
    assert flags.str_("path") == "" and "path" in flags.given


def test_defaults_when_absent() -> None:
    flags = parse_flags([], KINDS)
    assert (flags.str_("path"), flags.int_("offset"), flags.bool_("force"), flags.given) == (
        "",
        0,
        False,
        set(),
    )


def test_bool_forms() -> None:
    assert parse_flags(["--force"], KINDS).bool_("force") is True
    assert parse_flags(["--force=false"], KINDS).bool_("force") is False
    assert parse_flags(["-force=1"], KINDS).bool_("force") is True
    # A bool flag never eats the next argument, so a stray word after it is a positional: refused.
    with pytest.raises(UsageError, match="unexpected argument"):
        parse_flags(["--force", "true"], KINDS)


def test_value_that_looks_like_a_flag_is_taken() -> None:
    assert parse_flags(["--path", "--offset"], KINDS).str_("path") == "--offset"


def test_last_occurrence_wins() -> None:
    assert parse_flags(["--offset", "1", "--offset", "2"], KINDS).int_("offset") == 2


def test_double_dash_ends_flags() -> None:
    with pytest.raises(UsageError, match="unexpected argument"):
        parse_flags(["--", "--path", "x"], KINDS)
    assert parse_flags(["--offset", "3", "--"], KINDS).int_("offset") == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--nope", "x"], "flag provided but not defined: -nope"),
        (["--path"], "flag needs an argument: -path"),
        (["--offset", "abc"], 'invalid value "abc" for flag -offset'),
        (["--offset", "1.5"], "not an integer"),
        (["--offset", "1_000"], "not an integer"),
        (["--offset", " 5"], "not an integer"),
        (["--offset", "99999999999999999999"], "not an integer"),
        (["--force=maybe"], "invalid boolean value"),
        (["---path", "x"], "bad flag syntax"),
        (["-=x"], "bad flag syntax"),
        (["positional"], "unexpected argument"),
    ],
)
def test_errors(args: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        parse_flags(args, KINDS)


def test_negative_and_signed_ints_parse() -> None:
    assert parse_flags(["--offset", "-3"], KINDS).int_("offset") == -3
    assert parse_flags(["--offset", "+3"], KINDS).int_("offset") == 3
