"""The checkpoint's ``transcript.jsonl``: the CLI's own compaction of the session's bytes.

Entire CLI v0.10.3 compacts the whole ``full.jsonl`` (``checkpoint/persistent.go``,
``writeCompactTranscript``) and records as ``compact_transcript_start`` where this checkpoint's part
begins: the compact lines of the whole less those of the bytes from ``checkpoint_transcript_start``
on (``transcript/compact``, ``FullWithBoundary``). The lines come from the port in
``entire_core.testing.compactor``, which knows each line's kind, text and tool names but not the rest
of the host's line (timestamps, ids, tool inputs and results): the lines written here have the host's
count and texts, not its bytes.
"""

from __future__ import annotations

import json
from typing import Any

from entire_core.testing import compactor


def _line(agent: str, entry: dict[str, Any]) -> bytes:
    if entry["type"] == "user":
        content: list[dict[str, Any]] = [{"text": entry["text"]}]
    else:
        content = [{"type": "text", "text": entry["text"]}] if entry["text"] else []
        content += [{"type": "tool_use", "name": name} for name in entry["tools"]]
    line = {"v": 1, "agent": agent, "cli_version": "entire-sim", "type": entry["type"], "content": content}
    return json.dumps(line, ensure_ascii=False).encode("utf-8") + b"\n"


def transcript(agent: str, data: bytes, start_line: int) -> tuple[bytes, int | None]:
    """``transcript.jsonl`` for a checkpoint of ``data`` from line ``start_line``, and the compact line
    where its part starts; ``(b"", None)`` where the host writes none (nothing to compact) and where
    the port does not know the format."""
    try:
        whole = compactor.compact(data, 0)
        part = compactor.compact(data, start_line) if start_line > 0 else whole
    except compactor.Unported:
        return b"", None
    if not whole:
        return b"", None
    return b"".join(_line(agent, e) for e in whole), max(len(whole) - len(part), 0)
