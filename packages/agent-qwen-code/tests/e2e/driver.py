"""Runs inside a loopback-only network namespace: the scripted model server, then ``qwen -p`` runs.

``python driver.py <plan.json>``; the plan names the qwen binary, the working directory, the
environment, the chats directory and the steps, each ``{"name", "args"}`` where an argument
``{session:<step>}`` becomes the session an earlier step started (the chat file it created). A step with
``argv`` instead runs that command (the plugin's ``generate-text``) with ``stdin``, its ``env`` over the
plan's (a value ``null`` drops the variable), and records in ``left`` what it left under the ``watch``
folders (``entire_sim.e2e.left_behind``). One JSON file of results (exit codes, outputs, session ids) is
written to the plan's ``results`` path; the server's request log goes to ``api_log``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import openai_api
from entire_sim.e2e import left_behind, paths_under

STEP_TIMEOUT = 240


def _expand(arg: str, sessions: dict[str, str]) -> str:
    if arg.startswith("{session:") and arg.endswith("}"):
        return sessions[arg[len("{session:") : -1]]
    return arg


def _chats(plan: dict[str, Any]) -> set[str]:
    return {p.stem for p in Path(str(plan["chats"])).glob("*.jsonl")}


def _run(plan: dict[str, Any], env: dict[str, str], results: list[dict[str, object]]) -> dict[str, str]:
    """Run the plan's steps in order, appending each one's result; stop at the first that fails."""
    sessions: dict[str, str] = {}
    for step in plan["steps"]:
        argv = step.get("argv") or [plan["qwen"], *(_expand(a, sessions) for a in step["args"])]
        before = _chats(plan)
        watch = step.get("watch", [])
        watched = paths_under(*watch)
        step_env = {k: v for k, v in {**env, **step.get("env", {})}.items() if v is not None}
        started = time.monotonic()
        proc = subprocess.run(argv, cwd=plan["workdir"], env=step_env, input=step.get("stdin", "").encode(),
                              capture_output=True, timeout=STEP_TIMEOUT, check=False)  # fmt: skip
        time.sleep(float(step.get("settle", 0)))  # a background subagent finishing after qwen exits
        left = left_behind(watched, paths_under(*watch))
        new = sorted(_chats(plan) - before)
        sessions.update({step["name"]: new[0]} if new else {})
        results.append({"name": step["name"], "argv": argv, "code": proc.returncode, "new_sessions": new, "left": left,
                        "stdout": proc.stdout.decode("utf-8", "replace")[-4000:],
                        "stderr": proc.stderr.decode("utf-8", "replace")[-4000:],
                        "seconds": round(time.monotonic() - started, 2)})  # fmt: skip
        if proc.returncode:
            return sessions
    return sessions


def main(plan_path: str) -> int:
    plan = json.loads(Path(plan_path).read_text())
    server = openai_api.serve(0, plan["workdir"], plan["api_log"])
    env = {**plan["env"], "OPENAI_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}/v1"}
    results: list[dict[str, object]] = []
    sessions: dict[str, str] = {}
    try:
        sessions = _run(plan, env, results)
    finally:
        server.shutdown()
        report = {"steps": results, "sessions": sessions}
        Path(plan["results"]).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
