"""``generate-text``: one non-interactive run of ``qwen``, answered as plain text.

AGENT AUTHOR: set ``argv`` to the agent's one-shot mode, keep it away from the repository (it must
not fire our hooks) and read only the answer from its output.
"""

from __future__ import annotations

import os

from entire_core.errors import AgentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

TIMEOUT_SECONDS = 120.0
BINARY = "qwen"


def generate(prompt: str, model: str, *, env: Mapping[str, str]) -> str:
    """The agent's answer to ``prompt`` (``model`` when given), or AgentError naming what went wrong."""
    import shutil
    import tempfile

    from entire_core.process import run_tool

    found = shutil.which(BINARY, path=env.get("PATH", os.defpath))
    if not found:
        raise AgentError(f"{BINARY} is not on PATH; install Qwen Code first")
    argv = [found, "-p", prompt, *(["--model", model] if model else [])]
    with tempfile.TemporaryDirectory() as scratch:
        done = run_tool(argv, name=BINARY, cwd=scratch, env=env, timeout=TIMEOUT_SECONDS)
    if done.returncode != 0:
        last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no error output"]
        raise AgentError(f"{BINARY} failed (exit {done.returncode}): {last[0]}")
    return done.stdout.decode("utf-8", "replace").strip()
