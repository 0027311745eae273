"""Runs inside a loopback-only network namespace: the scripted Gemini API, then ``gemini -p`` runs.

``python driver.py <plan.json>``; the plan names the gemini binary, the working directory, the
environment and the steps, each ``{"name", "args"}`` where an argument ``{session:<step>}`` becomes
the session id an earlier step reported. A step with ``argv`` instead runs that command (the plugin's
``generate-text``) with ``stdin``, its ``env`` over the plan's (a value ``null`` drops the variable), and records in ``left`` what it left
under the ``watch`` folders (``entire_sim.e2e.left_behind``). One JSON file of results (exit codes,
outputs, session ids) is written to the plan's ``results`` path; the API server's request log goes to
``api_log``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import gemini_api
from entire_sim.e2e import left_behind, paths_under

STEP_TIMEOUT = 180


def _expand(arg: str, sessions: dict[str, str]) -> str:
    if arg.startswith("{session:") and arg.endswith("}"):
        return sessions[arg[len("{session:") : -1]]
    return arg


def main(plan_path: str) -> int:
    plan = json.loads(Path(plan_path).read_text())
    server = gemini_api.serve(0, plan["workdir"], plan["api_log"])
    env = {**plan["env"], "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}"}
    sessions: dict[str, str] = {}
    results: list[dict[str, object]] = []
    try:
        for step in plan["steps"]:
            argv = step.get("argv") or [plan["gemini"], *(_expand(a, sessions) for a in step["args"])]
            watch = step.get("watch", [])
            before = paths_under(*watch)
            started = time.monotonic()
            proc = subprocess.run(argv, cwd=plan["workdir"], env={k: v for k, v in {**env, **step.get("env", {})}.items() if v is not None},
                                  input=step.get("stdin", "").encode(), capture_output=True, timeout=STEP_TIMEOUT,
                                  check=False)  # fmt: skip
            left = left_behind(before, paths_under(*watch))
            stdout = proc.stdout.decode("utf-8", "replace")
            try:  # Gemini 0.38 prints its SessionEnd hook log on stdout after the JSON answer
                answer, _ = json.JSONDecoder().raw_decode(stdout.lstrip())
            except ValueError:
                answer = {}
            if isinstance(answer, dict) and answer.get("session_id"):
                sessions[step["name"]] = str(answer["session_id"])
            results.append({"name": step["name"], "argv": argv, "code": proc.returncode, "answer": answer, "left": left,
                            "stdout": stdout[-4000:], "stderr": proc.stderr.decode("utf-8", "replace")[-4000:],
                            "seconds": round(time.monotonic() - started, 2)})  # fmt: skip
            if proc.returncode != 0:
                break
    finally:
        server.shutdown()
        Path(plan["results"]).write_text(json.dumps({"steps": results, "sessions": sessions}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
