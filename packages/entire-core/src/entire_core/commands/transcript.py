"""Transcript subcommands: reading, chunking, positions, files, prompts, summary, tokens."""

from __future__ import annotations

import os

from entire_core import MAX_TRANSCRIPT_BYTES, validate
from entire_core.agent import (
    SubagentAwareExtractor,
    TokenCalculator,
    TranscriptAnalyzer,
    TranscriptCompactor,
    TranscriptPreparer,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags
    from entire_core.views import Frame


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


def _viewed(agent: Agent, flags: Flags, name: str) -> tuple[str, Frame]:
    """The path flag, and the frame its positions are in: a view is brought up to date first."""
    from entire_core import views

    path = _path(flags, name)
    if agent.view_format() is None:
        return path, views.Frame()
    view = views.refreshed(agent, path)
    return path, view.frame() if view is not None else views.Frame()


def _stdin_frame(agent: Agent, stdin: bytes) -> Frame:
    """The frame of view bytes on stdin (no header, no translation, for an agent without views)."""
    from entire_core import views

    fmt = agent.view_format()
    return views.frame_of(stdin, fmt.unit, fmt.header_lines) if fmt is not None else views.Frame()


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

    request = parse_json(ChunkList, stdin, "reassemble-transcript input")
    return agent.reassemble_transcript(list(request.chunks or []))


def get_transcript_position(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The current end of the transcript; 0 when the file does not exist."""
    assert isinstance(agent, TranscriptAnalyzer)
    path, frame = _viewed(agent, flags, "path")
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
    return agent.calculate_tokens(stdin, _stdin_frame(agent, stdin).local(_offset(flags))).to_wire()


def extract_all_modified_files(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Files changed after ``--offset`` by the session and its subagents."""
    assert isinstance(agent, SubagentAwareExtractor)
    offset = _stdin_frame(agent, stdin).local(_offset(flags))
    return {"files": list(agent.extract_all_modified_files(stdin, offset, _subagents_dir(agent, flags)))}


def calculate_total_tokens(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Token usage after ``--offset`` with subagent usage nested."""
    assert isinstance(agent, SubagentAwareExtractor)
    offset = _stdin_frame(agent, stdin).local(_offset(flags))
    return agent.calculate_total_tokens(stdin, offset, _subagents_dir(agent, flags)).to_wire()


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
