"""``run(AgentClass)``: the protocol's dispatch table, usage text and error convention.

The Entire CLI execs the plugin once per subcommand: one answer per process, nothing else on stdout
(``cli_stdio``), errors as one line on stderr with a non-zero exit, never a traceback. Handlers
(``entire_core.commands``) import what only they need inside themselves, so ``info`` and
``parse-hook`` never pay for pydantic; the flags are parsed by ``cli_flags``. A console script ends
with ``exit_now``, which spares the process the interpreter's clean-up.
"""

from __future__ import annotations

import os
import sys

from entire_core import program_name
from entire_core.cli_flags import ALL_STDIN, BOOL, HOOK_STDIN, INT, STR, HelpRequested, Spec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import NoReturn

    from entire_core.agent import Agent
    from entire_core.cli_stdio import AnswerChannel


_C = "entire_core.commands:"

SUBCOMMANDS: dict[str, Spec] = {
    "info": Spec(_C + "info", "describe this plugin (JSON)"),
    "detect": Spec(_C + "detect", "is the agent used in this repository"),
    "get-session-id": Spec(_C + "get_session_id", "session id of a hook input", stdin=ALL_STDIN),
    "get-session-dir": Spec(_C + "get_session_dir", "where sessions live", {"repo-path": STR}),
    "resolve-session-file": Spec(
        _C + "resolve_session_file", "file of a session", {"session-dir": STR, "session-id": STR}
    ),
    "read-session": Spec(_C + "read_session", "read a stored session", stdin=ALL_STDIN),
    "write-session": Spec(_C + "write_session", "restore a session's transcript", stdin=ALL_STDIN),
    "read-transcript": Spec(_C + "read_transcript", "print a transcript's bytes", {"session-ref": STR}),
    "chunk-transcript": Spec(_C + "chunk_transcript", "split a transcript", {"max-size": INT}, ALL_STDIN),
    "reassemble-transcript": Spec(_C + "reassemble_transcript", "join transcript chunks", stdin=ALL_STDIN),
    "format-resume-command": Spec(_C + "format_resume_command", "command to resume", {"session-id": STR}),
    "parse-hook": Spec(
        _C + "parse_hook", "turn a hook payload into an event", {"hook": STR}, HOOK_STDIN, "hooks"
    ),
    "install-hooks": Spec(
        _C + "install_hooks", "install hooks", {"local-dev": BOOL, "force": BOOL}, capability="hooks"
    ),
    "uninstall-hooks": Spec(_C + "uninstall_hooks", "remove our hooks", capability="hooks"),
    "are-hooks-installed": Spec(_C + "are_hooks_installed", "are our hooks installed", capability="hooks"),
    "get-transcript-position": Spec(
        _C + "get_transcript_position", "end of a transcript", {"path": STR}, capability="transcript_analyzer"
    ),
    "extract-modified-files": Spec(
        _C + "extract_modified_files",
        "files changed after an offset",
        {"path": STR, "offset": INT},
        capability="transcript_analyzer",
    ),
    "extract-prompts": Spec(
        _C + "extract_prompts",
        "user prompts after an offset",
        {"session-ref": STR, "offset": INT},
        capability="transcript_analyzer",
    ),
    "extract-summary": Spec(
        _C + "extract_summary",
        "last assistant message",
        {"session-ref": STR},
        capability="transcript_analyzer",
    ),
    "prepare-transcript": Spec(
        _C + "prepare_transcript",
        "flush a transcript",
        {"session-ref": STR},
        capability="transcript_preparer",
    ),
    "calculate-tokens": Spec(
        _C + "calculate_tokens", "token usage after an offset", {"offset": INT}, ALL_STDIN, "token_calculator"
    ),
    "compact-transcript": Spec(
        _C + "compact_transcript",
        "compact transcript (base64 JSONL)",
        {"session-ref": STR},
        capability="compact_transcript",
    ),
    "generate-text": Spec(
        _C + "generate_text", "answer a prompt", {"model": STR}, ALL_STDIN, "text_generator"
    ),
    "write-hook-response": Spec(
        _C + "write_hook_response", "native hook output", {"message": STR}, capability="hook_response_writer"
    ),
    "extract-all-modified-files": Spec(
        _C + "extract_all_modified_files",
        "files changed, subagents included",
        {"offset": INT, "subagents-dir": STR},
        ALL_STDIN,
        "subagent_aware_extractor",
    ),
    "calculate-total-tokens": Spec(
        _C + "calculate_total_tokens",
        "token usage, subagents included",
        {"offset": INT, "subagents-dir": STR},
        ALL_STDIN,
        "subagent_aware_extractor",
    ),
}


READING = frozenset([
    "info", "detect", "get-session-id", "get-session-dir", "resolve-session-file", "read-session",
    "read-transcript", "chunk-transcript", "reassemble-transcript", "format-resume-command",
    "are-hooks-installed", "get-transcript-position", "extract-modified-files", "extract-prompts",
    "extract-summary", "calculate-tokens", "compact-transcript", "extract-all-modified-files",
    "calculate-total-tokens",
])  # fmt: skip
"""The subcommands that only read: the host calls them whenever it likes, so each must change no file
(issue 37; the contract kit's ``contract_reading`` and ``make faults`` hold every agent to it)."""


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


# -- errors ---------------------------------------------------------------------------------------------


def _describe(exc: BaseException) -> tuple[str, str, int]:
    """What went wrong, what to do about it (or ""), and the exit status."""
    from entire_core.errors import AgentError

    if isinstance(exc, AgentError):
        return str(exc), exc.fix, exc.exit_code
    if isinstance(exc, OSError):
        where = f": {exc.filename}" if exc.filename else ""
        return f"{exc.strerror or exc}{where}", "", 1
    if type(exc).__name__ == "ValidationError":  # pydantic, not imported here on purpose
        from entire_core.protocol import describe_validation_error

        return describe_validation_error(exc), "", 1
    if isinstance(exc, MemoryError):
        return "out of memory", "", 1
    return f"internal error: {type(exc).__name__}: {exc}", "set ENTIRE_AGENT_DEBUG=1 for the traceback", 1


# -- dispatch -------------------------------------------------------------------------------------------


def _program(agent_cls: type[Agent]) -> str:
    return program_name(agent_cls.name)


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


def subcommand_usage(agent_cls: type[Agent], name: str) -> str:
    """The ``<subcommand> --help`` text: its synopsis, what it does, what it reads and each flag."""
    spec = SUBCOMMANDS[name]
    shown = [f"--{flag}" if kind == BOOL else f"--{flag} <{kind}>" for flag, kind in spec.flags.items()]
    lines = [" ".join([f"usage: {_program(agent_cls)} {name}", *(f"[{f}]" for f in shown)]), "", spec.summary]
    if spec.stdin != "none":
        lines.append("Reads its input on stdin; the Entire CLI runs it (see the plugin's --help).")
    if spec.flags:
        lines.append("")
        lines += [f"  {flag:<26} {FLAG_HELP[key]}" for flag, key in zip(shown, spec.flags, strict=True)]
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
    see = f"run '{program} --help' for the list"
    if not args:
        from entire_core.cli_stdio import print_error

        print_error(agent_cls.name, "", "missing subcommand", see)
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
        from entire_core.cli_stdio import print_error

        print_error(agent_cls.name, "", f"unknown subcommand {name!r}", see)
        return 2
    return _run_protocol(agent_cls, name, spec, rest)


def console_main(agent: str) -> Callable[[], NoReturn]:
    """The ``main`` of an agent's console script: ``run`` the agent class at ``agent`` (``"module:Class"``),
    then ``exit_now``. The class is imported when the script runs, not when its package is imported.
    Run from the launcher an installer wrote, it then puts the front there (``entire_core.front``)."""

    def main() -> NoReturn:
        agent_cls = _load(agent)
        assert isinstance(agent_cls, type)
        code = run(agent_cls)
        # Started from the installer's launcher (not by a front, as ``python -c``): put the front in its
        # place, unless the user said not to (ENTIRE_AGENT_FRONT=0 keeps the plain Python launcher).
        if sys.argv[:1] != ["-c"] and os.environ.get("ENTIRE_AGENT_FRONT") != "0":
            from entire_core import front

            front.adopt(agent_cls)
        exit_now(code)

    return main


def exit_now(code: int) -> NoReturn:
    """End a console script with ``code`` at once, skipping the interpreter's clean-up where nothing needs it.

    Freeing every module and object at exit costs a hook about 2 ms, a sixth of its start-up, to no
    purpose: the answer is written, our files are closed, the kernel frees the rest. Where something
    registered work for exit (an ``atexit`` callback: coverage, logging, temporary files) or another
    thread still runs, the normal exit runs instead. Never call this in-process (tests call ``run``).
    """
    import atexit

    ncallbacks = getattr(atexit, "_ncallbacks", None)
    threading = sys.modules.get("threading")
    if ncallbacks is None or ncallbacks() or (threading is not None and threading.active_count() > 1):
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # a closed or broken stream: what it held could not be written anyway
    os._exit(code)


def _run_protocol(agent_cls: type[Agent], name: str, spec: Spec, args: list[str]) -> int:
    from entire_core.cli_stdio import AnswerChannel

    with AnswerChannel() as answer:
        if not os.environ.get("ENTIRE_PLUGIN_TRACE"):
            return _answer(agent_cls, name, spec, args, answer)
        from entire_core import trace

        seen: dict[str, bytes] = {}
        reads = trace.note_reads(os.environ["ENTIRE_PLUGIN_TRACE"] + ".files")
        code = _answer(agent_cls, name, spec, args, answer, seen)
        trace.write(agent_cls.name, name, args, seen, code, reads)
        return code


def _answer(
    agent_cls: type[Agent],
    name: str,
    spec: Spec,
    args: list[str],
    answer: AnswerChannel,
    seen: dict[str, bytes] | None = None,
) -> int:
    """Parse, read stdin, call the handler and write its answer; any failure is one line on stderr."""
    from entire_core import cli_stdio
    from entire_core.cli_flags import parse_flags

    try:
        if spec.capability is not None and not agent_cls.has(spec.capability):
            from entire_core.errors import AgentError

            raise AgentError(f"not supported: {agent_cls.name} does not declare {spec.capability}")
        try:
            flags = parse_flags(args, spec.flags, program=f"{_program(agent_cls)} {name}")
        except HelpRequested:  # a person asking, as Go's flag package answers -h: usage, exit 0
            return answer.write(subcommand_usage(agent_cls, name).encode("utf-8"))
        if spec.stdin == HOOK_STDIN:
            stdin = cli_stdio.read_stdin(wait=cli_stdio.HOOK_STDIN_WAIT_SECONDS)
        elif spec.stdin == ALL_STDIN:
            stdin = cli_stdio.read_stdin()
        else:
            stdin = b""
        if seen is not None:
            seen["stdin"] = stdin
        result = _load(spec.target)(agent_cls(), flags, stdin)
        if result is not None and not isinstance(result, (bytes, dict)):
            raise TypeError(f"handler of {name} returned {type(result).__name__}")
        output = cli_stdio.encode_answer(result)  # pyright: ignore[reportUnknownArgumentType]
    except KeyboardInterrupt:
        return 130
    except BaseException as exc:  # every failure becomes one line; a traceback helps nobody
        if isinstance(exc, SystemExit):
            raise
        message, fix, code = _describe(exc)
        cli_stdio.print_error(agent_cls.name, name, message, fix)
        if os.environ.get("ENTIRE_AGENT_DEBUG"):
            import traceback

            traceback.print_exc()
        return code
    if seen is not None:
        seen["output"] = output
    return answer.write(output)


def _run_human_command(agent_cls: type[Agent], command: object, args: list[str]) -> int:
    """Parse the command's flags as it declares them, then call it with them; failures are one line."""
    from entire_core.agent import Command

    assert isinstance(command, Command)
    name = next(n for n, c in agent_cls.commands.items() if c is command)
    program = _program(agent_cls)
    if args[:1] in (["--help"], ["-h"], ["-help"]):
        sys.stdout.write(command.usage(program, name))
        return 0
    from entire_core.cli_stdio import print_error
    from entire_core.errors import UsageError

    try:
        flags = command.parse(args, f"{program} {name}")
    except UsageError as exc:
        print_error(agent_cls.name, name, str(exc), exc.fix)
        return 2
    except HelpRequested:
        sys.stdout.write(command.usage(program, name))
        return 0
    try:
        result = _load(command.target)(agent_cls(), flags)
    except KeyboardInterrupt:
        return 130
    except BaseException as exc:
        if isinstance(exc, SystemExit):
            raise
        message, fix, code = _describe(exc)
        print_error(agent_cls.name, name, message, fix)
        return code
    return int(result) if isinstance(result, int) else 0
