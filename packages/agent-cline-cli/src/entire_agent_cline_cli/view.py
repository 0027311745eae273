"""Cline's side of the bounded transcript view (``entire_core.views``): the journal, wrapped, with its cuts.

The view follows the session's journal (``journal``): one view line per journal line, so positions
are lines of both. The host's compactor cannot read Cline's messages, so the view is *wrapped*: a
prompt is a ``user`` line with its text, an assistant message an ``assistant`` line with its text and
``tool_use`` blocks (``message.usage``: the call's tokens), a tool result a ``user`` line of
``tool_result`` blocks, the header a ``native`` line. Our parsers unwrap (``views.record_of``).

The snapshot of a re-based view is the journal's header, then its messages from the last that fit
(``entire_core.fitting``): tool outputs are cut first, then the oldest messages go, but never the
user's prompts; a tool result whose call went goes too. What may be cut: tool results, and the input
of any tool but the writing and subagent ones. What never is: prompts, replies, the paths and texts
written, token counts, ids.
"""

from __future__ import annotations

from entire_core import _json, views
from entire_core.jsonvalues import obj, objects, text

from entire_agent_cline_cli.transcript import SUBAGENT_TOOL, WRITING_TOOLS, call_usage, prompt_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ClineView(views.ViewFormat):
    """Wrapped generic JSONL over the session's journal."""

    unit = views.LINES
    wrap = True

    def record(self, value: Any) -> tuple[str, list[dict[str, Any]], str | None] | None:
        m = obj(value)
        role = m.get("role")
        parts = objects(m.get("content"))
        results = [p for p in parts if p.get("type") == "tool_result"]
        if role == "user" and results:
            return "user", [{"type": "tool_result", "tool_use_id": text(p.get("tool_use_id")),
                             "content": _result_text(p.get("content"))} for p in results], None  # fmt: skip
        if role == "user":
            said = prompt_of(m)
            return ("user", [{"type": "text", "text": said}], None) if said else None
        if role != "assistant":
            return None
        blocks: list[dict[str, Any]] = []
        for p in parts:
            if p.get("type") == "text" and text(p.get("text")).strip():
                blocks.append({"type": "text", "text": text(p.get("text")).strip()})
            elif p.get("type") == "tool_use":
                blocks.append({"type": "tool_use", "id": text(p.get("id")), "name": text(p.get("name")),
                               "input": obj(p.get("input"))})  # fmt: skip
        return "assistant", blocks, None

    def message_extra(self, value: Any) -> dict[str, Any]:
        m = obj(value)
        extra: dict[str, Any] = {"id": text(m.get("id"))}
        call = call_usage(m)
        if call is not None:
            extra["usage"] = {"input_tokens": call.input_tokens, "output_tokens": call.output_tokens,
                              "cache_read_input_tokens": call.cache_read_tokens,
                              "cache_creation_input_tokens": call.cache_creation_tokens}  # fmt: skip
        return extra

    def snapshot(self, path: str, end: int, limit: int) -> list[bytes]:
        from entire_core.fitting import fit

        from entire_agent_cline_cli import journal
        from entire_agent_cline_cli.transcript import lines_of, messages

        with open(path, "rb") as f:
            lines = lines_of(f.read(end))
        if not lines:
            return []
        items = messages(lines[1:])
        fields = obj(journal.header(lines).get("document"))  # the first line, then what changed since
        head = [
            lines[0].removesuffix(b"\r"),
            *(journal.line(u)[:-1] for u in journal.update(lines[:1], fields)),
        ]
        room = max(1, limit - sum(len(h) + 1 for h in head))
        last = items[-1] if items else None
        kept, _ = fit(items, room, lambda m: len(_dump(m)) + 1, keep=lambda m: m is last or bool(prompt_of(m)),
                      shorten=lambda m: _shrink(m, views.SHRINK_TO), shorten_over=views.SHRINK_TO, orphan=_orphan)  # fmt: skip
        return [*head, *(_dump(m) for m in kept)]

    def shorten(self, record: bytes, limit: int) -> bytes | None:
        try:
            value = obj(_json.loads(record))
        except (ValueError, RecursionError):
            return None
        if not isinstance(value.get("role"), str):
            return None  # the header
        return views.shorten_value(value, len(record), limit, lambda p: _protected(value, p))


def _result_text(content: object) -> str:
    return content if isinstance(content, str) else "".join(text(p.get("text")) for p in objects(content))


def _protected(message: dict[str, Any], path: tuple[str | int, ...]) -> bool:
    """Whether the string at ``path`` (from the message's root) must be kept whole."""
    if len(path) < 3 or path[0] != "content":
        return True
    parts = objects(message.get("content"))
    index = path[1]
    part = parts[index] if isinstance(index, int) and 0 <= index < len(parts) else {}
    if part.get("type") == "tool_result":
        return path[2] != "content"
    if part.get("type") == "tool_use" and path[2] == "input":
        return part.get("name") in WRITING_TOOLS or part.get("name") == SUBAGENT_TOOL
    return True


def _shrink(message: dict[str, Any], limit: int) -> dict[str, Any]:
    raw = _dump(message)
    if len(raw) <= limit:
        return message
    short = ClineView().shorten(raw, limit)
    return obj(_json.loads(short)) if short is not None else message


def _orphan(message: dict[str, Any], previous: dict[str, Any] | None) -> bool:
    """A tool result with no message before it (its call went)."""
    return previous is None and any(p.get("type") == "tool_result" for p in objects(message.get("content")))


def _dump(value: object) -> bytes:
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
