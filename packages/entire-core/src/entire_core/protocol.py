"""The wire format of the Entire CLI external-agent protocol, as pydantic v2 models.

Field names equal the Go JSON tags. Go decodes our answers into strict types, so the models are
validated in strict mode in the tests: ints are ints, ``metadata`` maps strings to strings,
timestamps are RFC 3339 with a zone, ``[]byte`` fields are standard padded base64. What the CLI
sends us is read leniently the way Go writes it: ``null`` for unset strings and slices.

This module imports pydantic; only subcommands that decode JSON from the CLI import it.
"""

from __future__ import annotations

import binascii
import os
import re
from typing import Annotated, Any, TypeVar

# Pydantic scans every installed distribution for plugins when it builds its first validator, which
# costs more than the validation a plugin call needs; our short-lived processes use no plugins.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    PlainSerializer,
    ValidationError,
)

from entire_core.errors import InvalidInput

_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})\Z")
_ID = re.compile(r"[A-Za-z0-9_-]*\Z")


def _decode_std_base64(value: object) -> object:
    if isinstance(value, str):
        try:
            return binascii.a2b_base64(value.replace("\r", "").replace("\n", ""), strict_mode=True)
        except binascii.Error as exc:
            raise ValueError(f"not standard padded base64: {exc}") from None
    return value


def _encode_std_base64(value: bytes) -> str:
    return binascii.b2a_base64(value, newline=False).decode("ascii")


StdBase64 = Annotated[
    bytes,
    BeforeValidator(_decode_std_base64),
    PlainSerializer(_encode_std_base64, return_type=str, when_used="json"),
]
"""Bytes that travel as standard base64 with padding, as Go's ``[]byte`` does (``+/``, not ``-_``)."""


def _none_to_empty(value: object) -> object:
    return "" if value is None else value


def _check_rfc3339(value: str) -> str:
    if value and not _RFC3339.match(value):
        raise ValueError(f"timestamp {value!r} is not RFC 3339 with a time zone")
    return value


def _check_tool_id(value: str) -> str:
    if not _ID.match(value):
        raise ValueError(f"{value!r} may only contain letters, digits, '_' and '-'")
    return value


GoString = Annotated[str, BeforeValidator(_none_to_empty)]
"""A Go ``string``: ``null`` reads as ""."""

Rfc3339 = Annotated[str, BeforeValidator(_none_to_empty), BeforeValidator(_check_rfc3339)]
ToolId = Annotated[str, BeforeValidator(_none_to_empty), BeforeValidator(_check_tool_id)]


class WireModel(BaseModel):
    """Base of every wire object: unknown fields are ignored, as Go's decoder does."""

    # Deferred: a subcommand builds only the one or two validators it uses, not all twenty.
    model_config = ConfigDict(extra="ignore", defer_build=True)


# -- info -----------------------------------------------------------------------------------------------


class Capabilities(WireModel):
    """``info.capabilities``: a missing key means false."""

    hooks: bool = False
    transcript_analyzer: bool = False
    transcript_preparer: bool = False
    token_calculator: bool = False
    compact_transcript: bool = False
    text_generator: bool = False
    streaming_text_generator: bool = False
    hook_response_writer: bool = False
    subagent_aware_extractor: bool = False


class Info(WireModel):
    """The answer of ``info``."""

    protocol_version: int
    name: str
    type: str
    description: str
    is_preview: bool = False
    protected_dirs: list[str] = Field(default_factory=list[str])
    protected_files: list[str] = Field(default_factory=list[str])
    hook_names: list[str] = Field(default_factory=list[str])
    capabilities: Capabilities = Field(default_factory=Capabilities)
    caller_env_vars: list[str] = Field(default_factory=list[str])


# -- inputs from the CLI ----------------------------------------------------------------------------------


class HookInput(WireModel):
    """stdin of ``get-session-id`` and ``read-session``."""

    hook_type: GoString = ""
    session_id: GoString = ""
    session_ref: GoString = ""
    timestamp: GoString = ""
    user_prompt: GoString = ""
    tool_name: GoString = ""
    tool_use_id: GoString = ""
    tool_input: JsonValue = None
    raw_data: dict[str, JsonValue] | None = None


def _none_to_list(value: object) -> object:
    return [] if value is None else value


FileList = Annotated[list[str], BeforeValidator(_none_to_list)]


class AgentSession(WireModel):
    """stdin of ``write-session`` and the answer of ``read-session``.

    The CLI sends ``null`` file lists and the zero time ``0001-01-01T00:00:00Z``; both are accepted,
    and answers always carry ``[]`` lists.
    """

    session_id: GoString = ""
    agent_name: GoString = ""
    repo_path: GoString = ""
    session_ref: GoString = ""
    start_time: GoString = ""
    native_data: StdBase64 | None = None
    modified_files: FileList = Field(default_factory=list[str])
    new_files: FileList = Field(default_factory=list[str])
    deleted_files: FileList = Field(default_factory=list[str])


class ChunkList(WireModel):
    """The answer of ``chunk-transcript`` and the stdin of ``reassemble-transcript``."""

    chunks: list[StdBase64] | None = None


# -- answers ----------------------------------------------------------------------------------------------


class Event(WireModel):
    """The answer of ``parse-hook`` when there is an event (otherwise the literal ``null``)."""

    type: Annotated[int, Field(ge=1, le=9)]
    session_id: str = ""
    previous_session_id: str = ""
    session_ref: str = ""
    prompt: str = ""
    model: str = ""
    timestamp: Rfc3339 = ""
    tool_use_id: ToolId = ""
    subagent_id: ToolId = ""
    tool_input: JsonValue = None
    subagent_type: str = ""
    task_description: str = ""
    response_message: str = ""
    metadata: dict[str, str] | None = None


class TokenUsage(WireModel):
    """The answer of ``calculate-tokens`` and ``calculate-total-tokens``."""

    input_tokens: Annotated[int, Field(ge=0)] = 0
    cache_creation_tokens: Annotated[int, Field(ge=0)] = 0
    cache_read_tokens: Annotated[int, Field(ge=0)] = 0
    output_tokens: Annotated[int, Field(ge=0)] = 0
    api_call_count: Annotated[int, Field(ge=0)] = 0
    cache_creation_1h_tokens: Annotated[int, Field(ge=0)] = 0
    subagent_tokens: TokenUsage | None = None


class DetectResponse(WireModel):
    """The answer of ``detect``."""

    present: bool


class SessionIdResponse(WireModel):
    """The answer of ``get-session-id``."""

    session_id: str


class SessionDirResponse(WireModel):
    """The answer of ``get-session-dir``."""

    session_dir: str


class SessionFileResponse(WireModel):
    """The answer of ``resolve-session-file``."""

    session_file: str


class ResumeCommandResponse(WireModel):
    """The answer of ``format-resume-command``."""

    command: str


class HooksInstalledResponse(WireModel):
    """The answer of ``install-hooks``."""

    hooks_installed: Annotated[int, Field(ge=0)]


class AreHooksInstalledResponse(WireModel):
    """The answer of ``are-hooks-installed``."""

    installed: bool


class PositionResponse(WireModel):
    """The answer of ``get-transcript-position``."""

    position: Annotated[int, Field(ge=0)]


class ModifiedFilesResponse(WireModel):
    """The answer of ``extract-modified-files`` and ``extract-all-modified-files``."""

    files: list[str] | None = None
    current_position: Annotated[int, Field(ge=0)] = 0


class PromptsResponse(WireModel):
    """The answer of ``extract-prompts``."""

    prompts: list[str] | None = None


class SummaryResponse(WireModel):
    """The answer of ``extract-summary``."""

    summary: str
    has_summary: bool


class TextResponse(WireModel):
    """The answer of ``generate-text``."""

    text: str


class CompactAsset(WireModel):
    """A binary attachment of a compact transcript."""

    name: Annotated[str, Field(min_length=1)]
    media_type: Annotated[str, Field(min_length=1)]
    data: StdBase64


class CompactTranscriptResponse(WireModel):
    """The answer of ``compact-transcript``: base64 of the compact JSONL, plus assets."""

    transcript: StdBase64
    assets: list[CompactAsset] = Field(default_factory=list[CompactAsset])


ANSWER_MODELS: dict[str, type[WireModel]] = {
    "info": Info,
    "detect": DetectResponse,
    "get-session-id": SessionIdResponse,
    "get-session-dir": SessionDirResponse,
    "resolve-session-file": SessionFileResponse,
    "read-session": AgentSession,
    "chunk-transcript": ChunkList,
    "format-resume-command": ResumeCommandResponse,
    "parse-hook": Event,
    "install-hooks": HooksInstalledResponse,
    "are-hooks-installed": AreHooksInstalledResponse,
    "get-transcript-position": PositionResponse,
    "extract-modified-files": ModifiedFilesResponse,
    "extract-all-modified-files": ModifiedFilesResponse,
    "extract-prompts": PromptsResponse,
    "extract-summary": SummaryResponse,
    "calculate-tokens": TokenUsage,
    "calculate-total-tokens": TokenUsage,
    "generate-text": TextResponse,
    "compact-transcript": CompactTranscriptResponse,
}
"""The model each JSON-answering subcommand's stdout must validate against, in strict mode."""

M = TypeVar("M", bound=WireModel)


def parse_json(model: type[M], data: bytes, what: str) -> M:
    """Decode ``data`` (one JSON value from the CLI) into ``model`` or fail with a one-line error.

    ``what`` names what stdin should hold (``"a hook input, a JSON object"``): the error says that
    stdin is not it, and why (``stdin is not a hook input, a JSON object: Input should be an object``).
    """
    text = data.removeprefix(b"\xef\xbb\xbf")
    if not text.strip():
        raise InvalidInput(
            f"stdin is empty, not {what}", "the Entire CLI sends it; pipe it in to run this by hand"
        )
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        raise InvalidInput(f"stdin is not {what}: {describe_validation_error(exc)}") from None


def describe_validation_error(exc: Any) -> str:
    """One line naming the first problem pydantic found, and where (a field, not the whole input)."""
    errors: list[Any] = exc.errors(include_url=False)
    if not errors:
        return "invalid input"
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where + ': ' if where else ''}{first.get('msg', 'invalid')}{more}"
