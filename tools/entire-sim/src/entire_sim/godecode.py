"""Decoding plugin answers the way the Entire CLI's Go code does, independently of our pydantic models.

Go's ``encoding/json`` into typed structs: exactly one JSON value; keys matched case-insensitively;
unknown keys ignored; ``null`` leaves the zero value; a number with a fraction or exponent cannot go
into an ``int``; a string cannot go into a ``bool`` or ``int``; ``[]byte`` is standard padded base64.
The simulator uses this, not ``entire_core.protocol``, so that a mistake in our models cannot hide a
mistake in our answers.
"""

from __future__ import annotations

import binascii
import json
import re
from typing import Any

STRING, INT, BOOL, BYTES, RAW = "string", "int", "bool", "[]byte", "json.RawMessage"
STRINGS = ("[]", STRING)
STRING_MAP = ("map", STRING)

TOKEN_USAGE: dict[str, Any] = {
    "input_tokens": INT,
    "cache_creation_tokens": INT,
    "cache_read_tokens": INT,
    "output_tokens": INT,
    "api_call_count": INT,
    "cache_creation_1h_tokens": INT,
}
TOKEN_USAGE["subagent_tokens"] = ("*", TOKEN_USAGE)

CAPABILITIES = {
    name: BOOL
    for name in (
        "hooks",
        "transcript_analyzer",
        "transcript_preparer",
        "token_calculator",
        "compact_transcript",
        "text_generator",
        "streaming_text_generator",
        "hook_response_writer",
        "subagent_aware_extractor",
    )
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "info": {
        "protocol_version": INT,
        "name": STRING,
        "type": STRING,
        "description": STRING,
        "is_preview": BOOL,
        "protected_dirs": STRINGS,
        "protected_files": STRINGS,
        "hook_names": STRINGS,
        "capabilities": ("struct", CAPABILITIES),
        "caller_env_vars": STRINGS,
    },
    "detect": {"present": BOOL},
    "get-session-id": {"session_id": STRING},
    "get-session-dir": {"session_dir": STRING},
    "resolve-session-file": {"session_file": STRING},
    "read-session": {
        "session_id": STRING,
        "agent_name": STRING,
        "repo_path": STRING,
        "session_ref": STRING,
        "start_time": STRING,
        "native_data": BYTES,
        "modified_files": STRINGS,
        "new_files": STRINGS,
        "deleted_files": STRINGS,
    },
    "chunk-transcript": {"chunks": ("[]", BYTES)},
    "format-resume-command": {"command": STRING},
    "parse-hook": {
        "type": INT,
        "session_id": STRING,
        "previous_session_id": STRING,
        "session_ref": STRING,
        "prompt": STRING,
        "model": STRING,
        "timestamp": STRING,
        "tool_use_id": STRING,
        "subagent_id": STRING,
        "tool_input": RAW,
        "subagent_type": STRING,
        "task_description": STRING,
        "response_message": STRING,
        "metadata": STRING_MAP,
    },
    "install-hooks": {"hooks_installed": INT},
    "are-hooks-installed": {"installed": BOOL},
    "get-transcript-position": {"position": INT},
    "extract-modified-files": {"files": STRINGS, "current_position": INT},
    "extract-all-modified-files": {"files": STRINGS, "current_position": INT},
    "extract-prompts": {"prompts": STRINGS},
    "extract-summary": {"summary": STRING, "has_summary": BOOL},
    "calculate-tokens": TOKEN_USAGE,
    "calculate-total-tokens": TOKEN_USAGE,
    "generate-text": {"text": STRING},
    "compact-transcript": {
        "transcript": BYTES,
        "assets": ("[]", ("struct", {"name": STRING, "media_type": STRING, "data": BYTES})),
    },
}


class GoDecodeError(ValueError):
    """What Go's ``json.Unmarshal`` would have returned as an error."""


class _Float:
    """A JSON number written with a fraction or exponent: Go refuses it for an ``int`` field."""

    def __init__(self, text: str) -> None:
        self.text = text


def _reject_constant(name: str) -> object:
    raise GoDecodeError(f"invalid character {name[0]!r} looking for beginning of value")


def decode(subcommand: str, stdout: bytes) -> dict[str, Any]:
    """Decode ``stdout`` into the Go struct of ``subcommand``; return the fields Go would see."""
    return decode_struct(stdout, SCHEMAS[subcommand])


def decode_struct(stdout: bytes, schema: dict[str, Any]) -> dict[str, Any]:
    """Decode one JSON value into a struct ``schema``, with Go's rules."""
    try:
        text = stdout.decode("utf-8")
    except UnicodeDecodeError:
        text = stdout.decode("utf-8", errors="replace")  # Go replaces invalid UTF-8 in strings
    if not text.strip():
        raise GoDecodeError("unexpected end of JSON input")
    try:
        value = json.loads(text, parse_float=_Float, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            raise GoDecodeError(f"invalid character after top-level value at offset {exc.pos}") from None
        raise GoDecodeError(f"invalid JSON: {exc.msg} at offset {exc.pos}") from None
    return _struct(value, schema, "")


def _struct(value: Any, schema: dict[str, Any], where: str) -> dict[str, Any]:
    zero = {name: _zero(kind) for name, kind in schema.items()}
    if value is None:
        return zero
    if not isinstance(value, dict):
        raise GoDecodeError(f"cannot unmarshal {_json_kind(value)} into Go value of type struct{where}")
    by_fold = {name.lower(): name for name in schema}
    obj: dict[str, Any] = value
    for key, item in obj.items():
        name = key if key in schema else by_fold.get(key.lower())
        if name is None:
            continue
        zero[name] = _value(item, schema[name], f"{where}.{name}" if where else name)
    return zero


def _zero(kind: Any) -> Any:
    if kind == STRING:
        return ""
    if kind == INT:
        return 0
    if kind == BOOL:
        return False
    if isinstance(kind, tuple) and kind[0] == "struct":
        return {name: _zero(k) for name, k in kind[1].items()}
    return None


def _value(value: Any, kind: Any, where: str) -> Any:
    if value is None:
        return _zero(kind)
    if kind == RAW:
        return value if not isinstance(value, _Float) else float(value.text)
    if kind == STRING:
        if not isinstance(value, str):
            raise GoDecodeError(
                f"cannot unmarshal {_json_kind(value)} into Go struct field {where} of type string"
            )
        return value
    if kind == INT:
        if isinstance(value, bool) or not isinstance(value, int):
            shown = f"number {value.text}" if isinstance(value, _Float) else _json_kind(value)
            raise GoDecodeError(f"cannot unmarshal {shown} into Go struct field {where} of type int")
        if not -(2**63) <= value < 2**63:
            raise GoDecodeError(f"cannot unmarshal number {value} into Go struct field {where} of type int")
        return value
    if kind == BOOL:
        if not isinstance(value, bool):
            raise GoDecodeError(
                f"cannot unmarshal {_json_kind(value)} into Go struct field {where} of type bool"
            )
        return value
    if kind == BYTES:
        if not isinstance(value, str):
            raise GoDecodeError(
                f"cannot unmarshal {_json_kind(value)} into Go struct field {where} of type []byte"
            )
        try:
            return binascii.a2b_base64(value.replace("\r", "").replace("\n", ""), strict_mode=True)
        except binascii.Error as exc:
            raise GoDecodeError(f"illegal base64 data in {where}: {exc}") from None
    if isinstance(kind, tuple):
        container: str = kind[0]
        if container == "[]":
            if not isinstance(value, list):
                raise GoDecodeError(
                    f"cannot unmarshal {_json_kind(value)} into Go struct field {where} of type []"
                )
            items: list[Any] = value
            return [_value(item, kind[1], f"{where}[{i}]") for i, item in enumerate(items)]
        if container == "map":
            if not isinstance(value, dict):
                raise GoDecodeError(
                    f"cannot unmarshal {_json_kind(value)} into Go struct field {where} of type map"
                )
            entries: dict[str, Any] = value
            return {k: _value(v, kind[1], f"{where}[{k}]") for k, v in entries.items()}
        if container in ("struct", "*"):
            return _struct(value, kind[1], where)
    raise AssertionError(f"unknown kind {kind!r}")


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, _Float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})\Z")


def parse_rfc3339(value: str) -> None:
    """Raise like Go's ``time.Parse(time.RFC3339, value)`` does for a value it refuses."""
    if not _RFC3339.match(value):
        raise GoDecodeError(f'parsing time "{value}" as "2006-01-02T15:04:05Z07:00": cannot parse')
    month, day = int(value[5:7]), int(value[8:10])
    hour, minute, second = int(value[11:13]), int(value[14:16]), int(value[17:19])
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 60):
        raise GoDecodeError(f'parsing time "{value}": value out of range')


_SESSION_FORBIDDEN = re.compile(r"[/\\:*?\[]")
_TOOL_ID = re.compile(r"[A-Za-z0-9_-]+\Z")


def validate_session_id(value: str) -> None:
    """The CLI's ``ValidateSessionID`` (newest rules)."""
    if not value.strip():
        raise GoDecodeError("session ID cannot be empty")
    if value in (".", "..") or _SESSION_FORBIDDEN.search(value):
        raise GoDecodeError(f"invalid session ID {value!r}: contains path separators or reserved characters")


def validate_tool_id(value: str, what: str) -> None:
    """``tool_use_id`` and ``subagent_id``: empty or ``[A-Za-z0-9_-]+``."""
    if value and not _TOOL_ID.match(value):
        raise GoDecodeError(f"invalid {what} {value!r}: must match ^[a-zA-Z0-9_-]+$")
