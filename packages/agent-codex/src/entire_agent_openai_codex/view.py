"""Codex's side of the bounded transcript view (``entire_core.views``): its snapshot and its cuts.

The snapshot is what Codex itself writes when it compacts a thread: a ``compacted`` record whose
``replacement_history`` is the model-visible history, which ``codex resume`` loads in place of
everything before it. It is preceded by the rollout's ``session_meta`` line, the last
``turn_context`` (model and settings) and the last ``token_count`` (the cumulative counters every
later turn's usage is measured against).

What may be cut: tool outputs, inline images and encrypted reasoning. What never is: prompts, the
assistant's messages (the summary), patches and file changes, counters, and spawn results (the
links to subagents).
"""

from __future__ import annotations

from entire_core import _json, offsets, views
from entire_core.jsonvalues import array as as_list
from entire_core.jsonvalues import obj as as_dict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

NOTE = (
    " Entire's view of this session starts here: the turns before were stored by earlier checkpoints,"
    " and this record restates the conversation as the model sees it."
)
REPLAY_LIMIT_FACTOR = 8
"""The snapshot replays at most this many budgets of history after the last compaction."""
_KEEP_ROLES_WHOLE = ("user", "assistant")


class CodexView(views.ViewFormat):
    """Snapshots as ``compacted`` records; the rollout's own lines (the CLI reads rollouts natively)."""

    unit = views.LINES

    def snapshot(self, path: str, end: int, limit: int) -> list[bytes]:
        with open(path, "rb") as f:
            first = f.readline().rstrip(b"\r\n")
        start = _last_compaction(path, end, len(first) + 1, limit * REPLAY_LIMIT_FACTOR)
        history: list[dict[str, Any]] = []
        turn_context = token_count = usage_record = b""
        stamp = ""
        size = 0
        for line in _lines(path, start, end):
            record = _parse(line, b'"response_item"', b'"compacted"', b'"turn_context"', b'"token_count"',
                            b"thread_rolled_back", b'"token_usage_record"')  # fmt: skip
            if record is None:
                continue
            stamp = str(record.get("timestamp") or stamp)
            kind = record.get("type")
            payload = as_dict(record.get("payload"))
            if kind == "compacted":
                replacement = payload.get("replacement_history")
                history = [as_dict(i) for i in as_list(replacement)]
                if not isinstance(replacement, list) and isinstance(payload.get("message"), str):
                    history = [_user_text(str(payload["message"]))]  # before replacement_history existed
                size = sum(_size(i) for i in history)
            elif kind == "response_item":
                history.append(_shrunk_item(payload, limit // 8))
                size += _size(history[-1])
            elif kind == "turn_context":
                turn_context = line
            elif kind == "token_usage_record":
                usage_record = (
                    line  # its presence says how the rollout counts tokens (``tokens.token_usage``)
                )
            elif kind == "event_msg" and payload.get("type") == "token_count":
                token_count = line
            elif kind == "event_msg" and payload.get("type") == "thread_rolled_back":
                history = _rolled_back(history, payload.get("num_turns"))
            if size > 2 * limit:
                history, size = _fit(history, limit)
        history, size = _fit(history, limit)
        compacted = {"timestamp": stamp, "type": "compacted",
                     "payload": {"message": NOTE.strip(), "replacement_history": history}}  # fmt: skip
        header = [first, turn_context, token_count, usage_record]
        return [line for line in header if line] + [_dump(compacted)]

    def shorten(self, record: bytes, limit: int) -> bytes | None:
        try:
            value = as_dict(_json.loads(record))
        except (ValueError, RecursionError):
            return None
        size = len(record)
        kind = value.get("type")
        payload = as_dict(value.get("payload"))
        if kind in ("session_meta", "turn_context", "token_usage_record"):
            return None
        if kind == "compacted":
            history = [as_dict(i) for i in as_list(payload.get("replacement_history"))]
            payload["replacement_history"], _ = _fit([_shrunk_item(i, limit // 8) for i in history], limit)
            out = _dump(value)
            return out if len(out) < size else None
        changed = False
        if kind == "response_item":
            value["payload"] = _without_images(payload)
            changed = value["payload"] is not payload
            if payload.get("type") == "reasoning" and payload.get("encrypted_content"):
                value["payload"]["encrypted_content"] = None
                changed = True
        elif kind == "event_msg" and payload.get("type") == "user_message" and payload.get("images"):
            payload["images"] = [_image_marker(str(i)) for i in as_list(payload.get("images"))]
            changed = True
        return views.shorten_value(value, size, limit, _protector(value), changed=changed)


# -- what may be cut ------------------------------------------------------------------------------------


def _protector(record: dict[str, Any]) -> Any:
    """The ``protected(path)`` predicate for one rollout record."""
    kind = record.get("type")
    payload = as_dict(record.get("payload"))
    inner = payload.get("type")
    item_type = as_dict(payload.get("item")).get("type")

    def protected(path: tuple[str | int, ...]) -> bool:
        if kind == "response_item":
            if inner == "message":
                return payload.get("role") in _KEEP_ROLES_WHOLE
            if inner in ("custom_tool_call", "function_call", "local_shell_call"):
                return True  # patches and commands: the files a turn changed are read from them
            if inner == "function_call_output":
                return b'"agent_id"' in str(payload.get("output"))[:4096].encode()  # a subagent's link
            return False
        if kind == "event_msg":
            if inner == "item_completed":
                return item_type in ("UserMessage", "AgentMessage", "FileChange", "CollabAgentToolCall")
            return inner in (
                "user_message",
                "agent_message",
                "task_complete",
                "patch_apply_end",
                "token_count",
            )
        return kind not in ("compacted", "world_state")

    return protected


def _shrunk_item(item: dict[str, Any], limit: int) -> dict[str, Any]:
    """A history item with images replaced, encrypted reasoning dropped and a long output cut."""
    item = _without_images(item)
    if item.get("type") == "reasoning" and item.get("encrypted_content"):
        item["encrypted_content"] = None
    if item.get("type") in ("function_call_output", "custom_tool_call_output") and _size(item) > limit:
        output = item.get("output")
        if isinstance(output, str):
            item["output"] = views.cut_text(output, limit)
    return item


def _without_images(item: dict[str, Any]) -> dict[str, Any]:
    """``item`` with every inline image (``input_image`` with a data URL) replaced by a marker text."""
    for key in ("content", "output"):
        if isinstance(item.get(key), list):
            item = {**item, key: [_text_for_image(part) for part in as_list(item.get(key))]}
    return item


def _text_for_image(part: object) -> object:
    p = as_dict(part)
    url = p.get("image_url")
    if p.get("type") == "input_image" and isinstance(url, str) and url.startswith("data:"):
        size = len(url.encode())
        return {
            "type": "input_text",
            "text": views.MARKER.format(cut=size, total=size) + " (an inline image)",
        }
    return part


def _image_marker(url: str) -> str:
    if not url.startswith("data:"):
        return url
    size = len(url.encode())
    return "data:text/plain," + views.MARKER.format(cut=size, total=size).replace(" ", "%20")


def _fit(history: list[dict[str, Any]], limit: int) -> tuple[list[dict[str, Any]], int]:
    """The history within ``limit`` bytes (``entire_core.fitting``): long outputs cut first, then the oldest
    items dropped. The user's own messages stay, whatever their size: they are the conversation's thread.
    """
    from entire_core.fitting import fit

    return fit(history, limit, _size, keep=_is_user_message, shorten=_shrunk)


def _shrunk(item: dict[str, Any]) -> dict[str, Any]:
    return _shrunk_item(item, views.SHRINK_TO)


def _is_user_message(item: dict[str, Any]) -> bool:
    return item.get("type") == "message" and item.get("role") == "user"


def _rolled_back(history: list[dict[str, Any]], turns: object) -> list[dict[str, Any]]:
    """History after Codex undid its last ``turns`` user turns."""
    if not isinstance(turns, int) or turns <= 0:
        return history
    users = [i for i, item in enumerate(history) if _is_user_message(item)]
    return history[: users[-turns]] if len(users) >= turns else []


def _user_text(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _size(item: object) -> int:
    import json

    return len(json.dumps(item, ensure_ascii=False))


def _dump(value: object) -> bytes:
    import json  # only when a snapshot or a shortened record is written

    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def _parse(line: bytes, *needles: bytes) -> dict[str, Any] | None:
    if not any(n in line for n in needles):
        return None
    try:
        value = _json.loads(line)
    except (ValueError, RecursionError):
        return None
    return as_dict(value) or None


# -- reading the rollout -----------------------------------------------------------------------------------


def _last_compaction(path: str, end: int, floor: int, reach: int) -> int:
    """Where the last ``compacted`` record before ``end`` starts, not further back than ``reach`` bytes."""
    stop = offsets.line_start_after(path, max(floor, end - reach))
    found = offsets.last_line_with(path, b'"compacted"', end, stop, _is_compacted)
    return stop if found is None else found


def _is_compacted(line: bytes) -> bool:
    record = _parse(line, b'"compacted"')
    return record is not None and record.get("type") == "compacted"


def _lines(path: str, start: int, end: int) -> Iterator[bytes]:
    for line, _ in offsets.lines_between(path, start, end):
        yield line.removesuffix(b"\r")
