"""Runs inside a loopback-only network namespace: the scripted model server, then the plan's Cline runs.

``python driver.py <plan.json>``. The plan names the ``cline`` binary, the working directory, the
environment, Cline's sessions folder and the steps: ``{"name", "prompt"}`` is one ``cline --json``
run (a new session); ``{"name", "argv", "stdin", "env"}`` runs a program of ours; ``{"name", "resume": <step or session id>, "tui": [prompts]}`` resumes that session in
the TUI (``cline --id``, through a pseudo-terminal), types each prompt, then ``/exit``. After each step
it waits ``settle`` seconds for the detached hooks, and at the end stops the hub daemons the TUI left
(by pid). The results (exit codes, outputs, session ids) go to the plan's ``results`` path.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import model_server

STEP_TIMEOUT = 180


def _sessions(plan: dict[str, Any]) -> set[str]:
    folder = Path(plan["sessions"])
    return {p.name for p in folder.iterdir()} if folder.is_dir() else set()


def _read(fd: int, seconds: float) -> bytes:
    out = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
    return out


def _type(fd: int, text: str) -> None:
    for ch in text:
        os.write(fd, ch.encode())
        time.sleep(0.02)
    time.sleep(0.3)
    os.write(fd, b"\r")


def tui(argv: list[str], cwd: str, env: dict[str, str], prompts: list[str], wait: float) -> tuple[int, bytes]:
    """Run the TUI in a pseudo-terminal, type each prompt (``wait`` s for its turn), then ``/exit``."""
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(cwd)
        os.execvpe(argv[0], argv, env)
    out = _read(fd, 8)
    for prompt in prompts:
        _type(fd, prompt)
        out += _read(fd, wait)
    _type(fd, "/exit")
    out += _read(fd, 4)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGTERM)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out


def stop_hub_daemons(cwd: str) -> list[int]:
    """Stop the ``cline --cline-hub-daemon`` processes started for ``cwd`` (by pid); their pids."""
    stopped = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--cline-hub-daemon" in cmdline and cwd.encode() in cmdline:
            os.kill(int(entry.name), signal.SIGTERM)
            stopped.append(int(entry.name))
    return stopped


def run(plan: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
    sessions: dict[str, str] = {}
    results: list[dict[str, Any]] = []
    base = [
        plan["cline"],
        "auth",
        "-p",
        "openai-compatible",
        "-k",
        "scripted",
        "-m",
        "scripted",
        "-b",
        env["BASE_URL"],
    ]
    auth = subprocess.run(base, cwd=plan["workdir"], env=env, capture_output=True, timeout=60, check=False)
    results.append(
        {"name": "auth", "code": auth.returncode, "stderr": auth.stderr.decode(errors="replace")[-2000:]}
    )
    for step in plan["steps"]:
        before = _sessions(plan)
        started = time.monotonic()
        if "argv" in step:  # a program of ours (``generate-text``), its stdin given, its environment amended
            step_env = {**env, **step.get("env", {})}
            done = subprocess.run(step["argv"], cwd=plan["workdir"], env=step_env, input=step["stdin"].encode(),
                                  capture_output=True, timeout=STEP_TIMEOUT, check=False)  # fmt: skip
            code, stdout, stderr = done.returncode, done.stdout.decode(), done.stderr.decode()[-3000:]
        elif "resume" in step:
            argv = [plan["cline"], "--id", sessions.get(step["resume"], step["resume"])]
            code, out = tui(argv, plan["workdir"], {**env, "TERM": "xterm"}, step["tui"], step.get("wait", 8))
            stdout, stderr = out.decode("utf-8", "replace")[-3000:], ""
        else:
            done = subprocess.run([plan["cline"], "--json", step["prompt"]], cwd=plan["workdir"], env=env,
                                  capture_output=True, timeout=STEP_TIMEOUT, check=False)  # fmt: skip
            code, stdout = done.returncode, done.stdout.decode("utf-8", "replace")[-3000:]
            stderr = done.stderr.decode("utf-8", "replace")[-3000:]
        time.sleep(float(plan.get("settle", 3)))
        new = sorted(_sessions(plan) - before)
        if new:
            sessions[step["name"]] = new[0]
        results.append({"name": step["name"], "code": code, "new_sessions": new, "stdout": stdout, "stderr": stderr,
                        "seconds": round(time.monotonic() - started, 2)})  # fmt: skip
    results.append({"name": "hub daemons stopped", "pids": stop_hub_daemons(plan["workdir"])})
    return {"steps": results, "sessions": sessions}


def main(plan_path: str) -> int:
    plan = json.loads(Path(plan_path).read_text())
    server = model_server.serve(0, plan["workdir"], plan["api_log"])
    env = {**plan["env"], "BASE_URL": f"http://127.0.0.1:{server.server_address[1]}/v1"}
    report: dict[str, Any] = {"steps": [], "sessions": {}}
    try:
        report = run(plan, env)
    finally:
        server.shutdown()
        Path(plan["results"]).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
