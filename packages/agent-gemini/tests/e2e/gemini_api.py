"""A scripted Gemini API (generativelanguage v1beta) for driving the real Gemini CLI offline.

Binds 127.0.0.1 only and is stateless: every answer is decided from the request, so fresh and resumed
sessions, the main agent and its subagents all work. The conversation's latest real prompt picks a
script; the number of tool results since that prompt picks the step:

    prompt mentions          model calls
    "hello"                  write_file hello.txt (with a thought), then text
    "goodbye"                replace hello -> goodbye in hello.txt, then text
    "subagent"               invoke_agent generalist, then text
                             (the subagent: write_file sub.txt, then complete_task)
    "three files"            write_file one.txt, two.txt, three.txt one call each, then text
    "compress"               write_file big.txt reporting a near-full context window (Gemini then
                             compresses the chat before the next call), write_file small.txt, text
    anything else            a short text answer

Usage reported per call is fixed (see ``USAGE``) so tests can expect exact token counts. Every request
is appended to the ``--log`` file as one JSON line. Run: ``python gemini_api.py --port-file F``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE = {
    "promptTokenCount": 100,
    "candidatesTokenCount": 10,
    "thoughtsTokenCount": 3,
    "cachedContentTokenCount": 40,
}
"""Usage of every scripted model call except the context-filling one (see ``FULL_CONTEXT``)."""
FULL_CONTEXT = 950_000
"""promptTokenCount that puts gemini-2.5-flash (1M tokens) over Gemini's compression threshold."""
ANSWERS = {
    "hello": "I created hello.txt with a greeting.",
    "goodbye": "I changed hello to goodbye in hello.txt.",
    "subagent": "The subagent created sub.txt.",
    "three files": "I wrote one.txt, two.txt and three.txt.",
    "compress": "I wrote big.txt and small.txt.",
}
SNAPSHOT = "<state_snapshot>\nThe user asked for big.txt; it was written.\n</state_snapshot>"


def _text(parts: list[Any]) -> str:
    return "".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))


def _conversation(body: dict[str, Any]) -> tuple[str, int]:
    """The latest real user prompt and how many tool results came after it."""
    results = 0
    for content in reversed(body.get("contents") or []):
        parts = content.get("parts") or []
        if content.get("role", "user") != "user":
            continue
        if any("functionResponse" in p for p in parts if isinstance(p, dict)):
            results += 1
            continue
        text = _text(parts)
        if "<session_context>" in text and "</session_context>" in text:
            text = text.split("</session_context>", 1)[1]
        if text.strip():
            return text.strip().lower(), results
    return "", results


def _tools(body: dict[str, Any]) -> list[str]:
    return [f.get("name") for t in body.get("tools") or [] for f in t.get("functionDeclarations") or []]


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"functionCall": {"name": name, "args": args}}


class Script:
    """Decides the model's next response for one request."""

    def __init__(self, workdir: str) -> None:
        self.workdir = workdir

    def path(self, name: str) -> str:
        return os.path.join(self.workdir, name) if self.workdir else name

    def reply(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, int]]:
        prompt, step = _conversation(body)
        usage = dict(USAGE)
        if "complete_task" in _tools(body):  # the subagent's own loop
            if step == 0:
                return [
                    _call("write_file", file_path=self.path("sub.txt"), content="from the subagent\n")
                ], usage
            return [_call("complete_task", result={"response": "Wrote sub.txt."})], usage
        if "hello" in prompt and "goodbye" not in prompt:
            if step == 0:
                thought = {"text": "Planning to write the file.", "thought": True}
                return [
                    thought,
                    _call("write_file", file_path=self.path("hello.txt"), content="hello world\n"),
                ], usage
            return [{"text": "Done thinking.", "thought": True}, {"text": ANSWERS["hello"]}], usage
        if "goodbye" in prompt:
            if step == 0:
                change = {"file_path": self.path("hello.txt"), "instruction": "Say goodbye",
                          "old_string": "hello", "new_string": "goodbye"}  # fmt: skip
                return [_call("replace", **change)], usage
            return [{"text": ANSWERS["goodbye"]}], usage
        if "subagent" in prompt:
            if step == 0 and "invoke_agent" not in _tools(body):  # before 0.4x: each agent is its own tool
                return [_call("generalist", request="Create sub.txt and report back.")], usage
            if step == 0:
                return [
                    _call("invoke_agent", agent_name="generalist", prompt="Create sub.txt and report back.")
                ], usage
            return [{"text": ANSWERS["subagent"]}], usage
        if "three files" in prompt:
            names = ["one.txt", "two.txt", "three.txt"]
            if step < len(names):
                return [
                    _call("write_file", file_path=self.path(names[step]), content=f"{names[step]}\n")
                ], usage
            return [{"text": ANSWERS["three files"]}], usage
        if "compress" in prompt:
            if step == 0:
                usage["promptTokenCount"] = FULL_CONTEXT
                return [_call("write_file", file_path=self.path("big.txt"), content="big\n")], usage
            if step == 1:
                return [_call("write_file", file_path=self.path("small.txt"), content="small\n")], usage
            return [{"text": ANSWERS["compress"]}], usage
        return [{"text": "This is a short sentence."}], usage

    def utility(self, body: dict[str, Any]) -> str:
        """Answers to non-streaming calls: compression summaries, JSON checks, session titles."""
        system = _text((body.get("systemInstruction") or {}).get("parts") or [])
        last = _text(((body.get("contents") or [{}])[-1]).get("parts") or [])
        if "state_snapshot" in system or "<state_snapshot>" in last:
            return SNAPSHOT
        config = body.get("generationConfig") or {}
        if config.get("responseMimeType") == "application/json" or config.get("responseJsonSchema"):
            return json.dumps({"reasoning": "scripted", "next_speaker": "user", "model_choice": "flash",
                               "complexity_reasoning": "scripted", "complexity_score": 1})  # fmt: skip
        return "Scripted session"


def _response(parts: list[dict[str, Any]], usage: dict[str, int], model: str) -> dict[str, Any]:
    total = usage["promptTokenCount"] + usage["candidatesTokenCount"] + usage.get("thoughtsTokenCount", 0)
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {**usage, "totalTokenCount": total},
        "modelVersion": model,
        "responseId": "scripted",
    }


def make_handler(script: Script, log_path: str) -> type[BaseHTTPRequestHandler]:
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _send(self, code: int, payload: bytes, content_type: str = "application/json") -> None:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _log(self, entry: dict[str, Any]) -> None:
            if log_path:
                with lock, open(log_path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(entry) + "\n")

        def do_GET(self) -> None:
            self._log({"method": "GET", "path": self.path})
            self._send(404, b'{"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}}')

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = {}
            model = self.path.split("/models/", 1)[-1].split(":", 1)[0] if "/models/" in self.path else ""
            if ":countTokens" in self.path:
                answer: dict[str, Any] = {"totalTokens": 50}
                self._log({"path": self.path, "answer": answer})
                return self._send(200, json.dumps(answer).encode())
            if ":streamGenerateContent" in self.path:
                parts, usage = script.reply(body)
                answer = _response(parts, usage, model)
                self._log(
                    {
                        "path": self.path,
                        "prompt": _conversation(body),
                        "history": [_text(c.get("parts") or []) for c in body.get("contents") or []],
                        "tools": _tools(body),
                        "answer": answer,
                    }
                )
                return self._send(
                    200, b"data: " + json.dumps(answer).encode() + b"\r\n\r\n", "text/event-stream"
                )
            if ":generateContent" in self.path:
                answer = _response([{"text": script.utility(body)}], dict(USAGE), model)
                self._log({"path": self.path, "answer": answer})
                return self._send(200, json.dumps(answer).encode())
            self._log({"path": self.path, "answer": 404})
            self._send(404, b'{"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}}')

    return Handler


def serve(port: int, workdir: str, log_path: str) -> ThreadingHTTPServer:
    """A started server on 127.0.0.1 (port 0 picks a free one); stop it with ``shutdown()``."""
    server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(Script(workdir), log_path))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", default="", help="write the bound port here once listening")
    parser.add_argument("--workdir", default="", help="absolute directory the scripted files go into")
    parser.add_argument("--log", default="", help="append every request here as JSON lines")
    args = parser.parse_args()
    server = serve(args.port, args.workdir, args.log)
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(server.server_address[1]))
        os.replace(args.port_file + ".tmp", args.port_file)
    sys.stderr.write(f"scripted Gemini API on http://127.0.0.1:{server.server_address[1]}\n")
    threading.Event().wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
