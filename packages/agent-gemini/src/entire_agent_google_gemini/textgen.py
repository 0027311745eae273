"""``generate-text``: one non-interactive ``gemini -p`` run, answered as plain text.

The prompt goes on stdin (Gemini appends ``-p``'s value to it), so its size is not bound by argv
limits. Gemini runs in a scratch directory of ours, not in the repository: it must not pick up the
project's hooks (ours would record the summary request as a session) or read project files. Edit and
shell tools are not offered in headless mode without ``--yolo``, extensions are turned off, and the
answer comes from ``-o json`` so that progress and warnings on stdout cannot leak into it.

Gemini records every run in its home: the chat (here, a copy of the transcript being summarised) under
``~/.gemini/tmp/<project>/chats/``, the project in ``~/.gemini/projects.json`` and ``history/``, and it
has no switch to turn that off, nor a runtime directory of its own apart from the home. So it runs with
a private home (``GEMINI_CLI_HOME``, inside the scratch directory, which goes with the run) whose
``.gemini/`` links every entry of the user's ``.gemini/`` but those (``PRIVATE``), and the home's ``.env``:
settings, credentials (``oauth_creds.json``, ``gemini-credentials.json``, ``google_accounts.json``),
extensions and memory are the user's own, read and written through the links (Gemini writes them in
place, ``fs.writeFile``, never by a rename that would replace a link), and whatever Gemini makes new
goes with the scratch directory.
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


PRIVATE = frozenset(["tmp", "history", "projects.json", "projects.json.lock"])
"""The entries of ``~/.gemini`` a run writes its own records into, never linked into the private home
(``tmp/bin``, Gemini's downloaded ripgrep, is linked inside a private ``tmp/``)."""
HOME_ENTRIES = (".env", ".agents")
"""What Gemini reads from the home itself besides ``.gemini`` (``homedir()`` is ``GEMINI_CLI_HOME``)."""


def private_home(env: Mapping[str, str], home: str, root: str) -> str | None:
    """Make ``root`` a home for one run, linked to the user's Gemini files (see above); None when links
    cannot be made here (Windows without the privilege), and the run uses the user's home."""
    from entire_agent_google_gemini import paths

    user_gemini = paths.gemini_home(env, home)
    user_home = os.path.dirname(user_gemini)
    private = os.path.join(root, ".gemini")
    try:
        os.makedirs(private)
        try:
            names = sorted(os.listdir(user_gemini))
        except OSError:
            names = []
        for name in names:
            if name not in PRIVATE:
                os.symlink(os.path.join(user_gemini, name), os.path.join(private, name))
        if os.path.isdir(os.path.join(user_gemini, "tmp", "bin")):
            os.mkdir(os.path.join(private, "tmp"))
            os.symlink(os.path.join(user_gemini, "tmp", "bin"), os.path.join(private, "tmp", "bin"))
        for name in HOME_ENTRIES:
            if os.path.lexists(os.path.join(user_home, name)):
                os.symlink(os.path.join(user_home, name), os.path.join(root, name))
    except (OSError, NotImplementedError):
        return None
    return root


def scratch_dir(env: Mapping[str, str], home: str) -> str:
    """Where ``gemini -p`` runs when it cannot have a private home: ours, outside every repository, and
    reused, so that Gemini registers it as a project once."""
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
    argv = [find_gemini(env), "-p", "", "--output-format", "json", "--extensions", "none"]
    if model:
        argv += ["--model", model]
    problem = auth_problem(env, home)
    if problem:
        raise AgentError(problem)
    child_env = dict(env)
    child_env.setdefault("GEMINI_CLI_NO_RELAUNCH", "true")  # the relaunch only raises Node's heap limit
    child_env["NO_BROWSER"] = "true"  # a sign-in would wait for a browser: never open one
    # Our empty working directory is trusted: the variable, not --skip-trust, which 0.38 refuses (and
    # before 0.45, with no folder-trust check in headless runs, none is needed).
    child_env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
    with Guard(env, scratch_prefix="entire-agent-google-gemini-") as guard:
        cwd = os.path.join(guard.scratch, "run")
        os.mkdir(cwd)
        private = private_home(env, home, os.path.join(guard.scratch, "home"))
        if private is None:
            cwd = scratch_dir(env, home)
        else:
            child_env["GEMINI_CLI_HOME"] = private
        proc = guard.run(
            argv,
            name="gemini -p",
            cwd=cwd,
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
