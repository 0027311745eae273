"""A scripted OpenAI-compatible Chat Completions server for driving the real Qwen Code offline.

Binds 127.0.0.1 only and is stateless: every answer is decided from the request, so fresh and resumed
sessions, the main agent and its background subagents all work. The conversation's latest real prompt
picks a script; the number of tool results since that prompt picks the step:

    prompt mentions          model calls
    "read notes"             read_file notes.txt, then text
    "edit notes"             read_file notes.txt, edit hi -> hello, then text
    "delete old"             run_shell_command rm old.txt, then text
    "subagent"               agent general-purpose (the subagent: write_file sub.txt, then text), then text
    "sub.txt task"           (the subagent's own prompt) write_file sub.txt, then text
    <task-notification>...   (a background subagent finished) text
    anything else            a short text answer

A call that answers with a tool call reports ``USAGE``; one that answers with text (the turn's last
call) reports ``REASONED``, with reasoning and another share read from the cache, so tests can expect
exact token counts per kind of call (``usage``). Each streams a final usage chunk (Qwen asks for
``stream_options.include_usage``). Every request is appended to the log file as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE = {
    "prompt_tokens": 100,
    "completion_tokens": 10,
    "total_tokens": 110,
    "prompt_tokens_details": {"cached_tokens": 40},
}
"""Usage of a call that answers with a tool call: 100 in (40 of them cached), 10 out."""
REASONED = {
    "prompt_tokens": 100,
    "completion_tokens": 40,
    "total_tokens": 140,
    "prompt_tokens_details": {"cached_tokens": 60},
    "completion_tokens_details": {"reasoning_tokens": 30},
}
"""Usage of a call that answers with text: 100 in (60 of them cached), 40 out, 30 of which reasoning
(an OpenAI completion count includes its reasoning tokens)."""


def usage(step: tuple[str, dict[str, Any]] | str) -> dict[str, Any]:
    """The usage a call reports: ``REASONED`` for a text answer, ``USAGE`` for a tool call."""
    return REASONED if isinstance(step, str) else USAGE


SUBTASK = "Write sub.txt task: create sub.txt containing sub"


def _text(content: Any) -> str:
    """A message's text without Qwen's ``<system-reminder>`` parts (skills, the date)."""
    parts = [{"text": content}] if isinstance(content, str) else content if isinstance(content, list) else []
    texts = [p.get("text", "") for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return "".join(t for t in texts if not t.lstrip().startswith("<system-reminder>"))


def _conversation(body: dict[str, Any]) -> tuple[str, int]:
    """The latest real user prompt (lower-cased) and how many tool results came after it."""
    results = 0
    for message in reversed(body.get("messages") or []):
        role = message.get("role")
        if role == "tool":
            results += 1
            continue
        if role != "user":
            continue
        text = _text(message.get("content")).strip()
        if text:
            return text.lower(), results
    return "", results


def _call(name: str, **args: Any) -> tuple[str, dict[str, Any]]:
    return name, args


def _path_key(body: dict[str, Any]) -> str:
    """read_file's path argument: ``file_path`` in 0.24, ``absolute_path`` before."""
    for tool in body.get("tools") or []:
        function = tool.get("function") or {}
        if function.get("name") == "read_file":
            properties = (function.get("parameters") or {}).get("properties") or {}
            return "file_path" if "file_path" in properties else "absolute_path"
    return "file_path"


def _step(body: dict[str, Any], workdir: str, prompt: str, results: int) -> tuple[str, dict[str, Any]] | str:
    """The model's next move: a tool call (name, args) or the final text."""
    notes = f"{workdir}/notes.txt"
    read = _call("read_file", **{_path_key(body): notes})
    if prompt.startswith("<task-notification>"):  # a background subagent finished
        return "The subagent wrote sub.txt."
    if "sub.txt task" in prompt:
        return (
            _call("write_file", file_path=f"{workdir}/sub.txt", content="sub\n")
            if results == 0
            else "sub.txt written."
        )
    if "subagent" in prompt:
        if results == 0:
            return _call(
                "agent", description="write sub.txt", prompt=SUBTASK, subagent_type="general-purpose"
            )
        return "The subagent is writing sub.txt."
    if "read notes" in prompt:
        return read if results == 0 else "notes.txt says hi."
    if "edit notes" in prompt:
        if results == 0:
            return read
        if results == 1:
            return _call("edit", file_path=notes, old_string="hi", new_string="hello")
        return "I changed hi to hello in notes.txt."
    if "delete old" in prompt:
        return (
            _call("run_shell_command", command="rm old.txt", description="delete old.txt")
            if results == 0
            else "I deleted old.txt."
        )
    return "Done."


def _chunks(step: tuple[str, dict[str, Any]] | str, n: int, model: str) -> list[dict[str, Any]]:
    base = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 1780000000, "model": model}
    if isinstance(step, str):
        delta: dict[str, Any] = {"role": "assistant", "content": step}
    else:
        name, args = step
        delta = {"role": "assistant", "content": None, "tool_calls": [{
            "index": 0, "id": f"call_{n}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}]}  # fmt: skip
    finish = "stop" if isinstance(step, str) else "tool_calls"
    return [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        {**base, "choices": [], "usage": usage(step)},
    ]


def serve(port: int, workdir: str, log_path: str) -> ThreadingHTTPServer:
    """Start the server on 127.0.0.1:``port`` (0 picks one) in a thread; ``shutdown()`` stops it."""
    counter = [0]
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            prompt, results = _conversation(body)
            with lock:
                counter[0] += 1
                n = counter[0]
                step = _step(body, workdir, prompt, results)
                with open(log_path or os.devnull, "a", encoding="utf-8") as log:
                    log.write(json.dumps({"n": n, "path": self.path, "prompt": prompt, "results": results,
                                          "step": step, "tools": [t.get("function", {}).get("name") for t in body.get("tools") or []],
                                          "body": body}) + "\n")  # fmt: skip
            model = str(body.get("model") or "qwen-scripted")
            if body.get("stream"):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in _chunks(step, n, model):
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.write(b"data: [DONE]\n\n")
                return
            message: dict[str, Any] = {
                "role": "assistant",
                "content": step if isinstance(step, str) else None,
            }
            if not isinstance(step, str):
                message["tool_calls"] = _chunks(step, n, model)[0]["choices"][0]["delta"]["tool_calls"]
            answer = {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1780000000, "model": model,
                      "choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": usage(step)}  # fmt: skip
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            data = json.dumps(
                {"object": "list", "data": [{"id": "qwen-scripted", "object": "model"}]}
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--workdir", default=tempfile.gettempdir(), help="absolute directory of the scripted files"
    )
    parser.add_argument("--log", default="", help="append every request here as JSON lines")
    args = parser.parse_args()
    server = serve(args.port, args.workdir, args.log)
    sys.stderr.write(f"scripted OpenAI API on http://127.0.0.1:{server.server_address[1]}\n")
    sys.stderr.flush()
    threading.Event().wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
