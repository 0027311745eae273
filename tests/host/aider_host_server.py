"""The Aider end-to-end test's scripted chat-completions server, run on its own with a request log.

``python aider_host_server.py PORT LOG``: serves ``model_server`` (EDIT-GREET edits hello.py,
CREATE-NOTES creates NOTES.md, anything else a plain answer; every answer 1234 in / 56 out, EDIT-GREET's
with 1024 cached as OpenAI reports them, CREATE-NOTES's with 896 cache hits as DeepSeek reports them) on
127.0.0.1:PORT and appends each request's kind and user messages to LOG as one JSON line.
"""

from __future__ import annotations

import importlib
import json
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "packages" / "agent-aider" / "tests" / "e2e"))

model_server: Any = importlib.import_module("model_server")


def main() -> int:
    port, log = int(sys.argv[1]), sys.argv[2]

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
    threading.Event().wait(1800)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
