"""A scripted OpenAI Responses-API server for driving the real ``codex`` binary on 127.0.0.1.

Codex streams ``POST /v1/responses`` and reads Server-Sent Events back. What this server answers
depends only on the request: the last user prompt that carries a script keyword picks the script,
and the number of tool results after that prompt picks the step. Every response reports
deterministic token usage, so the tests can assert exact numbers.

Scripts (keywords in the prompt):
- ``EDIT-ONE``: apply_patch (add hello.txt, update README.md), then a shell command writing
  shell.txt, then a final message.
- ``EDIT-TWO``: apply_patch (add second.txt, delete shell.txt, rename hello.txt to greeting.txt),
  then a final message.
- ``SPAWN-CHILD``: spawn a subagent whose task carries ``CHILD-TASK``, wait for it, final message.
  The subagent's own requests (``CHILD-TASK``): apply_patch adding child.txt, then a final message.
- a compaction request (Codex asks for a summary): a summary message.
- anything else (text generation): one short sentence.

Run: ``python codex_scripted_server.py --port 0 --port-file F [--log REQUESTS.jsonl] [--lifetime SECONDS]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PATCH_ONE = (
    "*** Begin Patch\n"
    "*** Add File: hello.txt\n"
    "+hello from the scripted model\n"
    "*** Update File: README.md\n"
    "@@\n"
    "-# e2e repo\n"
    "+# e2e repo (edited by codex)\n"
    "*** End Patch\n"
)
SHELL_ONE = "echo written-by-shell > shell.txt"
PATCH_TWO = (
    "*** Begin Patch\n"
    "*** Add File: second.txt\n"
    "+second turn\n"
    "*** Delete File: shell.txt\n"
    "*** Update File: hello.txt\n"
    "*** Move to: greeting.txt\n"
    "@@\n"
    "-hello from the scripted model\n"
    "+greetings from the scripted model\n"
    "*** End Patch\n"
)
PATCH_CHILD = "*** Begin Patch\n*** Add File: child.txt\n+written by the subagent\n*** End Patch\n"

FINAL_ONE = "Turn one done: hello.txt added, README.md updated, shell.txt written."
FINAL_TWO = "Turn two done: second.txt added, shell.txt deleted, hello.txt renamed."
FINAL_PARENT = "The subagent created child.txt."
FINAL_CHILD = "child finished: child.txt created"
SUMMARY = "SUMMARY: files were edited in two turns."
REPLY = "This is a scripted reply."
KEYWORDS = ("EDIT-ONE", "EDIT-TWO", "SPAWN-CHILD", "CHILD-TASK")


def usage(step: int) -> dict[str, Any]:
    """Deterministic usage: input 1000*(step+1) of which a quarter cached, output 40+step incl. 8 reasoning."""
    base = 1000 * (step + 1)
    return {
        "input_tokens": base,
        "input_tokens_details": {"cached_tokens": base // 4},
        "output_tokens": 40 + step,
        "output_tokens_details": {"reasoning_tokens": 8},
        "total_tokens": base + 40 + step,
    }


def _user_texts(body: dict[str, Any]) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for index, item in enumerate(body.get("input") or []):
        if isinstance(item, dict) and item.get("type") == "message" and item.get("role") == "user":
            parts = [c.get("text") or "" for c in item.get("content") or [] if isinstance(c, dict)]
            out.append((index, "\n".join(parts)))
    return out


def _script(body: dict[str, Any]) -> tuple[str, int, str]:
    """(keyword, step, last tool output) for a request."""
    items = [i for i in body.get("input") or [] if isinstance(i, dict)]
    keyword, start = "", 0
    for index, text in _user_texts(body):
        if text.lstrip().startswith("<"):  # injected context, subagent notifications
            continue
        found = [k for k in KEYWORDS if k in text]
        if found:
            keyword, start = found[0], index
    outputs = [i for i in items[start:] if str(i.get("type", "")).endswith("_output")]
    last = ""
    if outputs:
        out = outputs[-1].get("output")
        last = out if isinstance(out, str) else json.dumps(out)
    return keyword, len(outputs), last


def _tools(body: dict[str, Any]) -> dict[str, str]:
    found: dict[str, str] = {}
    for tool in body.get("tools") or []:
        if isinstance(tool, dict) and tool.get("name"):
            found[str(tool["name"])] = str(tool.get("type"))
    return found


def message(text: str, n: int) -> dict[str, Any]:
    """An assistant message item."""
    return {"type": "message", "role": "assistant", "id": f"msg_{n}", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}  # fmt: skip


def patch_call(tools: dict[str, str], patch: str, n: int) -> dict[str, Any]:
    """apply_patch as the freeform tool Codex offers, or as the JSON-arguments function variant."""
    if tools.get("apply_patch") == "custom":
        return {"type": "custom_tool_call", "id": f"ctc_{n}", "status": "completed", "call_id": f"call_patch_{n}",
                "name": "apply_patch", "input": patch}  # fmt: skip
    return {"type": "function_call", "id": f"fc_{n}", "name": "apply_patch", "call_id": f"call_patch_{n}",
            "arguments": json.dumps({"input": patch})}  # fmt: skip


def shell_call(command: str, n: int) -> dict[str, Any]:
    """The exec_command tool running ``command``."""
    return {"type": "function_call", "id": f"fc_{n}", "name": "exec_command", "call_id": f"call_shell_{n}",
            "arguments": json.dumps({"cmd": command, "yield_time_ms": 2000})}  # fmt: skip


def agent_call(tools: dict[str, str], name: str, arguments: dict[str, Any], n: int) -> dict[str, Any]:
    """A multi-agent tool call (spawn_agent, wait_agent).

    Codex 0.130 offers these as plain functions; later versions put them in the ``multi_agent_v1``
    namespace (behind ``tool_search`` in 0.139), and a call must name the namespace it came from.
    """
    call = {"type": "function_call", "id": f"fc_{n}", "name": name, "call_id": f"call_{name}_{n}",
            "arguments": json.dumps(arguments)}  # fmt: skip
    if tools.get(name) != "function":
        call["namespace"] = "multi_agent_v1"
    return call


def plan(body: dict[str, Any], headers: dict[str, str], n: int) -> tuple[list[dict[str, Any]], int]:
    """The output items for one request, and the step number used for its usage."""
    metadata = headers.get("x-codex-turn-metadata", "")
    texts = _user_texts(body)
    last_text = texts[-1][1] if texts else ""
    keyword, step, last_output = _script(body)
    if (
        '"request_kind":"compaction"' in metadata.replace(" ", "")
        or "CONTEXT CHECKPOINT" in last_text.upper()
    ):
        return [message(SUMMARY, n)], step
    tools = _tools(body)
    if keyword == "EDIT-ONE":
        items = [[patch_call(tools, PATCH_ONE, n)], [shell_call(SHELL_ONE, n)], [message(FINAL_ONE, n)]]
        return items[min(step, 2)], step
    if keyword == "EDIT-TWO":
        return ([patch_call(tools, PATCH_TWO, n)] if step == 0 else [message(FINAL_TWO, n)]), step
    if keyword == "CHILD-TASK":
        return ([patch_call(tools, PATCH_CHILD, n)] if step == 0 else [message(FINAL_CHILD, n)]), step
    if keyword == "SPAWN-CHILD":
        if step == 0:
            return [agent_call(tools, "spawn_agent", {"message": "CHILD-TASK: create child.txt"}, n)], step
        if step == 1:
            try:
                agent_id = json.loads(last_output).get("agent_id", "")
            except (ValueError, AttributeError):
                agent_id = ""
            return [agent_call(tools, "wait_agent", {"targets": [agent_id], "timeout_ms": 30000}, n)], step
        return [message(FINAL_PARENT, n)], step
    return [message(REPLY, n)], step


def sse(event: str, data: dict[str, Any]) -> bytes:
    """One Server-Sent Event."""
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class Handler(BaseHTTPRequestHandler):
    """Answers the Responses API; everything else is 404."""

    protocol_version = "HTTP/1.1"
    server: Server  # pyright: ignore[reportIncompatibleVariableOverride]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, code: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._reply(200, json.dumps({"object": "list", "data": [], "models": []}).encode())
        else:
            self._reply(404, b'{"error": "not found"}')

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {k.lower(): v for k, v in self.headers.items()}
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        n = self.server.next_number()
        self.server.log({"n": n, "path": self.path, "headers": headers, "body": body})
        if not self.path.rstrip("/").endswith("/responses"):
            self._reply(404, b'{"error": "not found"}')
            return
        items, step = plan(body, headers, n)
        response_id = f"resp_scripted_{n}"
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        events = [
            sse(
                "response.created",
                {"type": "response.created", "response": {"id": response_id, "status": "in_progress"}},
            )
        ]
        for index, item in enumerate(items):
            events.append(
                sse(
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": index, "item": item},
                )
            )
            if item["type"] == "message":
                delta = {"type": "response.output_text.delta", "item_id": item["id"], "output_index": index,
                         "content_index": 0, "delta": item["content"][0]["text"]}  # fmt: skip
                events.append(sse("response.output_text.delta", delta))
            events.append(
                sse(
                    "response.output_item.done",
                    {"type": "response.output_item.done", "output_index": index, "item": item},
                )
            )
        done = {"id": response_id, "status": "completed", "output": items, "usage": usage(step)}
        events.append(sse("response.completed", {"type": "response.completed", "response": done}))
        for event in events:
            self.wfile.write(event)
        self.wfile.flush()
        self.close_connection = True


class Server(ThreadingHTTPServer):
    """The HTTP server plus a request counter and an optional request log."""

    daemon_threads = True

    def __init__(self, port: int, log_path: str) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.log_path = log_path
        self._lock = threading.Lock()
        self._count = 0

    def next_number(self) -> int:
        with self._lock:
            self._count += 1
            return self._count

    def log(self, entry: dict[str, Any]) -> None:
        if not self.log_path:
            return
        with self._lock, open(self.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Serve until ``--lifetime`` seconds have passed."""
    parser = argparse.ArgumentParser(description="A scripted OpenAI Responses-API server.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", default="")
    parser.add_argument("--log", default="")
    parser.add_argument("--lifetime", type=float, default=600.0)
    args = parser.parse_args(argv)
    server = Server(args.port, args.log)
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(str(server.server_address[1]))
        os.replace(tmp, args.port_file)
    threading.Timer(args.lifetime, server.shutdown).start()
    print(f"scripted server on 127.0.0.1:{server.server_address[1]}", file=sys.stderr, flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
