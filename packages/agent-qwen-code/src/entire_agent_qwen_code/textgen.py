"""``generate-text``: one ``qwen -p`` run, answered as plain text, within the host's time.

Qwen runs in a scratch directory of ours, not in the repository, so it picks up no project hooks (ours
would record the request as a session) and reads no project file. Headless without ``--yolo``, tools
that need approval are refused. The answer is ``qwen``'s stdout; warnings go to stderr.
"""

from __future__ import annotations

import os

from entire_core.errors import AgentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

TIMEOUT_SECONDS = 25.0
BINARY = "qwen"


def generate(prompt: str, model: str, *, env: Mapping[str, str], home: str) -> str:
    """Qwen's answer to ``prompt`` (``model`` when given), or AgentError naming what went wrong."""
    import shutil

    from entire_core.process import run_tool

    from entire_agent_qwen_code.versions import WINDOW

    found = shutil.which(BINARY, path=env.get("PATH", os.defpath))
    if not found:
        raise AgentError(*WINDOW.not_installed(BINARY))
    cache = env.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    scratch = os.path.join(cache, "entire-agent-qwen-code", "generate-text")
    os.makedirs(scratch, exist_ok=True)
    argv = [found, "-p", prompt, *(["-m", model] if model else [])]
    quiet = {**env, "QWEN_DISABLE_AUTO_TITLE": "1", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}
    done = run_tool(argv, name=BINARY, cwd=scratch, env=quiet, timeout=TIMEOUT_SECONDS)
    if done.returncode != 0:
        last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no error output"]
        raise AgentError(f"{BINARY} failed (exit {done.returncode}): {last[0]}")
    return done.stdout.decode("utf-8", "replace").strip()
