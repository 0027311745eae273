"""Handlers of the protocol subcommands, the targets of ``entire_core.cli.SUBCOMMANDS``.

Each handler takes ``(agent, flags, stdin)`` and returns raw bytes (written exactly), a dict (written
as one JSON value and a newline) or None (nothing on stdout). A handler's ``agent`` is typed as the
narrowest piece it uses: the capability mixin when that is all (the dispatcher has checked that the
agent declares it), ``Agent`` where it also needs the base class (views, session storage). What only
some handlers use (pydantic models, views, the error classes) is imported inside them, so this one
module is all that a hook loads of them.
"""

from __future__ import annotations

import os

from entire_core import MAX_TRANSCRIPT_BYTES, PROTOCOL_VERSION, validate
from entire_core.agent import (
    HookSupport,
    SubagentAwareExtractor,
    TokenCalculator,
    TranscriptAnalyzer,
    TranscriptCompactor,
    TranscriptPreparer,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent, HookResponseWriter, TextGenerator
    from entire_core.cli_flags import Flags
    from entire_core.views import Frame

# -- info, detect, generate-text, write-hook-response -------------------------------------------------


def info(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Everything the CLI needs to register the agent, computed from its class."""
    cls = type(agent)
    return {
        "protocol_version": PROTOCOL_VERSION,
        "name": cls.name,
        "type": cls.type,
        "description": cls.description,
        "is_preview": cls.is_preview,
        "protected_dirs": list(cls.protected_dirs),
        "protected_files": list(cls.protected_files),
        "hook_names": list(agent.hook_names) if isinstance(agent, HookSupport) else [],
        "capabilities": cls.capabilities(),
        "caller_env_vars": list(cls.caller_env_vars),
    }


def detect(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Whether the agent is in use in the repository."""
    return {"present": bool(agent.detect())}


def generate_text(agent: TextGenerator, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The agent's answer to the prompt on stdin."""
    prompt = stdin.decode("utf-8", errors="replace")
    if not prompt.strip():
        from entire_core.errors import InvalidInput

        raise InvalidInput("generate-text needs the prompt on stdin")
    return {"text": agent.generate_text(prompt, flags.str_("model"))}


def write_hook_response(agent: HookResponseWriter, flags: Flags, stdin: bytes) -> bytes:
    """The message in the agent's own hook-output format, as raw bytes."""
    return agent.write_hook_response(flags.str_("message"))


# -- sessions: ids, directories, files, reading and restoring, the resume command -----------------------

HOOK_INPUT = 'a hook input, a JSON object ({"session_id": ..., "session_ref": ...})'


def get_session_id(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The session id of the HookInput on stdin."""
    from entire_core.protocol import HookInput, parse_json

    session_id = agent.get_session_id(parse_json(HookInput, stdin, HOOK_INPUT))
    if session_id:
        validate.session_id(session_id)
    return {"session_id": session_id}


def get_session_dir(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The directory that holds this agent's sessions for ``--repo-path``."""
    repo_path = flags.str_("repo-path")
    if repo_path:
        validate.external_path(repo_path, "--repo-path")
    return {"session_dir": agent.get_session_dir(repo_path)}


def resolve_session_file(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The file of ``--session-id`` inside ``--session-dir``."""
    session_dir = validate.external_path(flags.str_("session-dir"), "--session-dir")
    session_id = validate.session_id(flags.str_("session-id"))
    return {"session_file": agent.resolve_session_file(session_dir, session_id)}


def read_session(agent: Agent, flags: Flags, stdin: bytes) -> bytes:
    """The AgentSession the HookInput on stdin points at."""
    from entire_core.protocol import HookInput, parse_json

    session = agent.read_session(parse_json(HookInput, stdin, HOOK_INPUT))
    return (session.model_dump_json() + "\n").encode("utf-8")


def write_session(agent: Agent, flags: Flags, stdin: bytes) -> None:
    """Restore the AgentSession on stdin."""
    from entire_core.protocol import AgentSession, parse_json

    agent.write_session(
        parse_json(
            AgentSession, stdin, 'an agent session, a JSON object ({"session_id": ..., "native_data": ...})'
        )
    )


def format_resume_command(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The command that continues ``--session-id``."""
    session_id = flags.str_("session-id")
    if not session_id:
        from entire_core.errors import InvalidInput

        raise InvalidInput("--session-id is required")
    return {"command": agent.format_resume_command(validate.session_id(session_id))}


# -- hooks: parse-hook, install-hooks, uninstall-hooks, are-hooks-installed ------------------------------


NO_EVENT = b"null\n"
"""The CLI needs the literal ``null`` for "no event"; empty stdout is an error there."""


NOT_ONE_OBJECT = (
    "there is no event: the Entire CLI pipes a hook's JSON payload in; to try a hook by hand, pipe one in"
)
"""What to do, after why ``parse-hook`` answered ``null`` for stdin that is not one JSON object."""


def decode_payload(stdin: bytes) -> tuple[dict[str, object] | None, str]:
    """The hook payload, one JSON object; else None and what stdin held instead (never an error).

    A UTF-8 byte order mark and surrounding whitespace are allowed, as the CLI's decoder allows them.
    """
    text = stdin.removeprefix(b"\xef\xbb\xbf").strip()
    if not text:
        return None, "stdin is empty"
    from entire_core import _json

    try:
        value = _json.loads(text)
    except (ValueError, RecursionError):
        # UnicodeDecodeError is a ValueError: bytes that are not UTF-8 are no JSON either.
        return None, "stdin is not JSON"
    if not isinstance(value, dict):
        kinds: dict[type, str] = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
        kind = kinds.get(type(value), "a number")
        return None, f"stdin is {kind}, not a JSON object"
    payload: dict[str, object] = value  # pyright: ignore[reportUnknownVariableType]
    return payload, ""


def parse_hook(agent: Agent, flags: Flags, stdin: bytes) -> bytes | dict[str, object]:
    """Map the hook payload to an event, or ``null`` when the hook means nothing to Entire.

    ``--hook`` is required: without it there is no hook to parse (a usage error). A hook name that is
    not in ``info.hook_names`` answers ``null``, "no event", for every agent: the CLI only calls
    ``parse-hook`` with the names ``info`` declared, so an unknown one comes from a hook config
    written by another version of the plugin, and failing would fail the user's agent hook.

    Stdin that is not one JSON object (nothing, invalid JSON, ``[]``, bytes that are not text) answers
    ``null`` too, exit 0, with one line on stderr saying so, and the agent is not asked. The newest CLI
    forwards exactly one decoded JSON value and refuses anything else itself, so such input comes from
    an older CLI behind a broken hook command (which must not fail the user's turn) or from a person at
    the keyboard (who deserves to be told). The compliance suite sends nothing and wants exit 0.
    """
    assert isinstance(agent, HookSupport)
    hook = flags.str_("hook")
    if "hook" not in flags.given or not hook:
        from entire_core.errors import UsageError

        raise UsageError("parse-hook needs --hook <name>, one of: " + ", ".join(agent.hook_names))
    if hook not in agent.hook_names:
        return NO_EVENT
    payload, problem = decode_payload(stdin)
    if payload is None:
        from entire_core.cli_stdio import print_error

        print_error(type(agent).name, "parse-hook", problem, NOT_ONE_OBJECT)
        return NO_EVENT
    event = agent.parse_hook(hook, payload)
    if event is None:
        return NO_EVENT
    if event.session_id:
        validate.session_id(event.session_id)
    validate.tool_id(event.tool_use_id, "tool_use_id")
    validate.tool_id(event.subagent_id, "subagent_id")
    if event.session_ref and event.session_id and event.type in _SESSION_EVENTS and agent.view_format():
        from entire_core import views

        if not views.is_view_path(agent, event.session_ref):
            event.session_ref = views.attach(agent, event.session_id, event.session_ref, event.type)
    return event.to_wire()


_SESSION_EVENTS = frozenset([1, 2, 3, 4, 5])
"""SessionStart to SessionEnd: events on the session's own transcript, which the CLI records (not a subagent's)."""


def install_hooks(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Install our hooks; ``--local-dev`` is accepted and ignored, as newer CLIs never send it.

    Called by hand outside a git repository, it refuses and writes nothing, as ``entire enable`` does
    there: hooks installed where Entire records nothing only leave an agent config folder behind. A
    folder named by ``ENTIRE_REPO_ROOT`` is taken as given: the host names only a repository's root, and
    Entire's compliance suite names a plain folder, where install and uninstall must work.
    """
    from entire_core.chain import enable_command, git_common_dir

    root = agent.repo_root
    if not agent.env.get("ENTIRE_REPO_ROOT") and git_common_dir(root) is None:
        from entire_core.errors import AgentError

        raise AgentError(
            f"{root} is not in a git repository, and Entire records only inside one; nothing was installed",
            f"run `git init` there first, then {enable_command(agent.name)}",
        )
    assert isinstance(agent, HookSupport)
    return {"hooks_installed": int(agent.install_hooks(force=flags.bool_("force")))}


def uninstall_hooks(agent: Agent, flags: Flags, stdin: bytes) -> None:
    """Remove our hooks, marked under way until everything is done (``installs.uninstalling``)."""
    from entire_core import installs

    assert isinstance(agent, HookSupport)
    with installs.uninstalling(agent.env, agent.name, agent.repo_root):
        agent.uninstall_hooks()


def are_hooks_installed(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Whether our hooks are installed, or may still be: an uninstall killed before it was done is
    reported as installed, so that the retried ``entire disable`` calls ``uninstall-hooks`` again."""
    from entire_core import installs

    assert isinstance(agent, HookSupport)
    if agent.are_hooks_installed():
        return {"installed": True}
    return {"installed": installs.uninstall_unfinished(agent.env, agent.name, agent.repo_root)}


# -- transcripts: reading, chunking, positions, files, prompts, summary, tokens ------------------------


def _offset(flags: Flags) -> int:
    offset = flags.int_("offset")
    if offset < 0:
        from entire_core.errors import InvalidInput

        raise InvalidInput(f"--offset must not be negative, got {offset}")
    return offset


def _path(flags: Flags, name: str) -> str:
    """A transcript file named by ``--<name>``: a directory there is an error for every agent."""
    path = validate.external_path(flags.str_(name), f"--{name}")
    if os.path.isdir(path):
        from entire_core.errors import InvalidInput

        raise InvalidInput(f"--{name} {path} is a directory, not a transcript file")
    return path


def _viewed(agent: Agent, flags: Flags, name: str, *, sync: bool = True) -> tuple[str, Frame]:
    """The path flag, and the frame its positions are in: a view is brought up to date first (``sync``)."""
    from entire_core import views

    path = _path(flags, name)
    fmt = agent.view_format()
    if fmt is None:
        return path, views.Frame()
    view = views.refreshed(agent, path, sync=sync)
    return path, view.frame() if view is not None else views.Frame(starts=views.file_starts(path, fmt.unit))


def _stdin_frame(agent: Agent, stdin: bytes) -> Frame:
    """The frame of view bytes on stdin (no header, no translation, for an agent without views)."""
    from entire_core import views

    fmt = agent.view_format()
    return views.frame_of(stdin, fmt.unit) if fmt is not None else views.Frame()


def _subagents_dir(agent: Agent, flags: Flags) -> str:
    """``--subagents-dir``: the CLI derives it from the view's directory; the agent's files are by the native one."""
    subagents_dir = flags.str_("subagents-dir")
    if not subagents_dir:
        return ""
    validate.external_path(subagents_dir, "--subagents-dir")
    if agent.view_format() is None:
        return subagents_dir
    from entire_core import views

    return views.native_subagents_dir(agent, subagents_dir)


def read_transcript(agent: Agent, flags: Flags, stdin: bytes) -> bytes:
    """The transcript's exact bytes; over 10 MiB is an error, never a truncated answer."""
    path, _ = _viewed(agent, flags, "session-ref")
    data = agent.read_transcript(path)
    if len(data) > MAX_TRANSCRIPT_BYTES:
        from entire_core.errors import AgentError

        raise AgentError(
            f"transcript is {len(data)} bytes, over the Entire CLI's {MAX_TRANSCRIPT_BYTES}-byte answer limit"
        )
    return data


def chunk_transcript(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Split stdin into chunks of at most ``--max-size`` bytes, as standard base64."""
    max_size = flags.int_("max-size")
    if max_size <= 0:
        from entire_core.errors import InvalidInput

        raise InvalidInput(f"--max-size must be a positive integer, got {max_size}")
    import binascii

    chunks = agent.chunk_transcript(stdin, max_size)
    if any(len(c) > max_size for c in chunks) or b"".join(chunks) != stdin:
        from entire_core.errors import AgentError

        raise AgentError("chunker produced chunks that do not reassemble to the input within --max-size")
    return {"chunks": [binascii.b2a_base64(c, newline=False).decode("ascii") for c in chunks]}


def reassemble_transcript(agent: Agent, flags: Flags, stdin: bytes) -> bytes:
    """Join the base64 chunks of ``{"chunks": [...]}`` on stdin back into raw bytes."""
    from entire_core.protocol import ChunkList, parse_json

    request = parse_json(ChunkList, stdin, 'a chunk list, {"chunks": ["<base64>", ...]}')
    return agent.reassemble_transcript(list(request.chunks or []))


def get_transcript_position(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The current end of the transcript (lines of a view, as it stands); 0 when the file does not exist.

    A view is not brought up to date here: at TurnStart the position must lie before the new prompt.
    The CLI's commit paths call ``prepare-transcript`` or ``extract-modified-files`` first, which do.
    """
    assert isinstance(agent, TranscriptAnalyzer)
    path, frame = _viewed(agent, flags, "path", sync=False)
    return {"position": int(frame.position(agent.get_transcript_position(path)))}


def extract_modified_files(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Files changed after ``--offset`` and the position read up to."""
    assert isinstance(agent, TranscriptAnalyzer)
    path, frame = _viewed(agent, flags, "path")
    files, position = agent.extract_modified_files(path, frame.local(_offset(flags)))
    return {"files": list(files), "current_position": int(frame.position(position))}


def extract_prompts(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """User prompts after ``--offset``."""
    assert isinstance(agent, TranscriptAnalyzer)
    path, frame = _viewed(agent, flags, "session-ref")
    return {"prompts": list(agent.extract_prompts(path, frame.local(_offset(flags))))}


def extract_summary(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The last assistant message."""
    assert isinstance(agent, TranscriptAnalyzer)
    summary = agent.extract_summary(_viewed(agent, flags, "session-ref")[0]) or ""
    return {"summary": summary, "has_summary": bool(summary)}


def prepare_transcript(agent: Agent, flags: Flags, stdin: bytes) -> None:
    """Make the transcript complete before the CLI reads it."""
    assert isinstance(agent, TranscriptPreparer)
    path = _path(flags, "session-ref")
    if agent.view_format() is None:
        agent.prepare_transcript(path)
        return
    from entire_core import views

    # The agent flushes its own file; then the view takes in what that brought.
    native = views.native_of(agent, path)
    try:
        agent.prepare_transcript(native)
    finally:
        views.refreshed(agent, path)


def calculate_tokens(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Token usage of the transcript on stdin after ``--offset``."""
    assert isinstance(agent, TokenCalculator)
    frame, offset = _stdin_frame(agent, stdin), _offset(flags)
    usage = agent.calculate_tokens(stdin, frame.local(offset))
    carried = frame.carried(offset)
    return (usage if carried is None else usage + carried).to_wire()


def extract_all_modified_files(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Files changed after ``--offset`` by the session and its subagents."""
    assert isinstance(agent, SubagentAwareExtractor)
    offset = _stdin_frame(agent, stdin).local(_offset(flags))
    return {"files": list(agent.extract_all_modified_files(stdin, offset, _subagents_dir(agent, flags)))}


def calculate_total_tokens(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Token usage after ``--offset`` with subagent usage nested."""
    assert isinstance(agent, SubagentAwareExtractor)
    frame, offset = _stdin_frame(agent, stdin), _offset(flags)
    usage = agent.calculate_total_tokens(stdin, frame.local(offset), _subagents_dir(agent, flags))
    carried = frame.carried(offset, total=True)
    return (usage if carried is None else usage + carried).to_wire()


def compact_transcript(agent: Agent, flags: Flags, stdin: bytes) -> bytes:
    """The compact transcript as base64 JSONL plus assets."""
    assert isinstance(agent, TranscriptCompactor)
    from entire_core.protocol import CompactAsset, CompactTranscriptResponse

    result = agent.compact_transcript(_viewed(agent, flags, "session-ref")[0])
    if not result.transcript.strip():
        from entire_core.errors import AgentError

        raise AgentError("the session has nothing to compact yet")
    response = CompactTranscriptResponse(
        transcript=result.transcript,
        assets=[CompactAsset(name=a.name, media_type=a.media_type, data=a.data) for a in result.assets],
    )
    return (response.model_dump_json() + "\n").encode("utf-8")
