"""``generate-text``: one non-interactive ``gemini -p`` run, answered as plain text.

The prompt goes on stdin (Gemini appends ``-p``'s value to it), so its size is not bound by argv
limits. Gemini runs in a scratch directory of ours, not in the repository: it must not pick up the
project's hooks (ours would record the summary request as a session) or read project files. Edit and
shell tools are not offered in headless mode without ``--yolo``, extensions are turned off, and the
answer comes from ``-o json`` so that progress and warnings on stdout cannot leak into it.
"""

from __future__ import annotations

import os

from entire_core.errors import AgentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

AUTH_ENV = (
    "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_GCA", "GEMINI_AUTH_TYPE",
    "CLOUD_SHELL", "GEMINI_CLI_USE_COMPUTE_ADC",
)  # fmt: skip
"""Variables from which a headless Gemini takes its auth method when its settings select none."""


def find_gemini(env: Mapping[str, str]) -> str:
    """The ``gemini`` executable on the environment's PATH."""
    import shutil

    found = shutil.which("gemini", path=env.get("PATH", os.defpath))
    if not found:
        from entire_agent_google_gemini.versions import WINDOW

        raise AgentError(*WINDOW.not_installed("gemini"))
    return found


def scratch_dir(env: Mapping[str, str], home: str) -> str:
    """The directory ``gemini -p`` runs in: ours, outside every repository."""
    cache = env.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    path = os.path.join(cache, "entire-agent-google-gemini", "generate-text")
    os.makedirs(path, exist_ok=True)
    return path


def _error_message(stderr: str) -> str:
    """Gemini's own error text: the ``error.message`` of the JSON it prints last, else stderr's last line."""
    import json

    at = stderr.rfind('{\n  "session_id"')
    if at < 0:
        at = stderr.rfind('{"session_id"')
    if at >= 0:
        from entire_core.jsonvalues import obj

        try:
            message = obj(obj(json.loads(stderr[at:])).get("error")).get("message")
        except ValueError:
            message = None
        if message:
            return str(message)
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1] if lines else "no error output"


def auth_problem(env: Mapping[str, str], home: str) -> str | None:
    """Why a headless Gemini would have no auth method, or None when it has one (or may have one).

    Gemini takes it from ``security.auth.selectedType`` (``selectedAuthType`` before 0.3) in the user's
    or system settings, else from the environment; with neither, ``gemini -p`` refuses to run.
    """
    from entire_core.config.json import read_json_object
    from entire_core.errors import ConfigError
    from entire_core.jsonvalues import obj

    from entire_agent_google_gemini import paths

    if any(env.get(name) for name in AUTH_ENV):
        return None
    user = os.path.join(paths.gemini_home(env, home), paths.SETTINGS)
    for path in (user, paths.system_settings(env)):
        try:
            settings = read_json_object(path, comments=True) or {}
        except (ConfigError, OSError):
            return None  # Gemini says what is wrong with the file
        if obj(obj(settings.get("security")).get("auth")).get("selectedType") or settings.get(
            "selectedAuthType"
        ):
            return None
    return (
        f"Gemini has no auth method: set GEMINI_API_KEY, or run `gemini` once and sign in "
        f"(or set security.auth.selectedType in {user})"
    )


def generate(prompt: str, model: str, env: Mapping[str, str]) -> str:
    """Gemini's answer to ``prompt`` with ``model`` (Gemini's default model when empty), within 25 s."""
    import json
    import time

    from entire_core import validate
    from entire_core.paths import home_dir
    from entire_core.process import Guard, text_seconds

    deadline = time.monotonic() + text_seconds(env)
    validate.model_name(model)  # before any argv is built: on Windows gemini is a .cmd run by cmd.exe
    home = home_dir(env)
    argv = [find_gemini(env), "-p", "", "--output-format", "json", "--skip-trust", "--extensions", "none"]
    if model:
        argv += ["--model", model]
    problem = auth_problem(env, home)
    if problem:
        raise AgentError(problem)
    child_env = dict(env)
    child_env.setdefault("GEMINI_CLI_NO_RELAUNCH", "true")  # the relaunch only raises Node's heap limit
    child_env["NO_BROWSER"] = "true"  # a sign-in would wait for a browser: never open one
    with Guard(env) as guard:
        proc = guard.run(
            argv,
            name="gemini -p",
            cwd=scratch_dir(env, home),
            env=child_env,
            timeout=max(0.1, deadline - time.monotonic()),
            stdin=prompt.encode("utf-8"),
        )
    stderr = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0:
        raise AgentError(f"gemini -p failed (exit {proc.returncode}): {_error_message(stderr)}")
    try:
        answer = json.loads(proc.stdout)
    except ValueError:
        raise AgentError("gemini -p did not print the JSON answer --output-format json asks for") from None
    from entire_core.jsonvalues import obj

    text = obj(answer).get("response")
    if not isinstance(text, str) or not text.strip():
        raise AgentError("gemini -p returned an empty answer")
    return text.strip()
