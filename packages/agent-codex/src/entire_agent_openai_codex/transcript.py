"""Reading Codex rollouts: complete lines after an offset, their JSON records, and the first line's metadata.

A rollout is JSONL, one ``{"timestamp", "type", "payload"}`` object per line, appended as the thread
runs (see ``docs/agents/codex.md``). Offsets are line counts, as the Entire CLI counts the file it
stores (a view, ``entire_core.views``): a line still being written is left for the next call.
Every reader is tolerant: unknown line types and lines that do not parse are skipped, because the
format changes between Codex releases. What is read out of the records lives next door: ``messages``
(prompts, summary), ``file_changes``, ``tokens``, ``subagents`` and ``turn_end``.
"""

from __future__ import annotations

from entire_core.jsonvalues import obj as as_dict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

Record = dict[str, "Any"]


def position(path: str) -> int:
    """How many complete lines the rollout has; 0 for a missing file."""
    from entire_core import offsets

    return offsets.count_lines(path)[0]


def read_range(path: str, offset: int) -> tuple[list[bytes], int]:
    """Complete lines from line ``offset`` on and the line count read up to (nothing past the end)."""
    from entire_core import offsets

    return offsets.lines_from(path, offset)


def records(lines: Iterable[bytes], *needles: bytes) -> Iterator[Record]:
    """The JSON objects among ``lines``; with ``needles``, only lines containing one of them are parsed."""
    from entire_core import _json

    for line in lines:
        if needles and not any(n in line for n in needles):
            continue
        try:
            record = as_dict(_json.loads(line))
        except (ValueError, RecursionError):
            continue
        if record:
            yield record


def payload_of(record: Record) -> Record:
    """A line's payload (an empty dict when it has none or it is not an object)."""
    return as_dict(record.get("payload"))


def event_type(record: Record) -> str:
    """``"<line type>/<payload type>"``, for example ``"event_msg/token_count"``."""
    kind = payload_of(record).get("type")
    return f"{record.get('type')}/{kind if isinstance(kind, str) else ''}"


def first_line(data: bytes) -> bytes:
    """The first line of ``data`` (the session_meta line of a rollout)."""
    newline = data.find(b"\n")
    return data if newline < 0 else data[:newline]


def head(path: str, limit: int = 1 << 20) -> bytes:
    """The first line of the file at ``path`` (at most ``limit`` bytes); empty when unreadable."""
    try:
        with open(path, "rb") as f:
            return f.readline(limit)
    except OSError:
        return b""


def session_meta(line: bytes) -> Record:
    """The payload of a rollout's first line when it is ``session_meta``, else an empty dict."""
    for record in records([line]):
        if record.get("type") == "session_meta":
            return payload_of(record)
    return {}


def cwd_of(first_line: bytes) -> str:
    """The working directory a rollout's ``session_meta`` line records ("" when it has none)."""
    return str(session_meta(first_line).get("cwd") or "")


def is_subagent_thread(meta: Record) -> bool:
    """True when a rollout's ``session_meta`` payload belongs to a thread a subagent spawn started.

    Codex 0.171 says so in ``thread_source``; 0.130 writes ``source: {"subagent": ...}`` too.
    """
    source = meta.get("source")
    return meta.get("thread_source") == "subagent" or (isinstance(source, dict) and "subagent" in source)
