"""``generate-text``: one ``cline --json --plan --auto-approve false`` run, its answer as plain text.

Cline has no mode without tools; this run has none that can change anything. Plan mode offers no
``editor`` and refuses any shell command that could modify files; with auto-approval off, a run
without a terminal refuses every tool that needs approval (``run_commands``: "requires approval in a
TTY session"). It runs in an empty scratch directory of ours (core's ``Guard``), with ``HOME``,
``CLINE_DIR`` and ``CLINE_DATA_DIR`` there too, holding only a copy of the user's provider settings
(``<data>/settings/providers.json``): the run's session, its databases and logs land there and go with
it, so nothing is added to the user's history; no hook file, rule or MCP server of the user's is read.
The answer is the ``text`` of the last ``run_result`` line of Cline's JSON lines (3.0.64, 3.0.65).
"""

from __future__ import annotations

import os

from entire_core.errors import AgentError

from entire_agent_cline_cli.versions import BINARY

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

_LOCAL = {"CLINE_SESSION_BACKEND_MODE": "local", "CLINE_TELEMETRY_DISABLED": "1", "CLINE_NO_AUTO_UPDATE": "1"}
"""No hub daemon, no telemetry, no update check."""


def generate(prompt: str, model: str, *, env: Mapping[str, str], home: str) -> str:
    """Cline's answer to ``prompt`` (``model`` when given), or AgentError naming what went wrong."""
    import shutil

    from entire_core.process import Guard, text_seconds

    from entire_agent_cline_cli import paths
    from entire_agent_cline_cli.versions import WINDOW

    found = shutil.which(BINARY, path=env.get("PATH", os.defpath))
    if not found:
        raise AgentError(*WINDOW.not_installed(BINARY))
    providers = os.path.join(paths.data_dir(env, home), "settings", "providers.json")
    with Guard(env, scratch_prefix="entire-agent-cline-cli-") as guard:
        run, data = os.path.join(guard.scratch, "run"), os.path.join(guard.scratch, "data")
        os.makedirs(os.path.join(data, "settings"))
        os.mkdir(run)
        if os.path.isfile(providers):
            shutil.copyfile(providers, os.path.join(data, "settings", "providers.json"))
        child_env = {k: v for k, v in env.items() if k != "CLINE_SESSION_DATA_DIR"}
        child_env.update(_LOCAL, HOME=guard.scratch, CLINE_DIR=os.path.join(guard.scratch, ".cline"),
                         CLINE_DATA_DIR=data)  # fmt: skip
        argv = [found, "--json", "--plan", "--auto-approve", "false", "--cwd", run,
                *(["-m", model] if model else []), "--", prompt]  # fmt: skip
        done = guard.run(argv, name=BINARY, cwd=run, env=child_env, timeout=text_seconds(env))
    return answer(done.returncode, done.stdout, done.stderr)


def answer(code: int, stdout: bytes, stderr: bytes) -> str:
    """The text of Cline's last ``run_result`` when it completed; else AgentError with Cline's last error."""
    import json

    result: dict[str, object] = {}
    said = [ln for ln in stderr.decode("utf-8", "replace").strip().splitlines() if ln.strip()][-1:]
    for line in stdout.decode("utf-8", "replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("type") == "run_result":
            result = record
        elif isinstance(record, dict) and record.get("type") == "error" and record.get("message"):
            said = [str(record["message"])]
    if code == 0 and result.get("finishReason") == "completed" and isinstance(result.get("text"), str):
        return str(result["text"]).strip()
    why = said[0] if said else f"finished {result.get('finishReason') or 'without a result'}"
    raise AgentError(f"{BINARY} failed (exit {code}): {why}")
