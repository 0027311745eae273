"""``generate-text``: one ``qwen -p`` run, answered as plain text, within the host's time.

Qwen runs in a scratch directory of ours, not in the repository, so it picks up no project hooks (ours
would record the request as a session) and reads no project file. Headless without ``--yolo``, tools
that need approval are refused. The answer is ``qwen``'s stdout; warnings go to stderr.

Qwen records every run: the chat (here, a copy of the transcript being summarised), its auto-memory,
temporary files, under ``<runtime>/projects/<cwd>/`` and ``<runtime>/memories/``, where ``<runtime>`` is
``QWEN_RUNTIME_DIR``, else ``QWEN_HOME``, else ``~/.qwen`` (0.24: ``Storage.getRuntimeBaseDir``); the
auto-memory goes to ``QWEN_CODE_MEMORY_BASE_DIR`` when set (0.15 put it under ``~/.qwen`` otherwise,
ignoring ``QWEN_HOME``). Both are pointed into the scratch directory, which goes with the run. Settings,
credentials (``oauth_creds.json``) and ``.env`` are read from ``QWEN_HOME`` or ``~/.qwen`` as ever
(``Storage.getGlobalQwenDir``), so Qwen authenticates as the user set it up; a private home would not do:
Qwen replaces ``oauth_creds.json`` by a rename when it refreshes a token, which would leave the user's
file behind with a refresh token Qwen has just used up.

One file of that run still lands in the user's Qwen home: 0.23 and later mark, per working directory,
when they last cleaned its OpenAI logs (``.openai-logs-cleanup-<sha256 of <cwd>/logs/openai>``, the
housekeeping scheduler's ``getOpenAILogsMarkerPath``). Our working directory is new each run, so the name
is ours alone, and the Guard removes it (and its ``.lock``) with the scratch directory.
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

    found = shutil.which(BINARY, path=env.get("PATH", os.defpath))
    if not found:
        raise AgentError(*WINDOW.not_installed(BINARY))
    argv = [found, "-p", prompt, *(["-m", model] if model else [])]
    with Guard(env, scratch_prefix="entire-agent-qwen-code-") as guard:
        workdir, runtime = os.path.join(guard.scratch, "run"), os.path.join(guard.scratch, "runtime")
        os.mkdir(workdir)
        for marker in housekeeping_markers(env, home, workdir):
            guard.remove_later(marker)
        child_env = {**env, "QWEN_DISABLE_AUTO_TITLE": "1", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
                     "QWEN_RUNTIME_DIR": runtime, "QWEN_CODE_MEMORY_BASE_DIR": runtime}  # fmt: skip
        done = guard.run(argv, name=BINARY, cwd=workdir, env=child_env, timeout=text_seconds(env))
    if done.returncode != 0:
        last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no error output"]
        raise AgentError(f"{BINARY} failed (exit {done.returncode}): {last[0]}")
    return done.stdout.decode("utf-8", "replace").strip()


def housekeeping_markers(env: Mapping[str, str], home: str, workdir: str) -> list[str]:
    """The files in the user's Qwen home that a run in ``workdir`` marks its log clean-up with (0.23+)."""
    import hashlib

    qwen_home = env.get("QWEN_HOME") or os.path.join(home, ".qwen")
    if qwen_home == "~" or qwen_home.startswith("~/"):
        qwen_home = os.path.join(home, qwen_home[2:])
    qwen_home = os.path.join(workdir, qwen_home)  # a relative QWEN_HOME is Qwen's own cwd's
    markers: list[str] = []
    for cwd in dict.fromkeys([workdir, os.path.realpath(workdir)]):  # Node's cwd is the real path
        key = hashlib.sha256(os.path.join(cwd, "logs", "openai").encode()).hexdigest()[:16]
        marker = os.path.join(qwen_home, f".openai-logs-cleanup-{key}")
        markers += [marker, marker + ".lock"]
    return markers
