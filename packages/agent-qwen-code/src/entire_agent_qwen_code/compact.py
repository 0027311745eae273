"""A session as the Entire Transcript Format (v1): one compact JSON line per prompt and per answer.

AGENT AUTHOR: add tool calls and their results when the transcript records them.
"""

from __future__ import annotations

from entire_core.types import CompactTranscript


def compact(session_ref: str, *, agent_name: str, cli_version: str) -> CompactTranscript:
    """The compact transcript of the session at ``session_ref``."""
    import json

    from entire_core import offsets

    from entire_agent_qwen_code import transcript

    lines, _ = offsets.read_lines(session_ref, 0)
    out: list[str] = []
    for record in transcript.records(lines):
        kind = record.get("type")
        if kind in ("user", "assistant"):
            entry = {
                "v": 1,
                "agent": agent_name,
                "cli_version": cli_version,
                "type": kind,
                "text": record.get("text", ""),
            }
            out.append(json.dumps(entry, ensure_ascii=False))
    return CompactTranscript("".join(line + "\n" for line in out).encode("utf-8"))
