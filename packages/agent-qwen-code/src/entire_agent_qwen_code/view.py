"""Qwen Code's side of the bounded transcript view (``entire_core.views``): its mapping, snapshot and cuts.

The Entire CLI's compactor reads generic JSONL; Qwen's records have its ``type`` and ``message`` but
GenAI ``parts``, so the view is *wrapped*: one line per chat line, carrying the record losslessly. A
prompt becomes a ``user`` line with its text, an ``assistant`` record an ``assistant`` line with its
text and ``tool_use`` blocks (``message.id`` is the record's ``uuid``, ``message.usage`` its call's
tokens), a ``tool_result`` record a ``user`` line of ``tool_result`` blocks (the compactor inlines them
into the calls before), anything else a ``native`` line the compactor skips. Our parsers unwrap
(``transcript.decode``); positions are line counts, one view line per chat line.

The snapshot of a re-based view is Qwen's own file shortened: its first line (``qwen --resume`` checks
the session and project of the first record), then the live branch's records (``/rewind``'s dead
branches and the telemetry left out), each ``parentUuid`` re-linked to the record kept before it, so
Qwen's walk back from the last record finds them all. When they do not fit, tool outputs are cut
first, then the oldest turns keep only their prompts. What may be cut: tool outputs
(``functionResponse``, ``toolCallResult``'s display), inline data and thoughts. What never is: the
user's prompts, the model's text, the arguments of file-writing and subagent calls, token counts, ids.
"""

from __future__ import annotations

from entire_core import _json, views
from entire_core.jsonvalues import array, obj, text

from entire_agent_qwen_code.transcript import (
    SUBAGENT_TOOLS,
    WRITING_TOOLS,
    backends,
    live,
    prompt_of,
    records,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_agent_qwen_code.transcript import Backends


class QwenView(views.ViewFormat):
    """Wrapped generic JSONL over Qwen's chat recording; snapshots are its live branch, re-linked."""

    unit = views.LINES
    wrap = True

    def __init__(self) -> None:
        self.logged: Backends = {}
        """The backends of the model calls logged in the lines mapped so far (``transcript.backends``)."""

    def record(self, value: Any) -> tuple[str, list[dict[str, Any]], str | None] | None:
        from entire_core.genai import function_calls, response_text, text_of

        r = obj(value)
        self.logged = backends([r], self.logged)
        stamp = r.get("timestamp") if isinstance(r.get("timestamp"), str) else None
        parts = obj(r.get("message")).get("parts")
        results = [obj(obj(p).get("functionResponse")) for p in array(parts) if "functionResponse" in obj(p)]
        if r.get("type") in ("user", "tool_result") and results:
            blocks = [{"type": "tool_result", "tool_use_id": text(f.get("id")), "content": response_text([{"functionResponse": f}])}
                      for f in results]  # fmt: skip
            return "user", blocks, stamp
        if r.get("type") == "user":
            prompt = prompt_of(r)
            return ("user", [{"type": "text", "text": prompt}], stamp) if prompt else None
        if r.get("type") != "assistant":
            return None
        said = text_of(parts).strip()
        found: list[dict[str, Any]] = [{"type": "text", "text": said}] if said else []
        for call in function_calls(parts):
            found.append({"type": "tool_use", "id": text(call.get("id")), "name": text(call.get("name")),
                          "input": obj(call.get("args"))})  # fmt: skip
        return "assistant", found, stamp

    def message_extra(self, value: Any) -> dict[str, Any]:
        from entire_agent_qwen_code.transcript import usage_of

        r = obj(value)
        extra: dict[str, Any] = {"id": text(r.get("uuid"))}
        call = usage_of(r, self.logged)
        if call is not None:
            extra["usage"] = {"input_tokens": call.input_tokens, "output_tokens": call.output_tokens}
        return extra

    def snapshot(self, path: str, end: int, limit: int) -> list[bytes]:
        with open(path, "rb") as f:
            lines = f.read(end).split(b"\n")[:-1]
        if not lines:
            return []
        items = records(lines)
        alive = live(items)
        last = max((i for i, r in enumerate(items) if text(r.get("uuid"))), default=-1)
        kept = [r for i, r in enumerate(items) if i and r and alive[i] and (i == last or not _telemetry(r))]
        budget = max(1, limit - len(lines[0]) - 1)
        kept = [_shrink(r, max(views.SHRINK_TO, budget // 8)) for r in kept]
        kept = _fit(kept, budget)
        parent = text(items[0].get("uuid")) or None
        out = [lines[0].removesuffix(b"\r")]
        for r in kept:
            r["parentUuid"] = parent
            parent = text(r.get("uuid")) or parent
            out.append(dump(r))
        return out

    def shorten(self, record: bytes, limit: int) -> bytes | None:
        from entire_core.genai import without_inline_data

        try:
            value = obj(_json.loads(record))
        except (ValueError, RecursionError):
            return None
        if not text(value.get("uuid")):
            return None
        trimmed: dict[str, Any] = without_inline_data(value)
        return views.shorten_value(
            trimmed, len(record), limit, lambda p: _protected(trimmed, p), changed=True
        )


def _telemetry(record: dict[str, Any]) -> bool:
    return record.get("type") == "system" and record.get("subtype") == "ui_telemetry"


def _protected(record: dict[str, Any], path: tuple[str | int, ...]) -> bool:
    """Whether the string at ``path`` (from the record's root) must be kept whole."""
    if path[0] == "message":
        return _part_protected(obj(record.get("message")), path[1:])
    if path[0] == "toolCallResult":
        return path[1:2] in (("callId",), ("status",))
    if path[0] == "systemPayload" and path[1:2] == ("compressedHistory",) and len(path) > 2:
        index = path[2]
        history = array(obj(record.get("systemPayload")).get("compressedHistory"))
        content = history[index] if isinstance(index, int) and 0 <= index < len(history) else None
        return _part_protected(obj(content), path[3:])
    return True  # ids, timestamps, token counts, telemetry, metadata


def _part_protected(message: dict[str, Any], path: tuple[str | int, ...]) -> bool:
    """Within a GenAI content (``{role, parts}``): prompts, replies and the paths of writing calls stay."""
    if len(path) < 3 or path[0] != "parts":
        return True
    index = path[1]
    found = array(message.get("parts"))
    part = obj(found[index] if isinstance(index, int) and 0 <= index < len(found) else None)
    if "functionResponse" in part or "inlineData" in part or part.get("thought"):
        return False
    if "functionCall" in part and path[2:4] == ("functionCall", "args"):
        return obj(part.get("functionCall")).get("name") in WRITING_TOOLS | SUBAGENT_TOOLS
    return True


def _shrink(record: dict[str, Any], limit: int) -> dict[str, Any]:
    raw = dump(record)
    if len(raw) <= limit:
        return record
    short = QwenView().shorten(raw, limit)
    return obj(_json.loads(short)) if short is not None else record


def _fit(kept: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The records within ``limit`` bytes (``entire_core.fitting``): the oldest turns lose all but their
    prompts; the last record stays (Qwen walks back from it), and a result whose call went goes too."""
    from entire_core.fitting import fit

    last = kept[-1] if kept else None
    records, _ = fit(kept, limit, _line_cost, keep=lambda r: r is last or bool(prompt_of(r)), orphan=_orphan)
    return records


def _line_cost(record: dict[str, Any]) -> int:
    return len(dump(record)) + 1


def _orphan(record: dict[str, Any], previous: dict[str, Any] | None) -> bool:
    return previous is None and record.get("type") == "tool_result"


def dump(value: object) -> bytes:
    """A record as Qwen writes it (``JSON.stringify``: no spaces, non-ASCII as it is)."""
    import json  # only when a snapshot or a shortened record is written

    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
