"""The scripted OpenAI API of the Qwen Code and Cline CLI ``host`` scenarios: core's server
(``entire_core.testing.openai_api``) with the scripts the scenarios add, in each agent's own tools.

The tools a request offers say whose it is: Cline's (``editor``, ``read_files``, ``run_commands``,
``spawn_agent``) or Qwen's (``write_file``, ``read_file``, ``edit``, ``run_shell_command``; for anything
else, the Qwen end-to-end test's script, ``openai_api.step``). The prompt picks the script, the number of
tool results since the prompt the step:

    prompt mentions      model calls
    "edit-one"           write hello.txt, read README.md, edit README.md, then text
    "rename-delete"      the shell renaming hello.txt to greeting.txt and deleting old.txt, write
                         second.txt, then text
    "mid-commit"         write mid.txt, then the shell running ``git commit`` of mid.txt (a commit the
                         agent makes in the middle of its turn), write late.txt, then text
    "edit-three"         read late.txt, rewrite late.txt and write notes.txt, then text
    "text-only"          one text answer
    "first-commit"       as "mid-commit", with first.txt and after.txt (the first turn of a session)
    "subagent"           (Cline) spawn_agent, whose task is "sub.txt task", then text
    "sub.txt task"       (Cline: the subagent's own prompt) write sub.txt, then text

A call answered with a tool call reports ``openai_api.USAGE`` (100 prompt tokens, 40 cached, 10 out); one
answered with text, every turn's last, reports ``openai_api.REASONED`` (100 prompt tokens, 60 cached, 40
out of which 30 reasoning): ``scenarios.OPENAI_TOOL_CALL`` and ``OPENAI_TEXT_CALL`` are what the host stores.

Run: ``python openai_host_server.py --port N --workdir REPO --log REQUESTS.jsonl`` (``host_server.main``).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any, NamedTuple

import host_server
from entire_core.testing.openai_api import Move, call, tool_names
from host_server import SHELL_COMMIT, SHELL_RENAME

sys.path.insert(
    0, str(Path(__file__).resolve().parents[2] / "packages" / "agent-qwen-code" / "tests" / "e2e")
)

qwen: Any = importlib.import_module("openai_api")

ANSWERS = {
    "edit-one": "Turn one done: hello.txt created, README.md updated.",
    "rename-delete": "I renamed hello.txt to greeting.txt, deleted old.txt and added second.txt.",
    **host_server.ANSWERS,
    "subagent": "The subagent wrote sub.txt.",
    "first-commit": "First-turn commit done: first.txt committed, after.txt written.",
}
SHELL_FIRST_COMMIT = "git add first.txt && git commit -q -m 'agent: first.txt'"
SUBTASK = "Write sub.txt task: create sub.txt containing sub"
"""The Cline subagent's task (Qwen's is ``openai_api.SUBTASK``, the same words)."""


class Tools(NamedTuple):
    """One agent's tool calls for the scripts' moves."""

    write: Any  # (path, text): a new file, or one written whole
    read: Any  # (path)
    edit: Any  # (path, old, new)
    rewrite: Any  # (path, old, new): the file's text replaced whole (old: what it held)
    shell: Any  # (command)


def qwen_tools(body: dict[str, Any]) -> Tools:
    def write(path: str, text: str) -> Move:
        return call("write_file", file_path=path, content=text)

    return Tools(
        write,
        lambda path: call("read_file", **{qwen.path_key(body): path}),
        lambda path, old, new: call("edit", file_path=path, old_string=old, new_string=new),
        lambda path, old, new: write(path, new),
        lambda command: call("run_shell_command", command=command, description="scripted"),
    )


def cline_tools() -> Tools:
    def edit(path: str, old: str, new: str) -> Move:
        return call("editor", path=path, old_text=old, new_text=new)

    return Tools(
        lambda path, text: call("editor", path=path, new_text=text),
        lambda path: call("read_files", files=[{"path": path}]),
        edit,
        edit,
        lambda command: call("run_commands", commands=[command]),
    )


def host_step(body: dict[str, Any], workdir: str, prompt: str, results: int) -> Move:
    """The host scenarios' next move, else the end-to-end test's (Qwen's) or a short text (Cline's)."""
    cline = "editor" in tool_names(body)
    tools = cline_tools() if cline else qwen_tools(body)
    write, read = tools.write, lambda name: tools.read(f"{workdir}/{name}")
    late = "written after the agent's commit\n"
    steps: list[Move] = []
    if "edit-one" in prompt:
        steps = [write(f"{workdir}/hello.txt", "hello\n"), read("README.md"),
                 tools.edit(f"{workdir}/README.md", "# e2e", "# e2e, edited")]  # fmt: skip
        key = "edit-one"
    elif "rename-delete" in prompt:
        steps = [tools.shell(SHELL_RENAME), write(f"{workdir}/second.txt", "two\n")]
        key = "rename-delete"
    elif "mid-commit" in prompt:
        steps = [write(f"{workdir}/mid.txt", "committed by the agent mid-turn\n"), tools.shell(SHELL_COMMIT),
                 write(f"{workdir}/late.txt", late)]  # fmt: skip
        key = "mid-commit"
    elif "first-commit" in prompt:
        steps = [write(f"{workdir}/first.txt", "committed by the agent in its first turn\n"),
                 tools.shell(SHELL_FIRST_COMMIT), write(f"{workdir}/after.txt", late)]  # fmt: skip
        key = "first-commit"
    elif "edit-three" in prompt:
        steps = [read("late.txt"), tools.rewrite(f"{workdir}/late.txt", late, "rewritten\n"),
                 write(f"{workdir}/notes.txt", "notes of turn three\n")]  # fmt: skip
        key = "edit-three"
    elif "text-only" in prompt:
        key = "text-only"
    elif cline and "sub.txt task" in prompt:
        return write(f"{workdir}/sub.txt", "sub\n") if results == 0 else "sub.txt written."
    elif cline and "subagent" in prompt:
        steps = [call("spawn_agent", task=SUBTASK, systemPrompt="You write files.")]
        key = "subagent"
    elif cline:
        return "Done."
    else:
        return qwen.step(body, workdir, prompt, results)
    return steps[results] if results < len(steps) else ANSWERS[key]


def serve(port: int, workdir: str, log_path: str) -> Any:
    from entire_core.testing import openai_api

    return openai_api.serve(port, workdir, log_path, host_step, model=qwen.MODEL)


if __name__ == "__main__":
    raise SystemExit(
        host_server.main("The scripted OpenAI API of the Qwen Code and Cline CLI host scenarios.", serve)
    )
