"""The Qwen Code end-to-end test's scripted OpenAI API, with the scripts the ``host`` scenarios add.

Every script of ``openai_api`` stays as it is (the prompt picks it: "read notes", "subagent", ...); these
are added, matched first (the step is the number of tool results since the prompt):

    prompt mentions      model calls
    "edit-one"           write_file hello.txt, read_file README.md, edit README.md, then text
    "rename-delete"      the shell renaming hello.txt to greeting.txt and deleting old.txt, write_file
                         second.txt, then text
    "mid-commit"         write_file mid.txt, then the shell running ``git commit`` of mid.txt (a commit
                         the agent makes in the middle of its turn), write_file late.txt, then text
    "edit-three"         read_file late.txt, write_file late.txt (new text) and notes.txt, then text
    "text-only"          one text answer
    "first-commit"       as "mid-commit", with first.txt and after.txt (the first turn of a session)

A call answered with a tool call reports ``openai_api.USAGE`` (100 prompt tokens, 40 cached, 10 out); one
answered with text, every turn's last, reports ``openai_api.REASONED`` (100 prompt tokens, 60 cached, 40
out of which 30 reasoning): ``scenarios.QWEN_TOOL_CALL`` and ``QWEN_TEXT_CALL`` are what the host stores.

Run: ``python qwen_host_server.py --port N --workdir REPO --log REQUESTS.jsonl`` (``host_server.main``).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import host_server
from host_server import SHELL_COMMIT, SHELL_RENAME

sys.path.insert(
    0, str(Path(__file__).resolve().parents[2] / "packages" / "agent-qwen-code" / "tests" / "e2e")
)

api: Any = importlib.import_module("openai_api")

ANSWERS = {
    "edit-one": "Turn one done: hello.txt created, README.md updated.",
    "rename-delete": "I renamed hello.txt to greeting.txt, deleted old.txt and added second.txt.",
    **host_server.ANSWERS,
    "subagent": "The subagent wrote sub.txt.",
    "first-commit": "First-turn commit done: first.txt committed, after.txt written.",
}
SHELL_FIRST_COMMIT = "git add first.txt && git commit -q -m 'agent: first.txt'"
_base_step = api._step


def _shell(command: str) -> tuple[str, dict[str, Any]]:
    return api._call("run_shell_command", command=command, description="scripted")


def host_step(
    body: dict[str, Any], workdir: str, prompt: str, results: int
) -> tuple[str, dict[str, Any]] | str:
    """The host scenarios' next move, else the end-to-end server's."""
    write, read = api._call, lambda name: api._call("read_file", **{api._path_key(body): f"{workdir}/{name}"})
    steps: list[tuple[str, dict[str, Any]]] = []
    if "edit-one" in prompt:
        readme = f"{workdir}/README.md"
        steps = [write("write_file", file_path=f"{workdir}/hello.txt", content="hello\n"), read("README.md"),
                 write("edit", file_path=readme, old_string="# e2e", new_string="# e2e, edited")]  # fmt: skip
        key = "edit-one"
    elif "rename-delete" in prompt:
        steps = [
            _shell(SHELL_RENAME),
            write("write_file", file_path=f"{workdir}/second.txt", content="two\n"),
        ]
        key = "rename-delete"
    elif "mid-commit" in prompt:
        steps = [write("write_file", file_path=f"{workdir}/mid.txt", content="committed by the agent mid-turn\n"),
                 _shell(SHELL_COMMIT),
                 write("write_file", file_path=f"{workdir}/late.txt", content="written after the agent's commit\n")]  # fmt: skip
        key = "mid-commit"
    elif "first-commit" in prompt:
        steps = [write("write_file", file_path=f"{workdir}/first.txt", content="committed by the agent in its first turn\n"),
                 _shell(SHELL_FIRST_COMMIT),
                 write("write_file", file_path=f"{workdir}/after.txt", content="written after the agent's commit\n")]  # fmt: skip
        key = "first-commit"
    elif "edit-three" in prompt:
        steps = [read("late.txt"), write("write_file", file_path=f"{workdir}/late.txt", content="rewritten\n"),
                 write("write_file", file_path=f"{workdir}/notes.txt", content="notes of turn three\n")]  # fmt: skip
        key = "edit-three"
    elif "text-only" in prompt:
        key = "text-only"
    else:
        return _base_step(body, workdir, prompt, results)
    return steps[results] if results < len(steps) else ANSWERS[key]


def serve(port: int, workdir: str, log_path: str) -> Any:
    api._step = host_step
    return api.serve(port, workdir, log_path)


if __name__ == "__main__":
    raise SystemExit(host_server.main("The scripted OpenAI API of the Qwen Code host scenario.", serve))
