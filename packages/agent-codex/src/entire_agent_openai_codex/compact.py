"""A rollout as the Entire Transcript Format (v1): the compact ``transcript.jsonl`` of a checkpoint.

One JSON object per line: ``user`` lines with what the user typed, ``assistant`` lines with the
assistant's text and its tool calls, each tool call with its result inlined (long outputs cut short),
the files a patch changed as ``file_change`` blocks, and the tokens of the model response that
produced the line. Injected context, reasoning (encrypted or not) and Codex's bookkeeping lines are
left out.
"""

from __future__ import annotations

import json

from entire_core.jsonvalues import array as as_list
from entire_core.jsonvalues import obj as as_dict
from entire_core.jsonvalues import text as as_str
from entire_core.paths import repo_relative

from entire_agent_openai_codex import messages, tokens, transcript

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_OUTPUT_CHARS = 2000
"""Tool outputs longer than this are cut: the compact transcript is for reading, the full one keeps all."""


def _cut(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return text[:MAX_OUTPUT_CHARS] + f"\n[... {len(text) - MAX_OUTPUT_CHARS} more characters]"


def _output_text(payload: dict[str, Any]) -> str:
    output = payload.get("output")
    fields = as_dict(output)
    if fields:
        return as_str(fields.get("text") or fields.get("content")) or json.dumps(fields, ensure_ascii=False)
    parts = (as_str(as_dict(part).get("text")) for part in as_list(output))
    return as_str(output) or "".join(parts)


def _failed(text: str) -> bool:
    import re

    code = re.search(r"(?:^Exit code: |Process exited with code )(-?[0-9]+)", text, re.MULTILINE)
    return code is not None and code.group(1) != "0"


def _tool_input(payload: dict[str, Any]) -> object:
    if payload.get("type") == "custom_tool_call":
        return {"input": payload.get("input")}
    arguments = payload.get("arguments")
    if not isinstance(arguments, str):
        return as_dict(payload.get("action")) or arguments
    try:
        return json.loads(arguments)
    except ValueError:
        return {"arguments": arguments}


class _Writer:
    """Turns rollout records into compact lines, grouping one model response per assistant line."""

    def __init__(self, agent: str, cli_version: str, repo_root: str, cwd: str) -> None:
        self.base = {"v": 1, "agent": agent, "cli_version": cli_version}
        self.repo_root, self.cwd = repo_root, cwd
        self.lines: list[dict[str, Any]] = []
        self.open: dict[str, Any] | None = None  # the assistant line the current response adds to
        self.calls: dict[str, dict[str, Any]] = {}
        self.untokened: list[dict[str, Any]] = []

    def _assistant(self, ts: str) -> dict[str, Any]:
        if self.open is None:
            self.open = {**self.base, "type": "assistant", "ts": ts, "content": []}
            self.lines.append(self.open)
            self.untokened.append(self.open)
        return self.open

    def user(self, ts: str, text: str) -> None:
        self.open = None
        self.lines.append({**self.base, "type": "user", "ts": ts, "content": [{"text": text}]})

    def add(self, record: dict[str, Any]) -> None:
        payload = transcript.payload_of(record)
        kind = transcript.event_type(record)
        ts = as_str(record.get("timestamp"))
        if record.get("type") == "turn_context":
            self.cwd = as_str(payload.get("cwd")) or self.cwd
        elif kind == "response_item/message" and payload.get("role") == "assistant":
            text = messages.assistant_text(payload)
            if text:
                self._assistant(ts)["content"].append({"type": "text", "text": text})
        elif kind in (
            "response_item/function_call",
            "response_item/custom_tool_call",
            "response_item/local_shell_call",
        ):
            call_id = as_str(payload.get("call_id"))
            name = as_str(payload.get("name")) or as_str(payload.get("type"))
            block: dict[str, Any] = {
                "type": "tool_use",
                "id": call_id,
                "name": name,
                "input": _tool_input(payload),
            }
            self._assistant(ts)["content"].append(block)
            self.calls[call_id] = block
        elif kind in ("response_item/function_call_output", "response_item/custom_tool_call_output"):
            called = self.calls.get(as_str(payload.get("call_id")))
            if called is not None:
                text = _output_text(payload)
                called["result"] = {"output": _cut(text), "status": "error" if _failed(text) else "success"}
        elif kind == "event_msg/item_completed":
            self._file_change(as_dict(payload.get("item")))
        elif record.get("type") == "token_usage_record":
            usage = payload.get("usage")
            if self.untokened and usage is not None:
                line = self.untokened[0]
                line["input_tokens"] = tokens.counter(usage, "input_tokens")
                line["output_tokens"] = tokens.counter(usage, "output_tokens")
            self.untokened.clear()
            self.open = None  # the next response starts a new line

    def _file_change(self, item: dict[str, Any]) -> None:
        changes = as_dict(item.get("changes"))
        if item.get("type") != "FileChange" or item.get("status") not in (None, "completed") or not changes:
            return
        block = self.calls.get(as_str(item.get("id")))
        line = next(
            (line for line in reversed(self.lines) if block is not None and block in line["content"]), None
        )
        if line is None:
            line = self._assistant("")
        for path, change in sorted(changes.items()):  # Codex's map has no stable order
            entry: dict[str, Any] = {
                "type": "file_change",
                "tool_use_id": block["id"] if block is not None else "",
                "path": repo_relative(path, self.repo_root),
                "kind": as_str(as_dict(change).get("type")),
            }
            moved = as_str(as_dict(change).get("move_path"))
            if moved:
                entry["move_path"] = repo_relative(moved, self.repo_root)
            line["content"].append(entry)


def compact(path: str, *, agent: str, cli_version: str, repo_root: str) -> bytes:
    """The compact transcript of the rollout at ``path``, as JSONL bytes."""
    lines, _ = transcript.read_range(path, 0)
    writer = _Writer(agent, cli_version, repo_root, transcript.cwd_of(lines[0]) if lines else "")
    # Real prompts are identified over the whole file (see messages.user_prompts); each is written
    # where its model-visible message sits, so the conversation keeps its order.
    prompts = messages.user_prompts(lines)
    for record in transcript.records(lines):
        payload = transcript.payload_of(record)
        if transcript.event_type(record) == "response_item/message" and payload.get("role") == "user":
            texts = [
                t
                for t in messages.texts_of(payload.get("content"), ("input_text",))
                if not messages.is_injected(t)
            ]
            text = "\n".join(texts)
            if text and prompts and text == prompts[0]:
                prompts.pop(0)
                writer.user(str(record.get("timestamp") or ""), text)
            continue
        writer.add(record)
    for text in prompts:  # prompts whose model-visible message was not found (older formats)
        writer.user("", text)
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in writer.lines).encode("utf-8")
