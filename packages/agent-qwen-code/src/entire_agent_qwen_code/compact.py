"""The compact transcript: one JSON line per prompt and per model reply, live branch only.

Line shape (as the reference plugins write it): ``{"v": 1, "agent": "qwen-code", "cli_version": ...,
"type": "user" | "assistant", "ts": ..., "id": ..., "content": [...]}``; user content is
``[{"text": ...}]``, assistant content ``{"type": "text", "text"}`` and ``{"type": "tool_use", "id",
"name", "input"}`` blocks.
"""

from __future__ import annotations

from entire_core.types import CompactTranscript


def compact(data: bytes, *, agent_name: str, cli_version: str) -> CompactTranscript:
    """The compact transcript of a Qwen chat recording."""
    import json

    from entire_core.genai import function_calls, text_of
    from entire_core.jsonvalues import obj

    from entire_agent_qwen_code import transcript

    out: list[str] = []
    for record in transcript.scope(data, 0):
        kind = record.get("type")
        parts = obj(record.get("message")).get("parts")
        content: list[dict[str, object]] = []
        if kind == "user":
            prompt = transcript.prompt_of(record)
            content = [{"text": prompt}] if prompt else []
        elif kind == "assistant":
            said = text_of(parts).strip()
            content = [{"type": "text", "text": said}] if said else []
            for call in function_calls(parts):
                use: dict[str, object] = {
                    "type": "tool_use",
                    "id": call.get("id", ""),
                    "name": call.get("name", ""),
                }
                content.append({**use, "input": obj(call.get("args"))})
        if content:
            line = {"v": 1, "agent": agent_name, "cli_version": cli_version, "type": kind,
                    "ts": record.get("timestamp", ""), "id": record.get("uuid", ""), "content": content}  # fmt: skip
            out.append(json.dumps(line, ensure_ascii=False))
    return CompactTranscript("".join(line + "\n" for line in out).encode("utf-8"))
