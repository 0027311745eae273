"""``generate-text``: one question to Aider in ask mode, in an empty scratch directory, touching no files.

Aider runs with ``--message`` (one turn, then exit) outside any git repository, with edits, commits,
the repo map, notifications, update checks and analytics off, and with its history files in the
scratch directory, which is removed afterwards. The answer is read back from that chat history.
Provider keys and endpoints come from the user's environment and ``~/.aider.conf.yml`` as usual.
"""

from __future__ import annotations

import os
import shutil

from entire_core.errors import AgentError

from entire_agent_aider import transcript

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

FLAGS = (
    "--edit-format", "ask", "--no-git", "--no-auto-commits", "--dry-run", "--no-auto-lint", "--no-auto-test",
    "--map-tokens", "0", "--no-restore-chat-history", "--no-notifications", "--no-check-update",
    "--no-analytics", "--no-show-release-notes", "--no-show-model-warnings", "--no-pretty",
    "--no-fancy-input", "--no-stream", "--no-detect-urls", "--no-suggest-shell-commands", "--no-gitignore",
)  # fmt: skip
"""No ``--yes-always``: it would accept Aider's offer to log in to OpenRouter, which then waits minutes for a
browser. stdin is /dev/null, so any question Aider asks ends the run instead."""

DEFAULT_MODEL_KEYS = (
    "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY", "OPENROUTER_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY",
    "VERTEXAI_PROJECT",
)  # fmt: skip
"""What Aider looks for to pick a model itself when none is configured; with none, it offers a login."""
PROVIDER_KEYS = {
    "openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY", "openrouter": "OPENROUTER_API_KEY", "groq": "GROQ_API_KEY",
    "xai": "XAI_API_KEY", "mistral": "MISTRAL_API_KEY",
}  # fmt: skip
"""The key variable of a ``provider/model`` name, for the providers whose variable is certain."""
ALIAS_PROVIDERS = {
    "sonnet": "anthropic", "haiku": "anthropic", "opus": "anthropic", "4o": "openai", "4": "openai",
    "4-turbo": "openai", "3": "openai", "deepseek": "deepseek", "r1": "deepseek", "flash": "gemini",
    "gemini": "gemini", "gemini-exp": "gemini",
}  # fmt: skip
"""Aider's model aliases, by provider."""
FAMILY_PROVIDERS = (("claude-", "anthropic"), ("gpt-", "openai"), ("o1", "openai"), ("o3", "openai"),
                    ("o4", "openai"), ("deepseek-", "deepseek"), ("gemini-", "gemini"))  # fmt: skip


def _provider(model: str) -> str | None:
    """The provider a model name needs a key for, when it is certain; None otherwise (local models)."""
    name = model.strip().lower()
    if "/" in name:
        return name.split("/", 1)[0] if name.split("/", 1)[0] in PROVIDER_KEYS else None
    if name in ALIAS_PROVIDERS:
        return ALIAS_PROVIDERS[name]
    return next((provider for prefix, provider in FAMILY_PROVIDERS if name.startswith(prefix)), None)


def _home_settings(home: str) -> tuple[set[str], str, bool]:
    """``(key variables set, model, keys of unknown provider)`` from the home's ``.env`` and
    ``.aider.conf.yml`` (the only ones Aider reads from our scratch directory, outside every repository)."""
    names: set[str] = set()
    model = ""
    other = False
    try:
        with open(os.path.join(home, ".env"), encoding="utf-8", errors="replace") as f:
            for line in f:
                name, eq, value = line.strip().removeprefix("export ").partition("=")
                if eq and value.strip().strip("'\""):
                    names.add(name.strip())
    except OSError:
        pass
    try:
        with open(os.path.join(home, ".aider.conf.yml"), encoding="utf-8", errors="replace") as f:
            for line in f:
                key, colon, value = line.partition(":")
                key, value = key.strip(), value.split(" #", 1)[0].strip().strip("'\"")
                if not colon or line[:1].isspace():
                    continue
                if key == "model" and value:
                    model = value
                elif key.endswith("-api-key") and key != "api-key":
                    names.add(key.removesuffix("-api-key").upper().replace("-", "_") + "_API_KEY")
                elif key in ("api-key", "set-env"):
                    other = True
    except OSError:
        pass
    return names, model, other


def missing_key(model: str, env: Mapping[str, str], home: str) -> str | None:
    """Why Aider would have no key for the model it would use, or None when it has one or we cannot tell.

    Aider reads keys from the environment (also as ``AIDER_<NAME>``), ``AIDER_API_KEY``, the home's
    ``.env`` and its ``.aider.conf.yml``. With no model and no key it offers an OpenRouter login.
    """
    names = {name for name, value in env.items() if value}
    names |= {name.removeprefix("AIDER_") for name in names if name.startswith("AIDER_")}
    from_home, home_model, other = _home_settings(home)
    names |= from_home
    if other or env.get("AIDER_API_KEY") or env.get("AIDER_SET_ENV"):
        return None  # keys for providers we cannot map: let Aider decide
    model = model or env.get("AIDER_MODEL", "") or home_model
    if not model:
        if any(name in names for name in DEFAULT_MODEL_KEYS):
            return None
        return (
            f"aider has no model and no API key, so it would offer an OpenRouter login that generate-text never "
            f"accepts: set one of {', '.join(DEFAULT_MODEL_KEYS[:5])}, or a model and its key"
        )
    provider = _provider(model)
    if provider is None or PROVIDER_KEYS[provider] in names:
        return None
    return f"aider has no API key for {model}: set {PROVIDER_KEYS[provider]}"


def generate(prompt: str, model: str, env: dict[str, str]) -> str:
    """Aider's answer to ``prompt`` (with ``--model`` when ``model`` is given), within the host's limit."""
    import time

    from entire_core.paths import home_dir
    from entire_core.process import Guard, text_seconds

    deadline = time.monotonic() + text_seconds(env)
    aider = env.get("ENTIRE_AIDER_BINARY") or shutil.which("aider", path=env.get("PATH"))
    if not aider:
        from entire_agent_aider.versions import WINDOW

        raise AgentError(*WINDOW.not_installed("aider"))
    problem = missing_key(model, env, home_dir(env))
    if problem:
        raise AgentError(problem)
    with Guard(env, scratch_prefix="entire-agent-aider-") as guard:
        scratch = guard.scratch
        history = os.path.join(scratch, "chat.md")
        message = os.path.join(scratch, "message.txt")
        with open(message, "w", encoding="utf-8") as f:
            f.write(prompt)
        command = [aider, *FLAGS, "--chat-history-file", history, "--input-history-file",
                   os.path.join(scratch, "input"), "--message-file", message]  # fmt: skip
        if model:
            command += ["--model", model]
        child_env = {k: v for k, v in env.items() if k != "ENTIRE_AIDER_SESSION"}
        result = guard.run(command, name="aider", cwd=scratch, env=child_env,
                           timeout=max(0.1, deadline - time.monotonic()))  # fmt: skip
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
