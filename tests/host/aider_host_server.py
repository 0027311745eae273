"""The Aider end-to-end test's scripted chat-completions server, run on its own with a request log.

``python aider_host_server.py --port N --log REQUESTS.jsonl`` (``host_server.main``): serves
``model_server`` (EDIT-GREET edits hello.py, CREATE-NOTES creates NOTES.md, anything else a plain answer;
every answer 1234 in / 56 out, EDIT-GREET's with 1024 cached as OpenAI reports them, CREATE-NOTES's with
896 cache hits as DeepSeek reports them) on 127.0.0.1:N and appends each request's kind and user
messages to the log as one JSON line.
"""

from __future__ import annotations

import importlib
import json
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import host_server

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "packages" / "agent-aider" / "tests" / "e2e"))

model_server: Any = importlib.import_module("model_server")


def serve(port: int, workdir: str, log: str) -> ThreadingHTTPServer:
    handler: Any = model_server.Handler

    class Logged(handler):
        def do_POST(self) -> None:
            before = len(model_server.Handler.log)
            super().do_POST()
            with open(log, "a", encoding="utf-8") as out:
                for entry in model_server.Handler.log[before:]:
                    out.write(json.dumps(entry) + "\n")

    server = ThreadingHTTPServer(("127.0.0.1", port), Logged)  # pyright: ignore[reportArgumentType]
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    raise SystemExit(host_server.main("The scripted chat-completions API of the Aider host scenario.", serve))
