"""The compact transcript: one JSON line per user prompt and per model turn, tools with their results.

Line shape (as the reference plugins write it): ``{"v": 1, "agent": "google-gemini", "cli_version": ...,
"type": "user" | "assistant", "ts": ..., "id": ..., "content": [...]}``; user content is
``[{"text": ...}]``, assistant content holds ``{"type": "text", ...}`` and ``{"type": "tool_use", "id",
"name", "input", "result": {"output", "status"}}`` blocks.
"""

from __future__ import annotations

import json

from entire_core.jsonvalues import obj
from entire_core.jsonvalues import objects as dicts
from entire_core.types import CompactTranscript

from entire_agent_google_gemini import transcript

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_agent_google_gemini.transcript import Chat


def _result_output(call: dict[str, Any]) -> str:
    """The text a tool call returned to the model (its functionResponse output or error)."""
    for part in dicts(call.get("result")):
        body = obj(obj(part.get("functionResponse")).get("response"))
        value = body.get("output", body.get("error"))
        if value is not None:
            return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    display = call.get("resultDisplay")
    return display if isinstance(display, str) else ""


def _assistant_blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    text = transcript.text_of(message.get("content")).strip()
    if text:
        blocks.append({"type": "text", "text": text})
    for call in transcript.tool_calls(message):
        block: dict[str, Any] = {
            "type": "tool_use",
            "id": str(call.get("id", "")),
            "name": str(call.get("name", "")),
        }
        block["input"] = call.get("args") if isinstance(call.get("args"), dict) else {}
        status = call.get("status")
        block["result"] = {
            "output": _result_output(call),
            "status": "success" if status in (None, "success") else "error",
        }
        blocks.append(block)
    return blocks


def compact(chat: Chat, *, agent: str, cli_version: str) -> CompactTranscript:
    """The compact JSONL of a whole chat (rewinds applied, checkpoint copies left out), by ``agent``."""
    base = {"v": 1, "agent": agent, "cli_version": cli_version.strip() or "unknown"}
    lines: list[str] = []
    for message in chat.messages():
        stamp = str(message.get("timestamp") or "")
        if message.get("type") == "user":
            prompt = transcript.prompt_of(message)
            if not prompt:
                continue
            line = {**base, "type": "user", "ts": stamp, "id": message["id"], "content": [{"text": prompt}]}
        elif message.get("type") == "gemini":
            blocks = _assistant_blocks(message)
            if not blocks:
                continue
            line = {**base, "type": "assistant", "ts": stamp, "id": message["id"], "content": blocks}
        else:
            continue
        lines.append(json.dumps(line, ensure_ascii=False))
    return CompactTranscript("".join(line + "\n" for line in lines).encode("utf-8"))
