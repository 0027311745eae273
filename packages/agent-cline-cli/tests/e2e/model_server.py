"""The Cline CLI end-to-end test's script for core's scripted OpenAI API (``entire_core.testing.openai_api``),
which drives the real Cline CLI offline. The conversation's latest real prompt picks a script, the number
of tool results since that prompt picks the step:

    prompt mentions       model calls
    "write hello"         write hello.txt, then text
    "write again"         write again.txt, then text
    "edit hello"          edit hello.txt (hello -> bye), then text
    "delete old"          run_commands rm old.txt, then text
    "subagent"            spawn_agent (whose task writes sub.txt), then text
    "sub.txt task"        (the subagent's own prompt) write sub.txt, then text
    "commit"              run_commands git add + commit, then text
    anything else         a short text answer

A call that answers with a tool call reports ``USAGE``, one that answers with text ``REASONED``, so
tests can expect exact token counts. Every request is appended to the log file as one JSON line.
"""

from __future__ import annotations

from typing import Any

from entire_core.testing.openai_api import REASONED, USAGE, Move, main

__all__ = ["REASONED", "SUBTASK", "USAGE", "serve", "step"]

SUBTASK = "Write sub.txt task: create sub.txt containing sub"


def step(body: dict[str, Any], workdir: str, prompt: str, results: int) -> Move:
    """The model's next move: a tool call (name, args) or the final text."""
    if results:
        return "Done: " + prompt[:40]
    if "sub.txt task" in prompt:
        return "editor", {"path": f"{workdir}/sub.txt", "new_text": "sub\n"}
    if "subagent" in prompt:
        return "spawn_agent", {"task": SUBTASK, "systemPrompt": "You write files."}
    if "write again" in prompt:
        return "editor", {"path": f"{workdir}/again.txt", "new_text": "again\n"}
    if "write hello" in prompt:
        return "editor", {"path": f"{workdir}/hello.txt", "new_text": "hello\n"}
    if "edit hello" in prompt:
        return "editor", {"path": f"{workdir}/hello.txt", "old_text": "hello", "new_text": "bye"}
    if "delete old" in prompt:
        return "run_commands", {"commands": ["rm old.txt"]}
    if "commit" in prompt:
        return "run_commands", {"commands": ["git add -A && git commit -q -m 'by cline'"]}
    return "Hello from the scripted model."


def serve(port: int, workdir: str, log_path: str) -> Any:
    """Core's scripted server answering with ``step``, on 127.0.0.1:``port`` (0 picks one)."""
    from entire_core.testing import openai_api

    return openai_api.serve(port, workdir, log_path, step)


if __name__ == "__main__":
    raise SystemExit(main(step, "The scripted OpenAI API of the Cline CLI end-to-end test."))
