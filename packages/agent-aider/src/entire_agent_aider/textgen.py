"""``generate-text``: one question to Aider in ask mode, in an empty scratch directory, touching no files.

Aider runs with ``--message`` (one turn, then exit) outside any git repository, with edits, commits,
the repo map, notifications, update checks and analytics off, and with its history files in the
scratch directory, which is removed afterwards. The answer is read back from that chat history.
Provider keys and endpoints come from the user's environment and ``~/.aider.conf.yml`` as usual.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from entire_core.errors import AgentError
from entire_core.process import run_tool

from entire_agent_aider import transcript

TIMEOUT_SECONDS = 120.0
FLAGS = (
    "--edit-format", "ask", "--no-git", "--no-auto-commits", "--dry-run", "--no-auto-lint", "--no-auto-test",
    "--map-tokens", "0", "--no-restore-chat-history", "--no-notifications", "--no-check-update",
    "--no-analytics", "--no-show-release-notes", "--no-show-model-warnings", "--no-pretty",
    "--no-fancy-input", "--no-stream", "--no-detect-urls", "--no-suggest-shell-commands", "--no-gitignore",
    "--yes-always",
)  # fmt: skip


def generate(prompt: str, model: str, env: dict[str, str]) -> str:
    """Aider's answer to ``prompt`` (with ``--model`` when ``model`` is given)."""
    aider = env.get("ENTIRE_AIDER_BINARY") or shutil.which("aider", path=env.get("PATH"))
    if not aider:
        from entire_agent_aider.versions import WINDOW

        raise AgentError(*WINDOW.not_installed("aider"))
    scratch = tempfile.mkdtemp(prefix="entire-agent-aider-")
    try:
        history = os.path.join(scratch, "chat.md")
        message = os.path.join(scratch, "message.txt")
        with open(message, "w", encoding="utf-8") as f:
            f.write(prompt)
        command = [aider, *FLAGS, "--chat-history-file", history, "--input-history-file",
                   os.path.join(scratch, "input"), "--message-file", message]  # fmt: skip
        if model:
            command += ["--model", model]
        child_env = {k: v for k, v in env.items() if k != "ENTIRE_AIDER_SESSION"}
        result = run_tool(command, name="aider", cwd=scratch, env=child_env, timeout=TIMEOUT_SECONDS)
        try:
            with open(history, "rb") as f:
                answer = transcript.parse(f.read()).sessions[-1].reply
        except (OSError, IndexError):
            answer = ""
        if result.returncode != 0 or not answer:
            output = (result.stderr or result.stdout).decode("utf-8", "replace").strip().splitlines()
            detail = output[-1] if output else f"exit status {result.returncode}"
            raise AgentError(f"aider gave no answer: {detail}")
        return answer
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
