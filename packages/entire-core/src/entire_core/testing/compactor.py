"""What the Entire CLI's own compactor makes of a transcript, for the contract kit.

The CLI builds a checkpoint's ``transcript.jsonl`` itself from the bytes of the ``session_ref`` file
(v0.10.3, ``cmd/entire/cli/transcript/compact``), sliced from its stored line count. This is a port
written from reading that code, of the parts our views depend on:

- format detection, in the CLI's order: a single JSON document (OpenCode, Gemini before 0.39), pi,
  Codex rollouts (the first JSON line is ``session_meta``/``response_item``/``event_msg``/
  ``turn_context``), then, on the sliced bytes, Copilot and Droid, else generic JSONL;
- generic JSONL: a line counts when its ``type`` (else ``role``) is ``user``/``human``/``assistant``
  and its content sits in ``message.content`` (a string or text/tool_use/tool_result blocks);
  consecutive assistant lines with one ``message.id`` are merged, and a user line of tool results
  right after an assistant line is folded into it;
- Codex: ``response_item`` messages (user prompts without injected context, assistant output text)
  and function/custom tool calls.

``compact(data, start_line)`` gives one entry per line the CLI would write: ``{"type": "user" |
"assistant", "text": ..., "tools": [tool names]}``. Only what the contract kit checks is ported; a
format we do not port raises ``Unported``.
"""

from __future__ import annotations

import json
from typing import Any

INJECTED_PREFIXES = (
    "# AGENTS.md",
    "<environment_context>",
    "<permissions",
    "<collaboration_mode>",
    "<skills_instructions>",
    "<apps_instructions>",
    "<plugins_instructions>",
    "<recommended_plugins>",
    "<user_action>",
    "<subagent_notification>",
    "<turn_aborted>",
)
"""Codex's injected user content (the CLI's ``textutil.IsInjectedPrompt``)."""
_DROPPED = frozenset(["progress", "file-history-snapshot", "queue-operation", "system"])
_CODEX_TYPES = frozenset(["session_meta", "response_item", "event_msg", "turn_context"])


class Unported(Exception):
    """A format the CLI recognises that this port does not compact (OpenCode, Gemini JSON, pi, ...)."""


def _loads(line: bytes | str) -> Any:
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _record(line: bytes) -> dict[str, Any] | None:
    """A line's JSON object (None for a line that is not one)."""
    from entire_core.jsonvalues import obj

    value: object = _loads(line)
    return obj(value) if isinstance(value, dict) else None  # pyright: ignore[reportUnknownArgumentType]


def _lines(data: bytes) -> list[bytes]:
    return [line for line in data.split(b"\n") if line.strip()]


def slice_from_line(data: bytes, start: int) -> bytes:
    """The CLI's ``SliceFromLine``: the bytes after the ``start``-th newline (empty past the end)."""
    if not data or start <= 0:
        return data
    at = -1
    for _ in range(start):
        at = data.find(b"\n", at + 1)
        if at < 0:
            return b""
    return data[at + 1 :]


def host_line_count(data: bytes) -> int:
    """The line count the CLI stores as ``checkpoint_transcript_start``: trailing blank lines dropped."""
    parts = data.split(b"\n")
    while parts and not parts[-1].strip():
        parts.pop()
    return len(parts)


def detect(data: bytes) -> str:
    """Which compactor the CLI picks for these (unsliced) bytes."""
    trimmed = data.strip()
    if trimmed.startswith(b"{"):
        document = _record(trimmed)
        if document is not None:
            if "info" in document and "messages" in document:
                return "opencode"
            if "sessionId" in document and "messages" in document:
                return "gemini"
    for line in _lines(data):
        if _loads(line) is None:
            break  # pi: the first non-blank line must parse
        probe = _record(line) or {}
        version = probe.get("version")
        if probe.get("type") == "session" and isinstance(version, int) and version > 0:
            return "pi"
        break
    for line in _lines(data):
        probe = _record(line)
        if probe is None:
            continue
        return "codex" if probe.get("type") in _CODEX_TYPES else "jsonl"
    return "jsonl"


def _detect_sliced(data: bytes) -> str:
    for line in _lines(data):
        probe = _record(line)
        if probe is None:
            continue
        kind = probe.get("type")
        if kind in ("session.start", "user.message", "assistant.message", "tool.execution_complete"):
            return "copilot"
        if kind in ("user", "assistant", "human", "message"):
            break
    for line in _lines(data):
        probe = _record(line)
        if probe is None:
            continue
        if probe.get("type") == "message" and "message" in probe:
            return "droid"
        if probe.get("type") in ("user", "human", "assistant") or probe.get("type") in _DROPPED:
            break
    return "jsonl"


def compact(data: bytes, start_line: int = 0) -> list[dict[str, Any]]:
    """The entries of the ``transcript.jsonl`` the CLI makes of ``data`` from line ``start_line`` on."""
    kind = detect(data)
    if kind == "codex":
        return _codex(slice_from_line(data, start_line))
    if kind != "jsonl":
        raise Unported(kind)
    sliced = slice_from_line(data, start_line)
    kind = _detect_sliced(sliced)
    if kind != "jsonl":
        raise Unported(kind)
    return _jsonl(sliced)


# -- generic JSONL ------------------------------------------------------------------------------------------


def _kind(raw: dict[str, Any]) -> str:
    kind = raw.get("type") if isinstance(raw.get("type"), str) and raw.get("type") else raw.get("role")
    if kind in _DROPPED:
        return ""
    if kind in ("user", "human"):
        return "user"
    return "assistant" if kind == "assistant" else ""


def _entry(raw: dict[str, Any]) -> dict[str, Any] | None:
    from entire_core.jsonvalues import array, obj, objects

    kind = _kind(raw)
    if not kind:
        return None
    message = obj(raw.get("message"))
    content: object = message.get("content")
    blocks = list(objects(array(content)))
    entry: dict[str, Any] = {"type": kind, "id": "", "text": "", "tools": [], "results": []}
    texts = [
        str(b["text"])
        for b in blocks
        if b.get("type") == "text" and isinstance(b.get("text"), str) and b["text"]
    ]
    if kind == "assistant":
        entry["id"] = message.get("id") if isinstance(message.get("id"), str) else ""
        entry["text"] = content if isinstance(content, str) else "\n\n".join(texts)
        entry["tools"] = [b.get("name") for b in blocks if b.get("type") == "tool_use"]
        entry["empty"] = isinstance(content, list) and not [
            b for b in blocks if b.get("type") not in ("thinking", "redacted_thinking")
        ]
        return entry
    if isinstance(content, str):
        entry["text"] = content.strip()
    else:
        entry["results"] = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
        entry["text"] = "\n\n".join(texts).strip()
    return entry


def _jsonl(data: bytes) -> list[dict[str, Any]]:
    records = [r for r in map(_record, _lines(data)) if r is not None]
    entries = [e for e in map(_entry, records) if e]
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(entries):
        e = entries[i]
        if e["type"] == "assistant":
            merged = dict(e)
            while (
                i + 1 < len(entries)
                and entries[i + 1]["type"] == "assistant"
                and entries[i + 1]["id"] == e["id"]
            ):
                i += 1
                nxt = entries[i]
                merged["text"] = "\n\n".join(t for t in (merged["text"], nxt["text"]) if t)
                merged["tools"] = merged["tools"] + nxt["tools"]
                merged["empty"] = merged["empty"] and nxt["empty"]
            if i + 1 < len(entries) and entries[i + 1]["type"] == "user" and entries[i + 1]["results"]:
                user = entries[i + 1]
                i += 1
                if user["text"]:
                    out.append(_out(merged))
                    out.append(_out(user))
                    i += 1
                    continue
            if not merged.get("empty"):
                out.append(_out(merged))
        elif not (e["results"] and not e["text"]):
            out.append(_out(e))
        i += 1
    return out


def _out(entry: dict[str, Any]) -> dict[str, Any]:
    return {"type": entry["type"], "text": entry["text"], "tools": list(entry["tools"])}


# -- Codex rollouts -----------------------------------------------------------------------------------------


def _codex_text(content: object, block_type: str) -> str:
    from entire_core.jsonvalues import array, objects

    texts: list[str] = []
    for block in objects(array(content)):
        text = block.get("text")
        if block.get("type") != block_type or not isinstance(text, str) or not text:
            continue
        injected = text.strip().startswith(INJECTED_PREFIXES) or (
            text.strip().startswith("<INSTRUCTIONS>") and "AGENTS.md instructions" in text
        )
        if block_type == "input_text" and injected:
            continue
        texts.append(text)
    return "\n\n".join(texts)


def _codex(data: bytes) -> list[dict[str, Any]]:
    from entire_core.jsonvalues import obj

    items: list[dict[str, Any]] = []
    for line in _lines(data):
        record = _record(line) or {}
        if record.get("type") == "response_item" and obj(record.get("payload")):
            items.append(obj(record.get("payload")))
    out: list[dict[str, Any]] = []
    i = 0
    calls = ("function_call", "custom_tool_call")
    outputs = ("function_call_output", "custom_tool_call_output")
    while i < len(items):
        p = items[i]
        if p.get("type") == "message" and p.get("role") == "user":
            text = _codex_text(p.get("content"), "input_text")
            if text:
                out.append({"type": "user", "text": text, "tools": []})
        elif p.get("type") == "message" and p.get("role") == "assistant":
            text = _codex_text(p.get("content"), "output_text")
            if text:
                tools: list[Any] = []
                while i + 1 < len(items) and items[i + 1].get("type") in calls + outputs:
                    i += 1
                    if items[i].get("type") in calls:
                        tools.append(items[i].get("name"))
                out.append({"type": "assistant", "text": text, "tools": tools})
        elif p.get("type") in calls:
            out.append({"type": "assistant", "text": "", "tools": [p.get("name")]})
        i += 1
    return out
