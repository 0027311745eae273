"""Token usage of a rollout: Codex's per-response ``token_usage_record`` lines, else its cumulative ``token_count`` snapshots."""

from __future__ import annotations

from entire_core import offsets
from entire_core.jsonvalues import obj as as_dict
from entire_core.types import TokenUsage

from entire_agent_openai_codex.transcript import (
    Record,
    event_type,
    first_line,
    payload_of,
    records,
    session_meta,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


def counter(usage: object, name: str) -> int:
    """A non-negative integer counter of a Codex usage object (0 when absent or malformed)."""
    value = as_dict(usage).get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _usage_of(usage: object, calls: int) -> TokenUsage:
    """Codex usage as Entire counts it: input without cache reads or writes; output with reasoning."""
    cached = counter(usage, "cached_input_tokens")
    written = counter(usage, "cache_write_input_tokens")
    return TokenUsage(
        input_tokens=max(0, counter(usage, "input_tokens") - cached - written),
        cache_creation_tokens=written,
        cache_read_tokens=cached,
        output_tokens=counter(usage, "output_tokens"),
        api_call_count=calls,
    )


def _delta(after: object, before: object) -> dict[str, int]:
    names = ("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens")
    return {n: max(0, counter(after, n) - counter(before, n)) for n in names}


def _total_of(record: Record) -> dict[str, Any] | None:
    """The cumulative totals of a ``token_count`` event (None when it has none)."""
    if event_type(record) != "event_msg/token_count":
        return None
    return as_dict(as_dict(payload_of(record).get("info")).get("total_token_usage")) or None


def token_usage(data: bytes, offset: int) -> TokenUsage:
    """Token usage of the rollout ``data`` after ``offset``, as deltas of Codex's cumulative counts.

    A rollout with ``token_usage_record`` lines (one per model response, newer Codex) is counted by
    them alone: this thread's own records in the range are summed. (Its cumulative ``token_count``
    events restate the same usage, and a range after the last response but before its
    ``token_count`` would count it again.) Otherwise the last cumulative ``token_count`` snapshot in
    the range minus the last one before it; ``api_call_count`` is then the number of snapshots that
    moved the totals (Codex repeats the previous snapshot at a turn's start).
    """
    lines = offsets.lines_after(data, offset)
    if any(needle in data for needle in _RECORD):
        return _records_usage(lines, session_meta(first_line(data)).get("id"))
    previous = _baseline(data, offset)
    last = previous
    moves = 0
    for record in records(lines, b'"token_count"'):
        current = _total_of(record)
        if current is None:
            continue
        if any(_delta(current, last).values()):
            moves += 1
        last = current
    return _usage_of(_delta(last, previous), moves)


_RECORD = (b'"type":"token_usage_record"', b'"type": "token_usage_record"')
"""How a rollout's ``token_usage_record`` line reads (a quote inside text would be escaped)."""


def _records_usage(lines: Iterable[bytes], own_id: object) -> TokenUsage:
    """The sum of this thread's ``token_usage_record`` lines among ``lines``."""
    total = TokenUsage()
    for record in records(lines, b'"token_usage_record"'):
        if record.get("type") != "token_usage_record":
            continue
        payload = payload_of(record)
        thread = payload.get("thread_id")
        if isinstance(own_id, str) and isinstance(thread, str) and thread != own_id:
            continue
        total += _usage_of(payload.get("usage"), 1)
    return total


def _baseline(data: bytes, offset: int) -> dict[str, Any] | None:
    """The last cumulative snapshot before ``offset``, searched backwards."""
    end = offset
    while end > 0:
        at = data.rfind(b'"token_count"', 0, end)
        if at < 0:
            return None
        start = data.rfind(b"\n", 0, at) + 1
        stop = data.find(b"\n", at)
        for record in records([data[start : stop if stop >= 0 else len(data)]]):
            total = _total_of(record)
            if total is not None:
                return total
        end = start
    return None


def file_usage(path: str) -> TokenUsage:
    """Token usage of a whole rollout file (a subagent's own thread)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return TokenUsage()
    return token_usage(data, 0)
