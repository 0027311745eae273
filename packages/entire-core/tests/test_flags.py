"""Flag parsing follows Go's ``flag`` package, which is what the Entire CLI's plugins are tested against."""

from __future__ import annotations

import sys
import types

import pytest
from entire_core.agent import Agent, Command
from entire_core.cli import run
from entire_core.cli_flags import BOOL, INT, STR, Flags, HelpRequested, parse_flags
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


# -- a command that passes arguments on (``rest``), and human commands declared per ``Command`` ---------


@pytest.mark.parametrize(
    ("args", "path", "rest"),
    [
        (["--path", "a", "--model", "m"], "a", ("--model", "m")),  # the first flag not ours starts the rest
        (["--path=a", "--", "--path", "b"], "a", ("--path", "b")),  # "--" ends ours and is dropped
        (["file.py", "--path", "b"], "", ("file.py", "--path", "b")),  # so does a positional argument
        (["---x", "--path", "b"], "", ("---x", "--path", "b")),  # bad syntax for us, someone else's flag
        (["--", "--"], "", ("--",)),
        ([], "", ()),
    ],
)
def test_rest_is_what_follows_the_flags(args: list[str], path: str, rest: tuple[str, ...]) -> None:
    flags = parse_flags(args, KINDS, rest=True)
    assert (flags.str_("path"), flags.args) == (path, rest)
    assert parse_flags(["--path", "a"], KINDS).args == ()


def test_rest_still_checks_our_own_flags() -> None:
    with pytest.raises(UsageError, match="flag needs an argument: -path"):
        parse_flags(["--path"], KINDS, rest=True)
    with pytest.raises(UsageError, match="not an integer"):
        parse_flags(["--offset", "x", "--model"], KINDS, rest=True)
    with pytest.raises(HelpRequested):
        parse_flags(["--path", "a", "-h", "--model"], KINDS, rest=True)


def test_a_command_declares_its_flags_and_their_kinds() -> None:
    command = Command(
        "m:f",
        "does things",
        flags={"--project": "a bool", "--binary PATH": "a string", "--pid PID": "an int"},
        kinds={"pid": INT},
    )
    assert command.kinds == {"project": BOOL, "binary": STR, "pid": INT}
    flags = command.parse(["-project", "--binary=b", "--pid", "7"])
    assert (flags.bool_("project"), flags.str_("binary"), flags.int_("pid"), flags.args) == (True, "b", 7, ())
    with pytest.raises(UsageError, match="unexpected argument"):
        command.parse(["--project", "more"])
    with pytest.raises(ValueError, match="not declared"):
        Command("m:f", "s", flags={"--pid PID": "an int"}, kinds={"pdi": INT})
    passing = Command(
        "m:f", "runs a tool", flags={"--binary PATH": "the tool"}, args="[--] [its arguments...]"
    )
    assert passing.parse(["--binary", "t", "--its-flag", "x"]).args == ("--its-flag", "x")


class _Commands(Agent):
    name = "probe"
    type = "Probe"
    description = "a probe"
    commands = {
        "count": Command("cmdprobe:count", "counts", flags={"--times N": "how many"}, kinds={"times": INT}),
        "wrap": Command(
            "cmdprobe:wrap", "wraps a tool", flags={"--tool PATH": "the tool"}, args="[--] [args...]"
        ),
    }


@pytest.fixture
def called(monkeypatch: pytest.MonkeyPatch) -> list[Flags]:
    """The flags each call of a probe command received (its module is ``cmdprobe``)."""
    seen: list[Flags] = []
    module = types.ModuleType("cmdprobe")

    def count(agent: Agent, flags: Flags) -> int:
        seen.append(flags)
        return flags.int_("times")

    def wrap(agent: Agent, flags: Flags) -> int:
        seen.append(flags)
        return 0

    module.count = count  # type: ignore[attr-defined]
    module.wrap = wrap  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cmdprobe", module)
    return seen


def test_the_dispatcher_hands_a_command_its_parsed_flags(
    called: list[Flags], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(_Commands, ["count", "--times=3"]) == 3
    assert run(_Commands, ["wrap", "--tool", "t", "--", "-x", "y"]) == 0
    assert [(f.given, f.args) for f in called] == [({"times"}, ()), ({"tool"}, ("-x", "y"))]
    assert called[1].str_("tool") == "t"
    capsys.readouterr()
    assert run(_Commands, ["count", "--times", "many"]) == 2  # a usage error, never the command
    assert run(_Commands, ["count", "extra"]) == 2
    assert len(called) == 2
    assert capsys.readouterr().err.splitlines() == [
        'entire-agent-probe count: invalid value "many" for flag -times: not an integer: '
        "see 'entire-agent-probe count --help'",
        "entire-agent-probe count: unexpected argument: 'extra': see 'entire-agent-probe count --help'",
    ]
    for args in (["wrap", "--tool", "t", "--help"], ["count", "-help"]):
        assert run(_Commands, args) == 0
        assert capsys.readouterr().out.startswith(f"usage: entire-agent-probe {args[0]} [")
    assert len(called) == 2
