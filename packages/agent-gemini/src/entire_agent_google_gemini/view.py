"""Gemini's side of the bounded transcript view (``entire_core.views``): its snapshot and its cuts.

The snapshot is what Gemini itself writes when it resumes or compresses a chat: a ``{"$set":
{"messages": [...]}}`` checkpoint, which ``loadConversationRecord`` takes in place of every message
before it. It is built by replaying the records the way Gemini does (headers and ``$set`` merged
into the metadata, messages upserted by id, a checkpoint replacing them all, ``$rewindTo`` cutting
the tail), from the last checkpoint on, and it follows the chat's own first line (its header). It
carries a note under the ``$set`` key ``entireView``: Gemini merges it into the session's metadata and
otherwise ignores it.

The Entire CLI's compactor cannot read Gemini's chat, so the view is *wrapped* generic JSONL: one line
per chat line, carrying the chat record losslessly (``entire_core.views.wrap``); a ``user`` record with
a prompt is a ``user`` line with the prompt's text, a ``gemini`` record an ``assistant`` line with its
text, ``tool_use`` and ``tool_result`` blocks, anything else a ``native`` line the compactor skips.
Gemini writes a reply when it arrives and again, same id, once its tool calls finished: the first
write carries the text, the rewrite (with ``toolCalls``) only the calls, so that the compactor, which
joins consecutive replies of one id, shows the text once. Our own parsers unwrap
(``transcript.decode``). Positions are line counts: a view position is the line of the same record.

What may be cut: tool outputs (``functionResponse`` results, ``resultDisplay``), inline data (images
become a short ``text/plain`` part that says what was cut) and thoughts; an oversized checkpoint after
the header (a resume's) loses those first, then its oldest messages other than the user's prompts. What never is: the user's
prompts, the model's text (the summary), the arguments of the file-writing tools (paths and content),
token counts, headers and subagent links (``agentId``).

Pre-0.39 single-JSON chats are not viewed: the CLI gets those files as they are.
"""

from __future__ import annotations

from entire_core import _json, offsets, views
from entire_core.genai import response_text, without_inline_data
from entire_core.jsonvalues import array as as_list
from entire_core.jsonvalues import obj as as_dict

from entire_agent_google_gemini.transcript import (
    MODIFYING_TOOLS,
    SUBAGENT_TOOLS,
    prompt_of,
    rewind,
    text_of,
    tool_calls,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from entire_core.scratch import Scratch

TAG_KEY = "entireView"
NOTE = (
    " Entire's view of this session starts here: the turns before were stored by earlier checkpoints,"
    " and this checkpoint restates the conversation as Gemini replays it."
)
REPLAY_LIMIT_FACTOR = 8
"""The snapshot replays at most this many budgets of history before its end."""
_CHECKPOINT = b'{"$set":{"messages":'


class GeminiView(views.ViewFormat):
    """Snapshots as ``$set.messages`` checkpoints; line positions; wrapped generic JSONL."""

    unit = views.LINES
    wrap = True

    def record(self, value: Any) -> tuple[str, list[dict[str, Any]], str | None] | None:
        message = as_dict(value)
        stamp = message.get("timestamp")
        stamp = stamp if isinstance(stamp, str) else None
        if message.get("type") == "user":
            text = prompt_of(message)
            return ("user", [{"type": "text", "text": text}], stamp) if text else None
        if message.get("type") != "gemini":
            return None
        calls = tool_calls(message)
        blocks: list[dict[str, Any]] = []
        text = "" if calls else text_of(message.get("content")).strip()
        if text:
            blocks.append({"type": "text", "text": text})
        for call in calls:
            call_id = str(call.get("id") or "")
            blocks.append({"type": "tool_use", "id": call_id, "name": str(call.get("name") or ""),
                           "input": as_dict(call.get("args"))})  # fmt: skip
            if "result" in call:
                blocks.append({"type": "tool_result", "tool_use_id": call_id, "content": _result_text(call)})
        return "assistant", blocks, stamp

    def message_extra(self, value: Any) -> dict[str, Any]:
        message = as_dict(value)
        extra: dict[str, Any] = {}
        if isinstance(message.get("id"), str):
            extra["id"] = message["id"]
        tokens = as_dict(message.get("tokens"))
        if tokens:
            extra["usage"] = {
                "input_tokens": _int(tokens.get("input")),
                "output_tokens": _int(tokens.get("output")),
            }
        return extra

    def __init__(self, scratch: Scratch | None = None) -> None:
        self.scratch = scratch

    def whole(self, native: str) -> bytes | None:
        """A pre-0.39 chat as ``sessionfile.read`` repairs it (a resume's stray file, a deleted chat)."""
        from entire_agent_google_gemini import sessionfile

        return sessionfile.read(native, self.scratch)

    def accepts(self, native: str) -> bool:
        """JSONL chats are viewed; a pre-0.39 single-JSON chat is handed over as it is."""
        try:
            with open(native, "rb") as f:
                first = f.readline(1 << 16)
                more = f.read(1)
        except OSError:
            return True  # not written yet: it will be JSONL
        return not is_legacy_head(first, more)

    def snapshot(self, path: str, end: int, limit: int) -> list[bytes]:
        with open(path, "rb") as f:
            first = f.readline().rstrip(b"\r\n")
        floor = len(first) + 1
        start = _last_checkpoint(path, end, floor, limit * REPLAY_LIMIT_FACTOR)
        budget = max(1, limit - 2 * len(first) - len(NOTE) - 256)
        messages, metadata = replay_messages(_lines(path, start, end), budget)
        messages = fit(messages, budget)
        update: dict[str, Any] = {TAG_KEY: NOTE.strip()}
        update.update({k: v for k, v in metadata.items() if k not in (TAG_KEY, "messages")})
        update["messages"] = messages
        return [first, dump({"$set": update})]

    def shorten(self, record: bytes, limit: int) -> bytes | None:
        size = len(record)
        try:
            value = as_dict(_json.loads(record))
        except (ValueError, RecursionError):
            return None
        if not value or "$rewindTo" in value or ("sessionId" in value and "projectHash" in value):
            return None
        if "$set" in value:
            update = as_dict(value.get("$set"))
            messages = as_list(update.get("messages"))
            if not messages:
                return None  # metadata: the title, the session id, the scratchpad
            # A later checkpoint replaces the history Gemini resumes with its own list, and the
            # checkpoint before it may have cleared it (a same-minute resume writes a context-only
            # one first): the user's prompts stay in it, whatever its size.
            shrunk = [shrink(as_dict(m), max(views.SHRINK_TO, limit // 8)) for m in messages]
            value["$set"] = {**update, "messages": fit(shrunk, limit)}
            out = dump(value)
            return out if len(out) < size else None
        if not isinstance(value.get("id"), str):
            return None
        trimmed = without_inline_data(value)
        return views.shorten_value(
            trimmed, size, limit, protector(trimmed), changed=trimmed is not value or len(record) < size
        )


def _int(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def _result_text(call: dict[str, Any]) -> str:
    """A tool call's result as text: what Gemini showed, else the function response's output."""
    shown = call.get("resultDisplay")
    if isinstance(shown, str) and shown:
        return shown
    return response_text(call.get("result"))


def is_legacy_head(first: bytes, more: bytes) -> bool:
    """Whether a chat file that starts with line ``first`` (``more``: a byte after it) is pre-0.39 JSON."""
    line = first.removeprefix(b"\xef\xbb\xbf").strip()
    if line == b"{":
        return True  # pretty-printed: one JSON document
    if not line.startswith(b"{") or more.strip():
        return False
    try:
        value = as_dict(_json.loads(line))
    except (ValueError, RecursionError):
        return False
    return isinstance(value.get("messages"), list) and "$set" not in value


# -- what may be cut --------------------------------------------------------------------------------------


def protector(message: dict[str, Any]) -> Callable[[tuple[str | int, ...]], bool]:
    """The ``protected(path)`` predicate for one message record (paths from the message's root)."""

    def protected(path: tuple[str | int, ...]) -> bool:
        return _protected_in(message, path)

    return protected


def _protected_in(message: dict[str, Any], path: tuple[str | int, ...]) -> bool:
    if not path or "thoughtSignature" in path:
        return True
    kind = message.get("type")
    key = path[0]
    if key == "content":
        if len(path) == 1:
            return kind in ("user", "gemini")  # a prompt or the model's text as a plain string
        part = as_dict(_at(message.get("content"), path[1]))
        if "functionResponse" in part or "inlineData" in part:
            return False
        if "functionCall" in part:
            return as_dict(part.get("functionCall")).get("name") in MODIFYING_TOOLS | SUBAGENT_TOOLS
        if kind == "gemini":
            return not part.get("thought")
        return kind == "user"
    if key == "displayContent":
        return True
    if key == "toolCalls" and len(path) > 2:
        call = as_dict(_at(message.get("toolCalls"), path[1]))
        field = path[2]
        if field == "args":
            return call.get("name") in MODIFYING_TOOLS | SUBAGENT_TOOLS
        return field not in ("result", "resultDisplay", "description", "displayName")
    return key not in ("thoughts",)


def _at(container: object, index: str | int) -> object:
    items = as_list(container)
    return items[index] if isinstance(index, int) and 0 <= index < len(items) else None


def shrink(message: dict[str, Any], limit: int) -> dict[str, Any]:
    """A message without inline data and, when still over ``limit``, with its tool outputs and thoughts cut."""
    message = without_inline_data(message)
    raw = dump(message)
    if len(raw) <= limit:
        return message
    short = views.shorten_json(raw, limit, protector(message))
    return as_dict(_json.loads(short)) if short is not None else message


def _is_prompt(message: dict[str, Any]) -> bool:
    return bool(prompt_of(message))


def _tool_results_only(message: dict[str, Any]) -> bool:
    parts = as_list(message.get("content"))
    return (
        message.get("type") == "user" and bool(parts) and all("functionResponse" in as_dict(p) for p in parts)
    )


def fit(messages: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The history within ``limit`` bytes (``entire_core.fitting``): outputs cut first, then the oldest
    messages dropped. The user's prompts stay: they are the conversation's thread. A tool result left
    without the call before it goes too (the API refuses an answer to a call it never made).
    """
    from entire_core.fitting import fit as fit_history

    kept, _ = fit_history(
        messages, limit, _size, keep=_is_prompt, shorten=_shrunk, shorten_over=views.SHRINK_TO, orphan=_orphan
    )
    return kept


def _shrunk(message: dict[str, Any]) -> dict[str, Any]:
    return shrink(message, views.SHRINK_TO)


def _orphan(message: dict[str, Any], previous: dict[str, Any] | None) -> bool:
    """A tool result that does not follow a model's message or the user's (its call, or a result before)."""
    return _tool_results_only(message) and (
        previous is None or previous.get("type") not in ("gemini", "user")
    )


# -- replaying a chat ---------------------------------------------------------------------------------------


def replay_messages(lines: Iterator[bytes], limit: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The messages and the metadata Gemini's ``loadConversationRecord`` gets from ``lines``.

    Messages are shortened as they come (``limit // 8`` each) and the history kept within twice
    ``limit``, so memory stays bounded however long the chat.
    """
    messages: dict[str, dict[str, Any]] = {}
    metadata: dict[str, Any] = {}
    size = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            record = as_dict(_json.loads(line))
        except (ValueError, RecursionError):
            continue
        target = record.get("$rewindTo")
        if isinstance(target, str):
            rewind(messages, target)
            size = sum(_size(m) for m in messages.values())
        elif isinstance(record.get("id"), str):
            message = shrink(record, max(views.SHRINK_TO, limit // 8))
            old = messages.get(record["id"])
            size += _size(message) - (_size(old) if old is not None else 0)
            messages[record["id"]] = message
        elif "$set" in record:
            update = as_dict(record.get("$set"))
            if isinstance(update.get("messages"), list):
                messages.clear()
                for m in as_list(update.get("messages")):
                    message = as_dict(m)
                    if isinstance(message.get("id"), str):
                        messages[message["id"]] = shrink(message, max(views.SHRINK_TO, limit // 8))
                size = sum(_size(m) for m in messages.values())
            metadata.update({k: v for k, v in update.items() if k != "messages"})
        elif isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str):
            for m in as_list(record.get("messages")):
                message = as_dict(m)
                if isinstance(message.get("id"), str):
                    messages[message["id"]] = shrink(message, max(views.SHRINK_TO, limit // 8))
        if size > 2 * limit:
            kept = fit(list(messages.values()), limit)
            messages = {m["id"]: m for m in kept}
            size = sum(_size(m) for m in kept)
    return list(messages.values()), metadata


def _size(value: object) -> int:
    return len(dump(value))


def dump(value: object) -> bytes:
    import json  # only when a snapshot or a shortened record is written

    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


# -- reading the chat --------------------------------------------------------------------------------------


def _last_checkpoint(path: str, end: int, floor: int, reach: int) -> int:
    """Where the last ``$set.messages`` checkpoint before ``end`` starts, not further back than ``reach``.

    Without one that near, the line start ``reach`` bytes before ``end`` (or ``floor``, after the header).
    """
    stop = offsets.line_start_after(path, max(floor, end - reach))
    found = offsets.last_line_with(path, _CHECKPOINT, end, stop, lambda line: line.startswith(_CHECKPOINT))
    return stop if found is None else found


def _lines(path: str, start: int, end: int) -> Iterator[bytes]:
    for line, _ in offsets.lines_between(path, start, end):
        yield line.removesuffix(b"\r")
