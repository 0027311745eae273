"""Transcript subcommands: reading, chunking, positions, files, prompts, summary, tokens."""

from __future__ import annotations

import binascii
import os

from entire_core import validate
from entire_core.agent import (
    MAX_TRANSCRIPT_BYTES,
    SubagentAwareExtractor,
    TokenCalculator,
    TranscriptAnalyzer,
    TranscriptCompactor,
    TranscriptPreparer,
)
from entire_core.errors import AgentError, InvalidInput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent
    from entire_core.cli import Flags


def _offset(flags: Flags) -> int:
    offset = flags.int_("offset")
    if offset < 0:
        raise InvalidInput(f"--offset must not be negative, got {offset}")
    return offset


def _path(flags: Flags, name: str) -> str:
    """A transcript file named by ``--<name>``: a directory there is an error for every agent."""
    path = validate.external_path(flags.str_(name), f"--{name}")
    if os.path.isdir(path):
        raise InvalidInput(f"--{name} {path} is a directory, not a transcript file")
    return path


def read_transcript(agent: Agent, flags: Flags, stdin: bytes) -> bytes:
    """The transcript's exact bytes; over 10 MiB is an error, never a truncated answer."""
    data = agent.read_transcript(_path(flags, "session-ref"))
    if len(data) > MAX_TRANSCRIPT_BYTES:
        raise AgentError(
            f"transcript is {len(data)} bytes, over the Entire CLI's {MAX_TRANSCRIPT_BYTES}-byte answer limit"
        )
    return data


def chunk_transcript(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Split stdin into chunks of at most ``--max-size`` bytes, as standard base64."""
    max_size = flags.int_("max-size")
    if max_size <= 0:
        raise InvalidInput(f"--max-size must be a positive integer, got {max_size}")
    chunks = agent.chunk_transcript(stdin, max_size)
    if any(len(c) > max_size for c in chunks) or b"".join(chunks) != stdin:
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
    return {"position": int(agent.get_transcript_position(_path(flags, "path")))}


def extract_modified_files(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Files changed after ``--offset`` and the position read up to."""
    assert isinstance(agent, TranscriptAnalyzer)
    files, position = agent.extract_modified_files(_path(flags, "path"), _offset(flags))
    return {"files": list(files), "current_position": int(position)}


def extract_prompts(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """User prompts after ``--offset``."""
    assert isinstance(agent, TranscriptAnalyzer)
    return {"prompts": list(agent.extract_prompts(_path(flags, "session-ref"), _offset(flags)))}


def extract_summary(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The last assistant message."""
    assert isinstance(agent, TranscriptAnalyzer)
    summary = agent.extract_summary(_path(flags, "session-ref")) or ""
    return {"summary": summary, "has_summary": bool(summary)}


def prepare_transcript(agent: Agent, flags: Flags, stdin: bytes) -> None:
    """Make the transcript complete before the CLI reads it."""
    assert isinstance(agent, TranscriptPreparer)
    agent.prepare_transcript(_path(flags, "session-ref"))


def calculate_tokens(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Token usage of the transcript on stdin after ``--offset``."""
    assert isinstance(agent, TokenCalculator)
    return agent.calculate_tokens(stdin, _offset(flags)).to_wire()


def extract_all_modified_files(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Files changed after ``--offset`` by the session and its subagents."""
    assert isinstance(agent, SubagentAwareExtractor)
    subagents_dir = flags.str_("subagents-dir")
    if subagents_dir:
        validate.external_path(subagents_dir, "--subagents-dir")
    return {"files": list(agent.extract_all_modified_files(stdin, _offset(flags), subagents_dir))}


def calculate_total_tokens(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Token usage after ``--offset`` with subagent usage nested."""
    assert isinstance(agent, SubagentAwareExtractor)
    subagents_dir = flags.str_("subagents-dir")
    if subagents_dir:
        validate.external_path(subagents_dir, "--subagents-dir")
    return agent.calculate_total_tokens(stdin, _offset(flags), subagents_dir).to_wire()


def compact_transcript(agent: Agent, flags: Flags, stdin: bytes) -> bytes:
    """The compact transcript as base64 JSONL plus assets."""
    assert isinstance(agent, TranscriptCompactor)
    from entire_core.protocol import CompactAsset, CompactTranscriptResponse

    result = agent.compact_transcript(_path(flags, "session-ref"))
    if not result.transcript.strip():
        raise AgentError("the session has nothing to compact yet")
    response = CompactTranscriptResponse(
        transcript=result.transcript,
        assets=[CompactAsset(name=a.name, media_type=a.media_type, data=a.data) for a in result.assets],
    )
    return (response.model_dump_json() + "\n").encode("utf-8")
