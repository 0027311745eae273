"""A scripted OpenAI-compatible Chat Completions server that drives the real Cline CLI offline.

Binds 127.0.0.1 only and is stateless: the conversation's latest real prompt picks a script, the number
of tool results since that prompt picks the step:

    prompt mentions       model calls
    "write hello"         write hello.txt, then text
    "write again"         write again.txt, then text
    "edit hello"          edit hello.txt (hello -> bye), then text
    "delete old"          run_commands rm old.txt, then text
    "subagent"            spawn_agent (whose task writes sub.txt), then text
    "sub.txt task"        (the subagent's own prompt) write sub.txt, then text
    "commit"              run_commands git add + commit, then text
    anything else         a short text answer

A call that answers with a tool call reports ``USAGE``, one that answers with text ``REASONED``, so
tests can expect exact token counts. Every request is appended to the log file as one JSON line.
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

USAGE = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110,
         "prompt_tokens_details": {"cached_tokens": 40}}  # fmt: skip
"""A tool call's usage: 100 in (40 of them cached), 10 out."""
REASONED = {"prompt_tokens": 100, "completion_tokens": 40, "total_tokens": 140,
            "prompt_tokens_details": {"cached_tokens": 60},
            "completion_tokens_details": {"reasoning_tokens": 30}}  # fmt: skip
"""A text answer's usage: 100 in (60 cached), 40 out, 30 of them reasoning."""
SUBTASK = "Write sub.txt task: create sub.txt containing sub"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "".join(str(p.get("text", "")) for p in parts if isinstance(p, dict) and p.get("type") == "text")


def conversation(body: dict[str, Any]) -> tuple[str, int]:
    """The latest user prompt (lower-cased) and how many tool results came after it."""
    results = 0
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "tool":
            results += 1
        elif message.get("role") == "user":
            text = _text(message.get("content")).strip()
            if text:
                return text.lower(), results
    return "", results


def _tool_names(body: dict[str, Any]) -> list[str]:
    return [str((t.get("function") or {}).get("name")) for t in body.get("tools") or []]


def step(body: dict[str, Any], workdir: str) -> tuple[str, dict[str, Any]] | str:
    """The model's next move: a tool call (name, args) or the final text."""
    prompt, results = conversation(body)
    if results:
        return "Done: " + prompt[:40]
    if "sub.txt task" in prompt:
        return "editor", {"path": f"{workdir}/sub.txt", "new_text": "sub\n"}
    if "subagent" in prompt:
        return "spawn_agent", {"task": SUBTASK, "systemPrompt": "You write files."}
    if "write again" in prompt:
        return "editor", {"path": f"{workdir}/again.txt", "new_text": "again\n"}
    if "write hello" in prompt:
        return "editor", {"path": f"{workdir}/hello.txt", "new_text": "hello\n"}
    if "edit hello" in prompt:
        return "editor", {"path": f"{workdir}/hello.txt", "old_text": "hello", "new_text": "bye"}
    if "delete old" in prompt:
        return "run_commands", {"commands": ["rm old.txt"]}
    if "commit" in prompt:
        return "run_commands", {"commands": ["git add -A && git commit -q -m 'by cline'"]}
    return "Hello from the scripted model."


def _chunks(move: tuple[str, dict[str, Any]] | str, n: int, model: str) -> list[dict[str, Any]]:
    base = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 1780000000, "model": model}
    if isinstance(move, str):
        delta: dict[str, Any] = {"role": "assistant", "content": move}
    else:
        name, args = move
        delta = {"role": "assistant", "content": None, "tool_calls": [{
            "index": 0, "id": f"call_{n}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)}}]}  # fmt: skip
    finish = "stop" if isinstance(move, str) else "tool_calls"
    return [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        {**base, "choices": [], "usage": REASONED if isinstance(move, str) else USAGE},
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
            with lock:
                counter[0] += 1
                n = counter[0]
                move = step(body, workdir)
                with open(log_path or os.devnull, "a", encoding="utf-8") as log:
                    log.write(json.dumps({"n": n, "path": self.path, "step": move, "tools": _tool_names(body),
                                          "body": body}) + "\n")  # fmt: skip
            model = str(body.get("model") or "scripted")
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for chunk in _chunks(move, n, model):
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.write(b"data: [DONE]\n\n")

        def do_GET(self) -> None:
            data = json.dumps({"object": "list", "data": [{"id": "scripted", "object": "model"}]}).encode()
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
    parser.add_argument("--log", default="")
    args = parser.parse_args()
    server = serve(args.port, args.workdir, args.log)
    sys.stderr.write(f"http://127.0.0.1:{server.server_address[1]}\n")
    sys.stderr.flush()
    threading.Event().wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
