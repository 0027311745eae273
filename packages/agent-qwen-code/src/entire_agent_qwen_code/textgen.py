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

BINARY = "qwen"


def generate(prompt: str, model: str, *, env: Mapping[str, str], home: str) -> str:
    """Qwen's answer to ``prompt`` (``model`` when given), or AgentError naming what went wrong.

    Qwen runs under core's ``Guard``: in its own process group, in a scratch directory that goes with
    it, within ``text_seconds`` (under the host's 30 s), even when the host kills us mid-call.
    """
    import shutil

    from entire_core.process import Guard, text_seconds

    from entire_agent_qwen_code.versions import WINDOW

    del home  # the scratch directory is the Guard's
    found = shutil.which(BINARY, path=env.get("PATH", os.defpath))
    if not found:
        raise AgentError(*WINDOW.not_installed(BINARY))
    argv = [found, "-p", prompt, *(["-m", model] if model else [])]
    quiet = {**env, "QWEN_DISABLE_AUTO_TITLE": "1", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"}
    with Guard(env, scratch_prefix="entire-agent-qwen-code-") as guard:
        done = guard.run(argv, name=BINARY, cwd=guard.scratch, env=quiet, timeout=text_seconds(env))
    if done.returncode != 0:
        last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no error output"]
        raise AgentError(f"{BINARY} failed (exit {done.returncode}): {last[0]}")
    return done.stdout.decode("utf-8", "replace").strip()
