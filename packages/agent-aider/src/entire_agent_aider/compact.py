"""``compact-transcript``: a session as compact JSONL, one line per prompt and per reply.

Lines follow the shape the Entire CLI's compact transcripts use
(``{"v": 1, "agent": ..., "cli_version": ..., "type": "user" | "assistant", "ts": ..., "content": [...]}``).
Aider logs no per-message time, so ``ts`` is the session's start (its header, in local time).
Assistant lines also list the files the turn edited.
"""

from __future__ import annotations

import json
import time

from entire_core.types import CompactTranscript

from entire_agent_aider import transcript


def _stamp(header: str | None) -> str:
    if header is None:
        return ""
    try:
        moment = time.mktime(time.strptime(header, "%Y-%m-%d %H:%M:%S"))
    except (ValueError, OverflowError):
        return ""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


def compact(session_ref: str, agent_name: str, cli_version: str) -> CompactTranscript:
    """The compact JSONL of every session in the chat-history file at ``session_ref``."""
    from entire_agent_aider.view import view_lines

    with open(session_ref, "rb") as f:
        data = f.read()
    history = transcript.parse_lines(view_lines(data))
    lines: list[str] = []
    for session in history.sessions:
        base = {
            "v": 1,
            "agent": agent_name,
            "cli_version": cli_version.strip() or "unknown",
            "ts": _stamp(session.header),
        }
        for turn in session.turns:
            if not turn.is_llm:
                continue
            lines.append(
                json.dumps({**base, "type": "user", "content": [{"type": "text", "text": turn.prompt}]})
            )
            if turn.reply or turn.files:
                content: list[dict[str, str]] = [{"type": "text", "text": turn.reply}] if turn.reply else []
                content += [{"type": "file_edit", "path": path} for path in turn.files]
                lines.append(json.dumps({**base, "type": "assistant", "content": content}))
    return CompactTranscript("".join(line + "\n" for line in lines).encode("utf-8"))
