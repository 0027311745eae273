"""A scripted model server for Aider, on 127.0.0.1 only: OpenAI's chat completions and Anthropic's messages.

Replies are chosen by keywords in the last user message, so a test decides what Aider does:
``EDIT-GREET`` edits hello.py, ``CREATE-NOTES`` creates NOTES.md (Aider asks "Create new file?",
which rings the notification mid-turn), anything else gets a plain answer. Aider's weak-model calls
(commit messages, summaries) get one-line answers. Streaming requests get server-sent events with a
final usage chunk. Run as a script it prints its port.

Every answer reports 1234 prompt tokens and 56 completion tokens, with cache figures as real backends
send them, so the real Aider and litellm turn them into its ``Tokens:`` line and analytics log:
``EDIT-GREET`` as OpenAI does (1024 of the prompt cached, in ``prompt_tokens_details``, where Aider does
not look), ``CREATE-NOTES`` as DeepSeek does (``prompt_cache_hit_tokens`` 896 of the 1234). Anthropic's
``/v1/messages`` (``ANTHROPIC_API_BASE``) answers 128 fresh input tokens, 1200 written to the cache and
2400 read from it (3728 in all), and 56 output tokens, whatever it is asked.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

PROMPT_TOKENS = 1234
COMPLETION_TOKENS = 56
OPENAI_CACHED = 1024
"""The ``EDIT-GREET`` answer's cached prompt tokens, as OpenAI reports them (``prompt_tokens_details``)."""
DEEPSEEK_HITS = 896
"""The ``CREATE-NOTES`` answer's cache hits, as DeepSeek reports them (``prompt_cache_hit_tokens``)."""
ANTHROPIC_USAGE = {"input_tokens": 128, "cache_creation_input_tokens": 1200, "cache_read_input_tokens": 2400,
                   "output_tokens": COMPLETION_TOKENS}  # fmt: skip
"""Every ``/v1/messages`` answer's usage: Anthropic's input_tokens count neither cache figure."""
FENCE = "`" * 3

EDIT_GREET = (
    "I'll add a greet function.\n\nhello.py\n"
    f'{FENCE}python\n<<<<<<< SEARCH\ndef main():\n    print("hello")\n=======\n'
    'def greet(name):\n    return f"Hello, {name}!"\n\n\ndef main():\n    print(greet("world"))\n'
    f">>>>>>> REPLACE\n{FENCE}\n"
)
CREATE_NOTES = (
    "I'll create NOTES.md.\n\nNOTES.md\n"
    f"{FENCE}markdown\n<<<<<<< SEARCH\n=======\n# Notes\n\n- greet(name) returns a greeting.\n"
    f">>>>>>> REPLACE\n{FENCE}\n"
)
PLAIN = (
    "greet builds a greeting string from a name.\n\n#### Not a prompt: a heading in the reply\n> and a quote"
)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def usage(kind: str) -> dict[str, Any]:
    """The chat-completions usage of the scripted answer of ``kind``."""
    base: dict[str, Any] = {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS,
                            "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS}  # fmt: skip
    if kind == "edit_greet":
        return {**base, "prompt_tokens_details": {"cached_tokens": OPENAI_CACHED}}
    if kind == "create_notes":
        return {**base, "prompt_cache_hit_tokens": DEEPSEEK_HITS,
                "prompt_cache_miss_tokens": PROMPT_TOKENS - DEEPSEEK_HITS,
                "prompt_tokens_details": {"cached_tokens": DEEPSEEK_HITS}}  # fmt: skip
    return base


def choose(body: dict[str, Any]) -> tuple[str, str]:
    """(kind, text) of the scripted answer to one request (chat completions, or Anthropic's messages)."""
    messages = body.get("messages") or []
    system = "\n".join(
        [_text(m.get("content")) for m in messages if m.get("role") == "system"] + [_text(body.get("system"))]
    ).lower()
    users = [_text(m.get("content")) for m in messages if m.get("role") == "user"]
    last = users[-1] if users else ""
    if "commit message" in system:
        return "commit", "feat: scripted change"
    if "summar" in system:
        return "summary", "The user asked for a greet function."
    if "EDIT-GREET" in last:
        return "edit_greet", EDIT_GREET
    if "CREATE-NOTES" in last:
        return "create_notes", CREATE_NOTES
    return "plain", PLAIN


class Handler(BaseHTTPRequestHandler):
    log: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send_json(self, code: int, value: object) -> None:
        data = json.dumps(value).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send_json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        anthropic = self.path.endswith("/v1/messages")
        if not self.path.endswith("/chat/completions") and not anthropic:
            self._send_json(404, {"error": {"message": "unknown path"}})
            return
        kind, text = choose(body)
        stream = bool(body.get("stream"))
        users = [_text(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "user"]
        Handler.log.append({"model": body.get("model"), "stream": stream, "kind": kind, "users": users})
        if anthropic:
            if stream:  # the tests run Anthropic models with --no-stream only
                self._send_json(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                                 "message": "scripted: no streaming"}})  # fmt: skip
                return
            self._send_json(200, {"id": "msg_scripted", "type": "message", "role": "assistant",
                                  "model": body.get("model"), "content": [{"type": "text", "text": text}],
                                  "stop_reason": "end_turn", "stop_sequence": None, "usage": ANTHROPIC_USAGE})  # fmt: skip
            return
        answer_usage = usage(kind)
        base = {"id": "chatcmpl-scripted", "created": 1796000000, "model": body.get("model", "gpt-4o")}
        if not stream:
            message = {"role": "assistant", "content": text}
            self._send_json(200, {**base, "object": "chat.completion", "usage": answer_usage,
                                  "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})  # fmt: skip
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        chunk = {**base, "object": "chat.completion.chunk"}

        def emit(value: object) -> None:
            self.wfile.write(b"data: " + json.dumps(value).encode() + b"\n\n")
            self.wfile.flush()

        emit(
            {
                **chunk,
                "choices": [
                    {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}
                ],
            }
        )
        for piece in text.splitlines(keepends=True):
            emit({**chunk, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
        emit({**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        emit({**chunk, "choices": [], "usage": answer_usage})
        self.wfile.write(b"data: [DONE]\n\n")
        self.close_connection = True


def start(port: int = 0) -> tuple[ThreadingHTTPServer, int]:
    """Serve on 127.0.0.1 in a daemon thread; return the server and its port."""
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


if __name__ == "__main__":
    server, port = start(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(port, flush=True)
    threading.Event().wait(float(sys.argv[2]) if len(sys.argv) > 2 else 600.0)
    server.shutdown()
