"""Drives the real ``codex`` binary through Entire's simulator, inside a loopback-only network namespace.

Started by ``test_codex_e2e.py`` as ``unshare -n sh -c 'ip link set lo up && exec "$@"' sh python
codex_driver.py ...``. It starts the scripted model server, makes a repository and a ``CODEX_HOME`` whose
config.toml is the user's (a comment, then settings written with tomli-w), enables the plugin through
the simulator, runs ``doctor`` before and after ``trust``, then runs Codex: two turns with edits and a
resume (which compacts first), a subagent session, a restore of the first session through ``write-session`` followed by ``codex exec
resume``, and ``generate-text``. Everything that happened goes to one JSON file for the test to check.

The simulator (``entire_sim``) is used only in ``SimulatorSeam``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import tomli_w

HERE = Path(__file__).parent
PORT = 18766  # the namespace has its own loopback: nothing else listens here
AGENT = "openai-codex"
PLUGIN = "entire-agent-openai-codex"

PROMPT_ONE = "EDIT-ONE: create hello.txt, update README.md, then write shell.txt"
PROMPT_TWO = "EDIT-TWO: add second.txt, delete shell.txt, rename hello.txt to greeting.txt"
PROMPT_SPAWN = "SPAWN-CHILD: have a subagent create child.txt, wait for it, then report"
PROMPT_AFTER_RESTORE = "Reply with one short sentence."

USER_CONFIG_COMMENT = "# My Codex settings, with a comment that `trust` must keep byte for byte.\n"


def user_config(port: int | str) -> str:
    """The user's config.toml for a scripted server on ``port``: the comment, then the settings."""
    settings = {
        "model": "gpt-5.5",  # a bundled model slug, so Codex offers its apply_patch tool
        "model_provider": "scripted",
        "approval_policy": "never",
        "sandbox_mode": "danger-full-access",  # CI containers have no sandboxing support
        "check_for_update_on_startup": False,
        "model_providers": {
            # The test's own Responses-API server, inside the test's network namespace.
            "scripted": {
                "name": "Scripted",
                "base_url": f"http://127.0.0.1:{port}/v1",
                "env_key": "SCRIPTED_API_KEY",
                "wire_api": "responses",
                "request_max_retries": 0,
                "stream_max_retries": 0,
            }
        },
        "analytics": {"enabled": False},  # no telemetry
    }
    return USER_CONFIG_COMMENT + tomli_w.dumps(settings)


class SimulatorSeam:
    """Everything the driver needs from the simulator, in one place."""

    def __init__(self, repo: Path, state_dir: Path, bin_dir: Path, base_env: dict[str, str]) -> None:
        from entire_sim import Simulator

        self.sim = Simulator(repo, state_dir=state_dir, env=base_env)
        self.sim.install_shim(bin_dir)

    def env(self) -> dict[str, str]:
        """The agent's environment: ``entire`` shim and plugins on PATH."""
        return self.sim.env()

    def enable(self) -> int:
        """``entire enable --agent openai-codex``; the number of hooks installed."""
        return self.sim.enable(AGENT)

    def resume(self, session_id: str) -> dict[str, Any]:
        """``entire resume`` of a session: its transcript restored through ``write-session``."""
        return self.sim.resume(AGENT, session_id)

    def transcript(self, session_id: str) -> bytes:
        """The transcript the last checkpoint of a session stored."""
        return (self.sim.state.metadata(session_id) / "full.jsonl").read_bytes()

    def results(self) -> dict[str, Any]:
        """Hook calls, checkpoints and violations, as recorded."""
        return {
            "hook_calls": self.sim.hook_calls(),
            "checkpoints": self.sim.checkpoints(),
            "violations": self.sim.violations(),
        }


VIEW_BUDGET = 64 * 1024


def wait_for_port(port: int, server: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """Block until the scripted server accepts connections."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the scripted server exited with {server.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the scripted server did not start")


def run(
    argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes = b"", timeout: float = 180
) -> dict[str, Any]:
    """Run a command; what it printed and how it ended."""
    started = time.monotonic()
    done = subprocess.run(
        argv, cwd=cwd, env=env, input=stdin, capture_output=True, timeout=timeout, check=False
    )
    return {
        "argv": argv,
        "code": done.returncode,
        "stdout": done.stdout.decode("utf-8", "replace"),
        "stderr": done.stderr.decode("utf-8", "replace")[-4000:],
        "seconds": round(time.monotonic() - started, 2),
    }


def thread_id(result: dict[str, Any]) -> str:
    """The session id ``codex exec --json`` announced."""
    for line in result["stdout"].splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "thread.started":
            return str(event.get("thread_id", ""))
    return ""


def git(repo: Path, *args: str) -> str:
    """Run git in the repository."""
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout


def main() -> int:
    """Run every scenario and write the results file."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--codex", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--result", required=True)
    args = parser.parse_args()
    work = Path(args.work)
    repo, codex_home, home = work / "repo", work / "codex-home", work / "home"
    for path in (repo, codex_home, home):
        path.mkdir(parents=True)
    result: dict[str, Any] = {"runs": {}, "repo": str(repo)}

    server = subprocess.Popen(
        [sys.executable, str(HERE / "codex_scripted_server.py"), "--port", str(PORT), "--log", str(work / "requests.jsonl"),
         "--lifetime", "900"],
        stderr=open(work / "server.err", "wb"),  # noqa: SIM115 - lives as long as the server
    )  # fmt: skip
    try:
        wait_for_port(PORT, server)
        config = user_config(PORT)
        (codex_home / "config.toml").write_text(config, encoding="utf-8")
        (repo / "README.md").write_text("# e2e repo\n", encoding="utf-8")
        git(repo, "init", "-q")
        git(repo, "config", "user.email", "e2e@example.com")
        git(repo, "config", "user.name", "e2e")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "init")

        codex_bin = Path(args.codex).parent
        node_dir = Path(shutil.which("node") or "/usr/bin/node").parent
        base_env = {
            "PATH": os.pathsep.join([str(codex_bin), str(node_dir), "/usr/local/bin", "/usr/bin", "/bin"]),
            "HOME": str(home),
            "CODEX_HOME": str(codex_home),
            "SCRIPTED_API_KEY": "scripted-not-a-secret",
            "LANG": "C.UTF-8",
            "XDG_DATA_HOME": str(work / "xdg-data"),
            "TMPDIR": str(work / "tmp"),
            # A small view budget, so that the CLI's view of session one is re-based mid-session.
            "ENTIRE_VIEW_BUDGET": str(VIEW_BUDGET),
        }
        (work / "tmp").mkdir()
        sim = SimulatorSeam(repo, work / "sim", work / "bin", base_env)
        env = sim.env()
        result["codex_version"] = run([args.codex, "--version"], repo, env)["stdout"].strip()

        result["enable"] = sim.enable()
        result["doctor_before"] = run([PLUGIN, "doctor"], repo, env)
        result["config_before"] = config
        result["trust"] = run([PLUGIN, "trust", "--project"], repo, env)
        result["config_after"] = (codex_home / "config.toml").read_text(encoding="utf-8")
        result["doctor_after"] = run([PLUGIN, "doctor"], repo, env)

        # Session one: two turns with edits; the resume compacts first (a tiny auto-compact limit).
        codex = [args.codex, "exec", "--json", "--color", "never"]
        first = run([*codex, PROMPT_ONE], repo, env)
        session_one = thread_id(first)
        second = run(
            [*codex, "-c", "model_auto_compact_token_limit=2500", "resume", session_one, PROMPT_TWO],
            repo,
            env,
        )
        result["runs"].update({"one": first, "two": second})
        result["session_one"] = session_one
        result["status_after_one"] = git(repo, "status", "--porcelain")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "session one")

        # Session two: a subagent.
        spawn = run([*codex, PROMPT_SPAWN], repo, env)
        result["runs"]["spawn"] = spawn
        result["session_two"] = thread_id(spawn)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "session two")

        # Restore session one's rollout from Entire's checkpoint, then let Codex resume it.
        rollouts = sorted(str(p) for p in (codex_home / "sessions").rglob(f"rollout-*-{session_one}.jsonl"))
        result["rollouts_one"] = rollouts
        stored = sim.transcript(session_one)
        moved = Path(rollouts[0]).with_suffix(".moved")
        Path(rollouts[0]).rename(moved)
        result["stored_one"] = stored.decode("utf-8", "replace")
        result["resume"] = sim.resume(session_one)
        view = Path(result["resume"]["session_ref"])
        restored = Path(rollouts[0])
        result["resume_view_is_outside_repo"] = not view.is_relative_to(repo) and view.is_relative_to(home)
        result["restored_path_is_original"] = restored.is_file()
        # Codex's own rollout: the view's header padding and marker dropped; the view is the checkpoint's.
        from entire_core import views

        result["restored_equals_checkpoint"] = (
            restored.read_bytes() == views.native_bytes(stored, wrapped=False) and view.read_bytes() == stored
        )
        requests_before = len((work / "requests.jsonl").read_text(encoding="utf-8").splitlines())
        result["runs"]["after_restore"] = run(
            [*codex, "resume", session_one, PROMPT_AFTER_RESTORE], repo, env
        )
        lines = (work / "requests.jsonl").read_text(encoding="utf-8").splitlines()
        result["requests_after_restore"] = lines[requests_before:]

        # Text generation through codex exec: nothing new under Codex's home, the home or TMPDIR after it.
        from entire_sim.e2e import left_behind, paths_under

        watched = (codex_home, home, work / "tmp")
        before = paths_under(*watched)
        result["generate"] = run(
            [PLUGIN, "generate-text", "--model", "gpt-5.5"], repo, env, stdin=b"Reply with a short sentence."
        )
        result["generate_left"] = left_behind(before, paths_under(*watched))
        result.update(sim.results())
    finally:
        server.terminate()
        server.wait(timeout=10)
        Path(args.result).write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
