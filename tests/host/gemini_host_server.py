"""The Gemini end-to-end test's scripted Gemini API, with the scripts the ``host`` scenarios add.

Every script of ``gemini_api`` stays as it is (the prompt picks it: "hello", "goodbye", "subagent", ...);
these are added, matched first:

    prompt mentions      model calls
    "rename-delete"      replace in hello.txt, then the shell renaming hello.txt to greeting.txt and
                         deleting old.txt, then text
    "mid-commit"         write_file mid.txt, then the shell running ``git commit`` of mid.txt (a commit
                         the agent makes in the middle of its turn), write_file late.txt, then text
    "edit-three"         write_file late.txt (new text) and notes.txt, one call each, then text
    "text-only"          one text answer

Run: ``python gemini_host_server.py --port N --workdir REPO --log REQUESTS.jsonl`` (``host_server.main``).
"""

from __future__ import annotations

import importlib
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import host_server
from host_server import SHELL_COMMIT, SHELL_RENAME

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "packages" / "agent-gemini" / "tests" / "e2e"))

api: Any = importlib.import_module("gemini_api")

ANSWERS = {"rename-delete": "I renamed hello.txt to greeting.txt and deleted old.txt.", **host_server.ANSWERS}


def _shell(command: str) -> dict[str, Any]:
    return api._call("run_shell_command", command=command, description="scripted")


class HostScript(api.Script):
    """The host scenarios' scripts, then the end-to-end server's."""

    def reply(self, body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, int]]:
        prompt, step = api._conversation(body)
        usage = dict(api.USAGE)
        if "complete_task" in api._tools(body):
            return super().reply(body)
        write = api._call
        steps: list[list[dict[str, Any]]] = []
        if "rename-delete" in prompt:
            change = {"file_path": self.path("hello.txt"), "instruction": "Say hi",
                      "old_string": "hello", "new_string": "hi"}  # fmt: skip
            steps = [[write("replace", **change)], [_shell(SHELL_RENAME)]]
            key = "rename-delete"
        elif "mid-commit" in prompt:
            steps = [
                [
                    write(
                        "write_file",
                        file_path=self.path("mid.txt"),
                        content="committed by the agent mid-turn\n",
                    )
                ],
                [_shell(SHELL_COMMIT)],
                [
                    write(
                        "write_file",
                        file_path=self.path("late.txt"),
                        content="written after the agent's commit\n",
                    )
                ],
            ]
            key = "mid-commit"
        elif "edit-three" in prompt:
            steps = [
                [write("write_file", file_path=self.path("late.txt"), content="rewritten in turn three\n")],
                [write("write_file", file_path=self.path("notes.txt"), content="notes of turn three\n")],
            ]
            key = "edit-three"
        elif "text-only" in prompt:
            key = "text-only"
        else:
            return super().reply(body)
        if step < len(steps):
            return steps[step], usage
        return [{"text": ANSWERS[key]}], usage


def serve(port: int, workdir: str, log_path: str) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", port), api.make_handler(HostScript(workdir), log_path))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    raise SystemExit(host_server.main("The scripted Gemini API of the host scenarios.", serve))
