"""The Qwen Code end-to-end test's script for core's scripted OpenAI API (``entire_core.testing.openai_api``),
which drives the real Qwen Code offline. The conversation's latest real prompt picks a script; the number
of tool results since that prompt picks the step:

    prompt mentions          model calls
    "read notes"             read_file notes.txt, then text
    "edit notes"             read_file notes.txt, edit hi -> hello, then text
    "delete old"             run_shell_command rm old.txt, then text
    "subagent"               agent general-purpose (the subagent: write_file sub.txt, then text), then text
    "sub.txt task"           (the subagent's own prompt) write_file sub.txt, then text
    <task-notification>...   (a background subagent finished) text
    anything else            a short text answer

A call that answers with a tool call reports ``USAGE``; one that answers with text (the turn's last
call) reports ``REASONED``, with reasoning and another share read from the cache, so tests can expect
exact token counts per kind of call. Every request is appended to the log file as one JSON line.
"""

from __future__ import annotations

from typing import Any

from entire_core.testing.openai_api import REASONED, USAGE, Move, call, main

__all__ = ["REASONED", "SUBTASK", "USAGE", "path_key", "serve", "step"]

SUBTASK = "Write sub.txt task: create sub.txt containing sub"
MODEL = "qwen-scripted"


def path_key(body: dict[str, Any]) -> str:
    """read_file's path argument: ``file_path`` in 0.24, ``absolute_path`` before."""
    for tool in body.get("tools") or []:
        function = tool.get("function") or {}
        if function.get("name") == "read_file":
            properties = (function.get("parameters") or {}).get("properties") or {}
            return "file_path" if "file_path" in properties else "absolute_path"
    return "file_path"


def step(body: dict[str, Any], workdir: str, prompt: str, results: int) -> Move:
    """The model's next move: a tool call (name, args) or the final text."""
    notes = f"{workdir}/notes.txt"
    read = call("read_file", **{path_key(body): notes})
    if prompt.startswith("<task-notification>"):  # a background subagent finished
        return "The subagent wrote sub.txt."
    if "sub.txt task" in prompt:
        return (
            call("write_file", file_path=f"{workdir}/sub.txt", content="sub\n")
            if results == 0
            else "sub.txt written."
        )
    if "subagent" in prompt:
        if results == 0:
            return call("agent", description="write sub.txt", prompt=SUBTASK, subagent_type="general-purpose")
        return "The subagent is writing sub.txt."
    if "read notes" in prompt:
        return read if results == 0 else "notes.txt says hi."
    if "edit notes" in prompt:
        if results == 0:
            return read
        if results == 1:
            return call("edit", file_path=notes, old_string="hi", new_string="hello")
        return "I changed hi to hello in notes.txt."
    if "delete old" in prompt:
        return (
            call("run_shell_command", command="rm old.txt", description="delete old.txt")
            if results == 0
            else "I deleted old.txt."
        )
    return "Done."


def serve(port: int, workdir: str, log_path: str) -> Any:
    """Core's scripted server answering with ``step``, on 127.0.0.1:``port`` (0 picks one)."""
    from entire_core.testing import openai_api

    return openai_api.serve(port, workdir, log_path, step, model=MODEL)


if __name__ == "__main__":
    raise SystemExit(main(step, "The scripted OpenAI API of the Qwen Code end-to-end test.", model=MODEL))
