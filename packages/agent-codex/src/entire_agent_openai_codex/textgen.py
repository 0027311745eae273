"""``generate-text``: answer a prompt with ``codex exec``, non-interactively and read-only.

The run happens in an empty temporary directory with hooks disabled, as an ephemeral session, so
that summarising a checkpoint never becomes a recorded Codex session itself, never loads the
repository's project config, and leaves no rollout behind. The model's final message is read from
``--output-last-message``.
"""

from __future__ import annotations

import os

from entire_core.errors import AgentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

TIMEOUT_SECONDS = 25.0
"""The CLI kills a plugin call after 30 s; stop first so the user gets our message, not a kill."""

_LOGIN_HINTS = ("not logged in", "login", "401", "unauthorized", "api key", "api_key", "authentication")


def command(binary: str, model: str, workdir: str, answer_file: str) -> list[str]:
    """The ``codex exec`` argv; the prompt goes on stdin (``-``)."""
    argv = [binary, "exec", "--ephemeral", "--skip-git-repo-check", "--sandbox", "read-only", "--color", "never",
            "--disable", "hooks", "-c", "notify=[]", "-C", workdir, "--output-last-message", answer_file]  # fmt: skip
    if model:
        argv += ["--model", model]
    return [*argv, "-"]


def _reason(stderr: str, code: int) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()] or lines
    detail = errors[-1] if errors else f"exit status {code}"
    if any(hint in stderr.lower() for hint in _LOGIN_HINTS):
        return f"codex exec failed, is Codex logged in (`codex login`)? {detail}"
    return f"codex exec failed: {detail}"


def generate(prompt: str, model: str, env: Mapping[str, str]) -> str:
    """Codex's final message for ``prompt``; AgentError with one clear line when it cannot answer."""
    import shutil
    import tempfile

    from entire_core import validate
    from entire_core.process import run_tool

    validate.model_name(model)  # before any argv is built: on Windows codex is a .cmd run by cmd.exe
    binary = shutil.which("codex", path=env.get("PATH"))
    if binary is None:
        from entire_agent_openai_codex.versions import WINDOW

        raise AgentError(*WINDOW.not_installed("codex"))
    with tempfile.TemporaryDirectory(prefix="entire-codex-generate-") as workdir:
        answer_file = os.path.join(workdir, "answer.txt")
        run_dir = os.path.join(workdir, "run")
        os.mkdir(run_dir)
        done = run_tool(
            command(binary, model, run_dir, answer_file),
            name="codex exec",
            cwd=run_dir,
            env=env,
            timeout=TIMEOUT_SECONDS,
            stdin=prompt.encode("utf-8"),
        )
        stderr = done.stderr.decode("utf-8", errors="replace")
        if done.returncode != 0:
            raise AgentError(_reason(stderr, done.returncode))
        try:
            with open(answer_file, encoding="utf-8", errors="replace") as f:
                text = f.read().strip()
        except FileNotFoundError:
            text = ""
    if not text:
        raise AgentError(_reason(stderr, 0) if stderr.strip() else "codex exec finished without an answer")
    return text
