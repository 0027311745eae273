"""What a subcommand accepts, and its command line parsed the way Go's ``flag`` package does.

``Spec`` declares one subcommand (handler, flags, stdin, capability); ``parse_flags`` turns its
arguments into ``Flags``. The Entire CLI is written in Go, so ``-f v``, ``--f v``, ``--f=v`` and bare
bools all mean the same, and an unknown flag is a usage error, as there.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

# Kinds of flag values and of stdin.
STR, INT, BOOL = "string", "int", "bool"
NO_STDIN, ALL_STDIN, HOOK_STDIN = "none", "all", "hook"


class Spec:
    """One subcommand: where its handler lives, its flags, its stdin, the capability it needs."""

    __slots__ = ("capability", "flags", "stdin", "summary", "target")

    def __init__(
        self,
        target: str,
        summary: str,
        flags: dict[str, str] | None = None,
        stdin: str = NO_STDIN,
        capability: str | None = None,
    ) -> None:
        self.target = target
        self.summary = summary
        self.flags = flags or {}
        self.stdin = stdin
        self.capability = capability


class Flags:
    """Parsed flag values of one subcommand, read with ``str_``/``int_``/``bool_``.

    ``args`` holds what follows the flags, for a command that takes more than flags (``parse_flags``
    with ``rest``); it is empty otherwise.
    """

    __slots__ = ("_values", "args", "given")

    def __init__(
        self, values: dict[str, str | int | bool], given: set[str], args: Sequence[str] = ()
    ) -> None:
        self._values = values
        self.given = given
        self.args: tuple[str, ...] = tuple(args)

    def str_(self, name: str) -> str:
        """The value of a string flag ("" when not given)."""
        value = self._values[name]
        assert isinstance(value, str)
        return value

    def int_(self, name: str) -> int:
        """The value of an int flag (0 when not given)."""
        value = self._values[name]
        assert isinstance(value, int)
        return value

    def bool_(self, name: str) -> bool:
        """The value of a bool flag."""
        value = self._values[name]
        assert isinstance(value, bool)
        return value


_TRUE = frozenset(["1", "t", "T", "TRUE", "true", "True"])
_FALSE = frozenset(["0", "f", "F", "FALSE", "false", "False"])


class HelpRequested(Exception):
    """``-h``, ``-help`` or ``--help`` among the flags of a command that does not define them (Go's ErrHelp)."""


def parse_flags(
    args: Sequence[str], kinds: Mapping[str, str], *, program: str = "", rest: bool = False
) -> Flags:
    """Parse ``args`` as Go's ``flag`` package does: ``-f v``, ``--f v``, ``--f=v``, bools without value.

    Empty values are real values (the CLI passes ``--subagents-dir ""``). Unknown flags and
    positional arguments are usage errors, whose fix names ``program --help`` when given; ``-h`` and
    ``-help`` (either spelling) raise HelpRequested, as Go's ``flag`` does, unless ``kinds`` defines them.

    With ``rest`` (a command that passes arguments on, such as Aider's ``run``), the flags end at
    ``--`` (dropped), at the first positional argument or at the first flag ``kinds`` does not define;
    that argument and all after it are ``Flags.args``, and neither is an error.
    """
    values: dict[str, str | int | bool] = {
        name: (False if kind == BOOL else 0 if kind == INT else "") for name, kind in kinds.items()
    }
    given: set[str] = set()
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            i += 1
            break
        if len(arg) < 2 or arg[0] != "-":
            break
        name = arg[2:] if arg.startswith("--") else arg[1:]
        if (not name or name[0] in "-=") and rest:
            break
        if not name or name[0] in "-=":
            raise _usage(f"bad flag syntax: {arg}", program)
        value: str | None = None
        if "=" in name:
            name, value = name.split("=", 1)
        kind = kinds.get(name)
        if kind is None and name in ("h", "help"):
            raise HelpRequested
        if kind is None and rest:
            break
        if kind is None:
            raise _usage(f"flag provided but not defined: -{name}", program)
        if kind == BOOL:
            if value is None or value in _TRUE:
                values[name] = True
            elif value in _FALSE:
                values[name] = False
            else:
                raise _usage(f'invalid boolean value "{value}" for -{name}', program)
        else:
            if value is None:
                if i + 1 >= len(args):
                    raise _usage(f"flag needs an argument: -{name}", program)
                i += 1
                value = args[i]
            values[name] = _parse_int(name, value, program) if kind == INT else value
        given.add(name)
        i += 1
    if rest:
        return Flags(values, given, args[i:])
    if i < len(args):
        raise _usage(f"unexpected argument: {args[i]!r}", program)
    return Flags(values, given)


def _parse_int(name: str, value: str, program: str) -> int:
    digits = value[1:] if value[:1] in "+-" else value
    if not digits or not digits.isascii() or not digits.isdigit() or len(digits) > 18:
        raise _usage(f'invalid value "{value}" for flag -{name}: not an integer', program)
    return int(value)


def _usage(message: str, program: str) -> Exception:
    # Imported here: a well-formed command line (every hook's) never needs the error classes.
    from entire_core.errors import UsageError

    return UsageError(message, f"see '{program} --help'" if program else "")
