"""``run(AgentClass)``: the protocol's subcommand dispatcher and its IO rules.

The Entire CLI execs the plugin once per subcommand and decodes its stdout into strict Go types, so:
one answer per process, nothing else on stdout (file descriptor 1 is pointed at stderr while agent
code runs, so a stray ``print`` or child process cannot corrupt the answer), errors as one line on
stderr with a non-zero exit, and only the chosen subcommand's module is imported (pip's
``commands_dict`` trick): ``info`` and ``parse-hook`` never pay for pydantic.
"""

from __future__ import annotations

import os
import sys

from entire_core.errors import AgentError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from entire_core.agent import Agent


# Kinds of flag values and of stdin.
STR, INT, BOOL = "string", "int", "bool"
NO_STDIN, ALL_STDIN, HOOK_STDIN = "none", "all", "hook"

HOOK_STDIN_WAIT_SECONDS = 0.5
"""How long ``parse-hook`` waits for a payload on a pipe that stays open and silent (IDEs do this)."""


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


_B = "entire_core.commands.basic:"
_S = "entire_core.commands.session:"
_T = "entire_core.commands.transcript:"
_H = "entire_core.commands.hooks:"

SUBCOMMANDS: dict[str, Spec] = {
    "info": Spec(_B + "info", "describe this plugin (JSON)"),
    "detect": Spec(_B + "detect", "is the agent used in this repository"),
    "get-session-id": Spec(_S + "get_session_id", "session id of a hook input", stdin=ALL_STDIN),
    "get-session-dir": Spec(_S + "get_session_dir", "where sessions live", {"repo-path": STR}),
    "resolve-session-file": Spec(
        _S + "resolve_session_file", "file of a session", {"session-dir": STR, "session-id": STR}
    ),
    "read-session": Spec(_S + "read_session", "read a stored session", stdin=ALL_STDIN),
    "write-session": Spec(_S + "write_session", "restore a session's transcript", stdin=ALL_STDIN),
    "read-transcript": Spec(_T + "read_transcript", "print a transcript's bytes", {"session-ref": STR}),
    "chunk-transcript": Spec(_T + "chunk_transcript", "split a transcript", {"max-size": INT}, ALL_STDIN),
    "reassemble-transcript": Spec(_T + "reassemble_transcript", "join transcript chunks", stdin=ALL_STDIN),
    "format-resume-command": Spec(_S + "format_resume_command", "command to resume", {"session-id": STR}),
    "parse-hook": Spec(
        _H + "parse_hook", "turn a hook payload into an event", {"hook": STR}, HOOK_STDIN, "hooks"
    ),
    "install-hooks": Spec(
        _H + "install_hooks", "install hooks", {"local-dev": BOOL, "force": BOOL}, capability="hooks"
    ),
    "uninstall-hooks": Spec(_H + "uninstall_hooks", "remove our hooks", capability="hooks"),
    "are-hooks-installed": Spec(_H + "are_hooks_installed", "are our hooks installed", capability="hooks"),
    "get-transcript-position": Spec(
        _T + "get_transcript_position", "end of a transcript", {"path": STR}, capability="transcript_analyzer"
    ),
    "extract-modified-files": Spec(
        _T + "extract_modified_files",
        "files changed after an offset",
        {"path": STR, "offset": INT},
        capability="transcript_analyzer",
    ),
    "extract-prompts": Spec(
        _T + "extract_prompts",
        "user prompts after an offset",
        {"session-ref": STR, "offset": INT},
        capability="transcript_analyzer",
    ),
    "extract-summary": Spec(
        _T + "extract_summary",
        "last assistant message",
        {"session-ref": STR},
        capability="transcript_analyzer",
    ),
    "prepare-transcript": Spec(
        _T + "prepare_transcript",
        "flush a transcript",
        {"session-ref": STR},
        capability="transcript_preparer",
    ),
    "calculate-tokens": Spec(
        _T + "calculate_tokens", "token usage after an offset", {"offset": INT}, ALL_STDIN, "token_calculator"
    ),
    "compact-transcript": Spec(
        _T + "compact_transcript",
        "compact transcript (base64 JSONL)",
        {"session-ref": STR},
        capability="compact_transcript",
    ),
    "generate-text": Spec(
        _B + "generate_text", "answer a prompt", {"model": STR}, ALL_STDIN, "text_generator"
    ),
    "write-hook-response": Spec(
        _B + "write_hook_response", "native hook output", {"message": STR}, capability="hook_response_writer"
    ),
    "extract-all-modified-files": Spec(
        _T + "extract_all_modified_files",
        "files changed, subagents included",
        {"offset": INT, "subagents-dir": STR},
        ALL_STDIN,
        "subagent_aware_extractor",
    ),
    "calculate-total-tokens": Spec(
        _T + "calculate_total_tokens",
        "token usage, subagents included",
        {"offset": INT, "subagents-dir": STR},
        ALL_STDIN,
        "subagent_aware_extractor",
    ),
}


FLAG_HELP: dict[str, str] = {
    "repo-path": "the repository's root directory",
    "session-dir": "the directory get-session-dir answered",
    "session-id": "the session's id: letters, digits, '.', '_' and '-'",
    "session-ref": "the session's transcript file",
    "path": "the session's transcript file",
    "max-size": "the largest chunk, in bytes (a positive integer)",
    "hook": "the hook's name, one of info's hook_names (required)",
    "local-dev": "accepted and ignored: older Entire CLIs send it",
    "force": "reinstall our hooks even when they are installed",
    "offset": "where the previous read stopped, from an earlier answer (0: the start)",
    "model": "the model to ask",
    "message": "the text to show",
    "subagents-dir": "where the session's subagent transcripts are (empty: none)",
}
"""One line of ``--help`` for every flag a subcommand takes."""


class Flags:
    """Parsed flag values of one subcommand, read with ``str_``/``int_``/``bool_``."""

    __slots__ = ("_values", "given")

    def __init__(self, values: dict[str, str | int | bool], given: set[str]) -> None:
        self._values = values
        self.given = given

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


def parse_flags(args: Sequence[str], kinds: dict[str, str]) -> Flags:
    """Parse ``args`` as Go's ``flag`` package does: ``-f v``, ``--f v``, ``--f=v``, bools without value.

    Empty values are real values (the CLI passes ``--subagents-dir ""``). Unknown flags and
    positional arguments are usage errors.
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
        if not name or name[0] in "-=":
            raise UsageError(f"bad flag syntax: {arg}")
        value: str | None = None
        if "=" in name:
            name, value = name.split("=", 1)
        kind = kinds.get(name)
        if kind is None:
            raise UsageError(f"flag provided but not defined: -{name}")
        if kind == BOOL:
            if value is None or value in _TRUE:
                values[name] = True
            elif value in _FALSE:
                values[name] = False
            else:
                raise UsageError(f'invalid boolean value "{value}" for -{name}')
        else:
            if value is None:
                if i + 1 >= len(args):
                    raise UsageError(f"flag needs an argument: -{name}")
                i += 1
                value = args[i]
            values[name] = _parse_int(name, value) if kind == INT else value
        given.add(name)
        i += 1
    if i < len(args):
        raise UsageError(f"unexpected argument: {args[i]!r}")
    return Flags(values, given)


def _parse_int(name: str, value: str) -> int:
    digits = value[1:] if value[:1] in "+-" else value
    if not digits or not digits.isascii() or not digits.isdigit() or len(digits) > 18:
        raise UsageError(f'invalid value "{value}" for flag -{name}: not an integer')
    return int(value)


# -- stdin and stdout -----------------------------------------------------------------------------------


def read_stdin(*, wait: float | None = None) -> bytes:
    """All of stdin as bytes; a terminal or missing stdin reads as empty.

    With ``wait``, stop when the pipe stays silent that long: the CLI closes the pipe after the
    payload, but some callers keep it open without writing, and a hook must never hang on that.
    """
    try:
        fd = sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return b""
    if os.isatty(fd):
        return b""
    if wait is None:
        return _read_all(fd)
    if _THREADED_STDIN:
        return _read_with_thread(fd, wait)
    import select

    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            break
        data = os.read(fd, 1 << 16)
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    while data := os.read(fd, 1 << 20):
        chunks.append(data)
    return b"".join(chunks)


_THREADED_STDIN = sys.platform == "win32"
"""Windows cannot ``select`` on a pipe, so a thread reads stdin there (tests force this on Linux)."""


def _read_with_thread(fd: int, wait: float) -> bytes:
    """Like the ``select`` loop: read until EOF or until the pipe stays silent for ``wait`` seconds.

    The daemon thread reads the raw fd with ``os.read``: a thread still blocked in
    ``sys.stdin.buffer.read()`` holds the BufferedReader's lock, and interpreter shutdown then aborts
    with "could not acquire lock for <stdin>" (exit 134) after the answer was computed.
    """
    import threading

    chunks: list[bytes] = []
    eof: list[bool] = []
    arrived = threading.Condition()

    def pump() -> None:
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except OSError:
                data = b""
            with arrived:
                if data:
                    chunks.append(data)
                else:
                    eof.append(True)
                arrived.notify()
            if not data:
                return

    threading.Thread(target=pump, name="stdin-reader", daemon=True).start()
    with arrived:
        while not eof:
            seen = len(chunks)
            arrived.wait(wait)
            if len(chunks) == seen and not eof:
                break  # silent for `wait` seconds with the pipe still open
        return b"".join(chunks)


def encode_answer(answer: bytes | dict[str, object] | None) -> bytes:
    """The exact stdout bytes of an answer: raw bytes as they are, JSON as one value and a newline."""
    if answer is None:
        return b""
    if isinstance(answer, bytes):
        return answer
    from entire_core import _json

    return (_json.dumps(answer) + "\n").encode("utf-8")


# -- errors ---------------------------------------------------------------------------------------------


def one_line(message: str, limit: int = 2000) -> str:
    """Collapse a message to a single line the CLI can show after ``<subcommand>: ``."""
    text = " ".join(message.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(exc: BaseException) -> tuple[str, int]:
    if isinstance(exc, AgentError):
        return str(exc), exc.exit_code
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror or exc}{where}", 1
    if type(exc).__name__ == "ValidationError":  # pydantic, not imported here on purpose
        from entire_core.protocol import describe_validation_error

        return describe_validation_error(exc), 1
    if isinstance(exc, MemoryError):
        return "out of memory", 1
    return f"internal error: {type(exc).__name__}: {exc}", 1


# -- dispatch -------------------------------------------------------------------------------------------


def _program(agent_cls: type[Agent]) -> str:
    return f"entire-agent-{agent_cls.name}"


def usage(agent_cls: type[Agent]) -> str:
    """The ``--help`` text: every subcommand this agent answers and its human commands."""
    lines = [
        f"usage: {_program(agent_cls)} <subcommand> [flags]",
        "",
        f"{agent_cls.description}",
        "This is an Entire CLI external-agent plugin: the Entire CLI runs it; the commands below",
        "marked * are for people.",
        "",
        "protocol subcommands:",
    ]
    for name, spec in SUBCOMMANDS.items():
        if spec.capability is None or agent_cls.has(spec.capability):
            lines.append(f"  {name:<28} {spec.summary}")
            for flag, kind in spec.flags.items():
                shown = f"--{flag}" if kind == BOOL else f"--{flag} <{kind}>"
                lines.append(f"      {shown:<26} {FLAG_HELP[flag]}")
    if agent_cls.commands:
        lines.append("")
        lines.append("commands for people (each takes --help):")
        for name, command in agent_cls.commands.items():
            lines.append(f"* {name:<27} {command.summary}")
            lines += [f"      {flag:<26} {text}" for flag, text in command.flags.items()]
    lines += ["", f"  {'--help':<32} this text", f"  {'--version':<32} versions"]
    return "\n".join(lines) + "\n"


def _load(target: str) -> Callable[..., object]:
    module_name, _, func = target.partition(":")
    __import__(module_name)
    handler: Callable[..., object] = getattr(sys.modules[module_name], func)
    return handler


def run(agent_cls: type[Agent], argv: Sequence[str] | None = None) -> int:
    """Run one subcommand for ``agent_cls`` and return the process exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    program = _program(agent_cls)
    if not args:
        sys.stderr.write(f"{program}: missing subcommand (run '{program} --help' for the list)\n")
        return 2
    name, rest = args[0], args[1:]
    if name in ("--help", "-h", "-help", "help"):
        sys.stdout.write(usage(agent_cls))
        return 0
    if name in ("--version", "-version", "version"):
        from entire_core import PROTOCOL_VERSION, __version__

        sys.stdout.write(
            f"{program} {agent_cls.version} (entire-core {__version__}, protocol {PROTOCOL_VERSION})\n"
        )
        return 0
    command = agent_cls.commands.get(name)
    if command is not None:
        return _run_human_command(agent_cls, command, rest)
    spec = SUBCOMMANDS.get(name)
    if spec is None:
        sys.stderr.write(f"{program}: unknown subcommand {name!r} (run '{program} --help' for the list)\n")
        return 2
    return _run_protocol(agent_cls, name, spec, rest)


def _run_protocol(agent_cls: type[Agent], name: str, spec: Spec, args: list[str]) -> int:
    # While agent code runs, fd 1 points at stderr: only the answer may reach the CLI's stdout.
    sys.stdout.flush()
    answer_fd = os.dup(1)
    os.dup2(2, 1)
    try:
        try:
            if spec.capability is not None and not agent_cls.has(spec.capability):
                raise AgentError(
                    f"{name} is not supported: {agent_cls.name} does not declare {spec.capability}"
                )
            flags = parse_flags(args, spec.flags)
            if spec.stdin == HOOK_STDIN:
                stdin = read_stdin(wait=HOOK_STDIN_WAIT_SECONDS)
            elif spec.stdin == ALL_STDIN:
                stdin = read_stdin()
            else:
                stdin = b""
            answer = _load(spec.target)(agent_cls(), flags, stdin)
            if answer is not None and not isinstance(answer, (bytes, dict)):
                raise TypeError(f"handler of {name} returned {type(answer).__name__}")
            output = encode_answer(answer)  # pyright: ignore[reportUnknownArgumentType]
        except KeyboardInterrupt:
            return 130
        except BaseException as exc:  # every failure becomes one line; a traceback helps nobody
            if isinstance(exc, SystemExit):
                raise
            message, code = _describe(exc)
            _print_error(message)
            if os.environ.get("ENTIRE_AGENT_DEBUG"):
                import traceback

                traceback.print_exc()
            return code
        sys.stdout.flush()
        return _write_answer(answer_fd, output)
    finally:
        os.dup2(answer_fd, 1)
        os.close(answer_fd)


def _write_answer(fd: int, data: bytes) -> int:
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except BrokenPipeError:
        return 1
    return 0


def _print_error(message: str) -> None:
    try:
        sys.stderr.write(one_line(message) + "\n")
        sys.stderr.flush()
    except OSError:
        pass


def _run_human_command(agent_cls: type[Agent], command: object, args: list[str]) -> int:
    from entire_core.agent import Command

    assert isinstance(command, Command)
    name = next(n for n, c in agent_cls.commands.items() if c is command)
    if args[:1] in (["--help"], ["-h"], ["-help"]):
        sys.stdout.write(command.usage(_program(agent_cls), name))
        return 0
    if not command.args:
        # A command without free arguments takes only the flags it declares ("--aider PATH" takes a value).
        kinds = {flag.split()[0].lstrip("-"): STR if " " in flag else BOOL for flag in command.flags}
        try:
            parse_flags(args, kinds)
        except UsageError as exc:
            program = _program(agent_cls)
            _print_error(f"{program} {name}: {exc} (see '{program} {name} --help')")
            return 2
    try:
        result = _load(command.target)(agent_cls(), args)
    except KeyboardInterrupt:
        return 130
    except BaseException as exc:
        if isinstance(exc, SystemExit):
            raise
        message, code = _describe(exc)
        _print_error(f"{_program(agent_cls)}: {message}")
        return code
    return int(result) if isinstance(result, int) else 0
