"""What the ``host`` scenarios' scripted model servers share, whatever API they speak: the replies and shell
commands of the scripts several of them add, and the command line of those run here (``main``)."""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable
from typing import Any

ANSWERS = {
    "mid-commit": "Mid-commit turn done: mid.txt committed, late.txt written.",
    "edit-three": "Turn three done: late.txt rewritten, notes.txt added.",
    "text-only": "A text-only answer: nothing to change.",
}
"""The last reply of a script, by the keyword its prompt mentions."""
SHELL_RENAME = "mv hello.txt greeting.txt && rm old.txt"
SHELL_COMMIT = "git add mid.txt && git commit -q -m 'agent: mid.txt'"
"""The agent's own commit in the middle of its turn."""


def main(description: str, serve: Callable[[int, str, str], Any]) -> int:
    """``--port N [--workdir REPO] --log REQUESTS.jsonl [--lifetime SECONDS]``: the server ``serve(port,
    workdir, log)`` starts, serving in its own threads, shut down after its lifetime."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workdir", default="")
    parser.add_argument("--log", default="")
    parser.add_argument("--lifetime", type=float, default=1800.0)
    args = parser.parse_args()
    server = serve(args.port, args.workdir, args.log)
    threading.Event().wait(args.lifetime)
    server.shutdown()
    return 0
