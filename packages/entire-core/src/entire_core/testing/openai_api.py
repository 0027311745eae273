"""A scripted OpenAI-compatible Chat Completions server, for driving a real agent offline.

It binds 127.0.0.1 only and keeps no state: every answer is decided from the request, so fresh and resumed
sessions, a main agent and its subagents all work. The agent's tests give the script, a function
``step(body, workdir, prompt, results)`` of the request, the scripted files' directory, the conversation's
latest real prompt (lower-cased) and the number of tool results since it (``conversation``), which answers
a ``Move``: a tool call ``(name, arguments)`` or the final text.

A call answered with a tool call reports ``USAGE``, one answered with text ``REASONED``, so tests can expect
exact token counts per kind of call (``usage``); a streamed answer ends with that usage in a chunk of its
own (``stream_options.include_usage``). Every request is appended to the log file as one JSON line: ``n``,
``path``, ``prompt``, ``results``, ``step``, ``tools`` (the names offered) and ``body``.

Qwen Code's and Cline CLI's end-to-end tests and the ``host`` scenarios of both script it.
"""

from __future__ import annotations

import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

Move = tuple[str, dict[str, Any]] | str
"""A model call's answer: a tool call (its name and arguments) or the final text."""

USAGE: dict[str, Any] = {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110,
                         "prompt_tokens_details": {"cached_tokens": 40}}  # fmt: skip
"""Usage of a call that answers with a tool call: 100 in (40 of them cached), 10 out."""
REASONED: dict[str, Any] = {"prompt_tokens": 100, "completion_tokens": 40, "total_tokens": 140,
                            "prompt_tokens_details": {"cached_tokens": 60},
                            "completion_tokens_details": {"reasoning_tokens": 30}}  # fmt: skip
"""Usage of a call that answers with text: 100 in (60 of them cached), 40 out, 30 of which reasoning (an
OpenAI completion count includes its reasoning tokens)."""


class Script(Protocol):
    """The model's next move for a request (``step``)."""

    def __call__(self, body: dict[str, Any], workdir: str, prompt: str, results: int) -> Move: ...


def usage(move: Move) -> dict[str, Any]:
    """The usage a call reports: ``REASONED`` for a text answer, ``USAGE`` for a tool call."""
    return REASONED if isinstance(move, str) else USAGE


def call(name: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    """A tool call."""
    return name, arguments


def text_of(content: Any) -> str:
    """A message's text, without the ``<system-reminder>`` parts Qwen Code adds (skills, the date)."""
    from entire_core.jsonvalues import array, obj, text

    parts = [{"text": content}] if isinstance(content, str) else array(content)
    texts = [text(obj(part).get("text")) for part in parts]
    return "".join(t for t in texts if not t.lstrip().startswith("<system-reminder>"))


def conversation(body: dict[str, Any]) -> tuple[str, int]:
    """The latest real user prompt (lower-cased) and how many tool results came after it."""
    results = 0
    from entire_core.jsonvalues import array, obj

    for message in map(obj, reversed(array(body.get("messages")))):
        role = message.get("role")
        if role == "tool":
            results += 1
        elif role == "user" and (text := text_of(message.get("content")).strip()):
            return text.lower(), results
    return "", results


def tool_names(body: dict[str, Any]) -> list[str]:
    """The names of the tools a request offers."""
    from entire_core.jsonvalues import array, obj

    return [str(obj(obj(tool).get("function")).get("name")) for tool in array(body.get("tools"))]


def chunks(move: Move, n: int, model: str) -> list[dict[str, Any]]:
    """The streamed answer of the ``n``-th call: the move, the finish reason, then the usage."""
    base = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 1780000000, "model": model}
    if isinstance(move, str):
        delta: dict[str, Any] = {"role": "assistant", "content": move}
    else:
        name, arguments = move
        delta = {"role": "assistant", "content": None, "tool_calls": [{
            "index": 0, "id": f"call_{n}", "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}]}  # fmt: skip
    finish = "stop" if isinstance(move, str) else "tool_calls"
    return [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        {**base, "choices": [], "usage": usage(move)},
    ]


def serve(
    port: int, workdir: str, log_path: str, script: Script, *, model: str = "scripted"
) -> ThreadingHTTPServer:
    """Start the server on 127.0.0.1:``port`` (0 picks one) in a thread, answering with ``script``;
    ``model`` is the model it lists. ``shutdown()`` stops it."""
    counter = [0]
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, data: bytes, kind: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            prompt, results = conversation(body)
            with lock:
                counter[0] += 1
                n = counter[0]
                move = script(body, workdir, prompt, results)
                with open(log_path or os.devnull, "a", encoding="utf-8") as log:
                    log.write(json.dumps({"n": n, "path": self.path, "prompt": prompt, "results": results,
                                          "step": move, "tools": tool_names(body), "body": body}) + "\n")  # fmt: skip
            answering = str(body.get("model") or model)
            if body.get("stream"):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for chunk in chunks(move, n, answering):
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                self.wfile.write(b"data: [DONE]\n\n")
                return
            message: dict[str, Any] = {
                "role": "assistant",
                "content": move if isinstance(move, str) else None,
            }
            if not isinstance(move, str):
                message["tool_calls"] = chunks(move, n, answering)[0]["choices"][0]["delta"]["tool_calls"]
            answer = {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1780000000, "model": answering,
                      "choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": usage(move)}  # fmt: skip
            self._send(json.dumps(answer).encode(), "application/json")

        def do_GET(self) -> None:
            listed = {"object": "list", "data": [{"id": model, "object": "model"}]}
            self._send(json.dumps(listed).encode(), "application/json")

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(script: Script, description: str, *, model: str = "scripted") -> int:
    """``--port N --workdir DIR --log REQUESTS.jsonl``: serve ``script`` until killed, the URL on stderr."""
    import argparse
    import sys
    import tempfile

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--workdir", default=tempfile.gettempdir(), help="absolute directory of the scripted files"
    )
    parser.add_argument("--log", default="", help="append every request here as JSON lines")
    args = parser.parse_args()
    server = serve(args.port, args.workdir, args.log, script, model=model)
    sys.stderr.write(f"scripted OpenAI API on http://127.0.0.1:{server.server_address[1]}\n")
    sys.stderr.flush()
    threading.Event().wait()
    return 0
