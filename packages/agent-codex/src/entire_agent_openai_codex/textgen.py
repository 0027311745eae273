"""``generate-text``: answer a prompt with ``codex exec``, non-interactively and read-only.

The run happens in an empty temporary directory with hooks disabled, as an ephemeral session, so
that summarising a checkpoint never becomes a recorded Codex session itself, never loads the
repository's project config, and leaves no rollout behind. The model's final message is read from
``--output-last-message``. Plugins and shell snapshots are off too (every supported version knows both
features): with plugins, every ``codex exec`` syncs the plugin marketplace into a new
``$CODEX_HOME/.tmp/.staging/marketplace-*`` directory, left there until the next run; a shell snapshot
(``$CODEX_HOME/shell_snapshots/<thread>.tmp-*``) serves a session that an ephemeral run never resumes,
and 0.130 leaves its temporary file when it exits first.
"""

from __future__ import annotations

import os

from entire_core.errors import AgentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

LOGIN_SECONDS = 5.0
"""How long ``codex login status`` may take: it reads a file and answers at once."""

_LOGIN_HINTS = ("not logged in", "login", "401", "unauthorized", "api key", "api_key", "authentication")


def command(binary: str, model: str, workdir: str, answer_file: str) -> list[str]:
    """The ``codex exec`` argv; the prompt goes on stdin (``-``)."""
    argv = [binary, "exec", "--ephemeral", "--skip-git-repo-check", "--sandbox", "read-only", "--color", "never",
            "--disable", "hooks", "--disable", "plugins", "--disable", "shell_snapshot", "-c", "notify=[]", "-C", workdir, "--output-last-message", answer_file]  # fmt: skip
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


def _custom_provider(env: Mapping[str, str]) -> bool:
    """True when the user's config.toml picks a model provider other than OpenAI's (no login needed)."""
    import tomllib

    from entire_agent_openai_codex import paths

    try:
        with open(os.path.join(paths.codex_home(env), "config.toml"), "rb") as f:
            config = tomllib.load(f)
    except (OSError, ValueError):
        return False
    from entire_core.jsonvalues import obj

    profile = obj(obj(config.get("profiles")).get(str(config.get("profile", ""))))
    provider: object = profile.get("model_provider") or config.get("model_provider")
    return isinstance(provider, str) and provider not in ("", "openai")


def check_login(binary: str, env: Mapping[str, str], timeout: float) -> None:
    """Fail at once, with Codex's own words, when ``codex login status`` says it is not logged in.

    Skipped when Codex needs no login: an API key in the environment, or a provider of the user's own.
    """
    import subprocess

    if env.get("CODEX_API_KEY") or env.get("OPENAI_API_KEY") or _custom_provider(env):
        return
    try:
        done = subprocess.run([binary, "login", "status"], stdin=subprocess.DEVNULL, capture_output=True,
                              env=dict(env), timeout=timeout, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return  # codex exec will say what is wrong
    said = (done.stdout + done.stderr).decode("utf-8", "replace")
    if done.returncode != 0 and "not logged in" in said.lower():
        raise AgentError("Codex is not logged in (`codex login status`: Not logged in): run `codex login`")


def generate(prompt: str, model: str, env: Mapping[str, str]) -> str:
    """Codex's final message for ``prompt``; AgentError with one clear line when it cannot answer."""
    import shutil
    import time

    from entire_core import validate
    from entire_core.process import Guard, text_seconds

    deadline = time.monotonic() + text_seconds(env)
    validate.model_name(model)  # before any argv is built: on Windows codex is a .cmd run by cmd.exe
    binary = shutil.which("codex", path=env.get("PATH"))
    if binary is None:
        from entire_agent_openai_codex.versions import WINDOW

        raise AgentError(*WINDOW.not_installed("codex"))
    check_login(binary, env, min(LOGIN_SECONDS, deadline - time.monotonic()))
    with Guard(env, scratch_prefix="entire-codex-generate-") as guard:
        workdir = guard.scratch
        answer_file = os.path.join(workdir, "answer.txt")
        run_dir = os.path.join(workdir, "run")
        os.mkdir(run_dir)
        done = guard.run(
            command(binary, model, run_dir, answer_file),
            name="codex exec",
            cwd=run_dir,
            env=env,
            timeout=max(0.1, deadline - time.monotonic()),
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
