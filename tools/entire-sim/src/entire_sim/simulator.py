"""The simulator as a Python API: enable an agent in a repository, fire hooks, resume sessions, and
read back everything the Entire CLI would have recorded. The ``entire`` shim uses the same code.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from entire_sim import discovery, gitrefs
from entire_sim.lifecycle import HookError, HookRun, commit_without_trailer
from entire_sim.plugin import CallFailed, Plugin, Violation
from entire_sim.state import State

STATE_ENV = "ENTIRE_SIM_STATE"
ZERO_TIME = "0001-01-01T00:00:00Z"


def repo_root_of(cwd: str) -> str | None:
    """The git worktree root containing ``cwd``, or None outside a repository."""
    proc = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=cwd, capture_output=True, check=False)
    return proc.stdout.decode().strip() or None if proc.returncode == 0 else None


def settings_of(repo: str) -> dict[str, Any]:
    """Entire's settings as the CLI merges them: ``.entire/settings.json``, then ``settings.local.json`` over it."""
    merged: dict[str, Any] = {}
    for name in ("settings.json", "settings.local.json"):
        try:
            layer = json.loads(Path(repo, ".entire", name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(layer, dict):
            merged.update(layer)
    return merged


def is_enabled(repo: str) -> bool:
    """Entire is enabled in the repository (the merged settings say so)."""
    return settings_of(repo).get("enabled") is True


def external_agents_on(repo: str) -> bool:
    """Plugins are looked for on PATH here: ``external_agents`` is true in the merged settings (v0.10.3)."""
    return settings_of(repo).get("external_agents") is True


def state_dir_for(repo: str, env: dict[str, str]) -> Path:
    """Where the simulator keeps its state for ``repo``."""
    return Path(env.get(STATE_ENV) or os.path.join(repo, ".entire", "sim"))


class Simulator:
    """The Entire CLI's side of the protocol for one repository."""

    def __init__(self, repo: Path, state_dir: Path | None = None, env: dict[str, str] | None = None) -> None:
        self.repo = repo
        self.base_env = dict(os.environ if env is None else env)
        self.state_dir = state_dir or repo / ".entire" / "sim"
        self.state = State(self.state_dir)
        self.bin_dir: Path | None = None
        self._plugins: dict[str, Plugin] = {}

    # -- environment and plugins ----------------------------------------------------------------------------

    def install_shim(self, bin_dir: Path) -> Path:
        """Write the ``entire`` executable that real agents call as ``entire hooks <agent> <hook>``."""
        bin_dir.mkdir(parents=True, exist_ok=True)
        shim = bin_dir / "entire"
        shim.write_text(
            f"#!{sys.executable}\nimport sys\nfrom entire_sim.shim import main\nsys.exit(main())\n"
        )
        shim.chmod(0o755)
        self.bin_dir = bin_dir
        return shim

    def env(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """An environment for the agent under test: the shim first on PATH, then PATH, then the workspace.

        The workspace's own ``entire-agent-*`` scripts (next to this interpreter) come last, so plugins a
        user installed (``uv tool install``) are the ones found when they are on PATH.
        """
        env = dict(self.base_env if base is None else base)
        dirs = [str(self.bin_dir)] if self.bin_dir else []
        workspace = str(Path(sys.executable).parent)  # where the workspace's entire-agent-* scripts live
        env["PATH"] = os.pathsep.join([*dirs, env.get("PATH", ""), workspace])
        env[STATE_ENV] = str(self.state_dir)
        return env

    def plugin(self, name: str) -> Plugin:
        """The plugin registered under ``name``, found on PATH as the CLI finds it (once per simulator)."""
        if name not in self._plugins:
            self._plugins[name] = self._discover(name)
        return self._plugins[name].fresh()

    def _discover(self, name: str) -> Plugin:
        env = self.env()
        found = discovery.discover(env["PATH"], str(self.repo), env)
        for warning in found.warnings:
            self.state.append("violations", {"agent": name, "subcommand": "discovery", "message": warning,
                                             "output": "", "severity": "warning"})  # fmt: skip
        for plugin in found.plugins:
            if plugin.name == name:
                return plugin
        raise LookupError(discovery.not_found(name, found))

    def _log(self, plugin: Plugin, what: str) -> None:
        for violation in plugin.violations:
            self.state.append("violations", {"agent": plugin.name, "hook": what, **violation.to_json()})

    # -- enable / disable -----------------------------------------------------------------------------------

    def enable(self, name: str, *, force: bool = False) -> int:
        """``entire enable --agent NAME``: settings, detect, hooks; returns how many hooks were installed."""
        plugin = self.plugin(name)  # an unknown agent changes nothing
        entire_dir = self.repo / ".entire"
        entire_dir.mkdir(exist_ok=True)
        # As v0.10.3: both switches in the committed settings.json (kept keys and all), none in settings.local.json
        # but a local "enabled" brought in line; hosts after entireio/cli PR #2268 write external_agents locally.
        for name, keys in (
            ("settings.json", ("enabled", "external_agents")),
            ("settings.local.json", ("enabled",)),
        ):
            path = entire_dir / name
            try:
                settings = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                if name == "settings.local.json":
                    continue
                settings = {}
            settings = settings if isinstance(settings, dict) else {}
            if name == "settings.local.json" and "enabled" not in settings:
                continue
            path.write_text(
                json.dumps({**settings, **dict.fromkeys(keys, True)}, indent=2) + "\n", encoding="utf-8"
            )
        (entire_dir / ".gitignore").write_text(
            "tmp/\nsettings.local.json\nmetadata/\nlogs/\nredactors/local/\nsim/\n", encoding="utf-8"
        )
        try:
            plugin.json("detect")
            installed = 0
            if plugin.capability("hooks"):
                plugin.json("are-hooks-installed")
                args = ["--force"] if force else []
                installed = plugin.json("install-hooks", *args)["hooks_installed"]
                if not plugin.json("are-hooks-installed")["installed"]:
                    plugin.violations.append(
                        Violation("are-hooks-installed", "false right after install-hooks")
                    )
            return installed
        finally:
            self._log(plugin, "enable")

    def disable(self, name: str) -> None:
        """``entire disable --uninstall`` for one agent."""
        plugin = self.plugin(name)
        try:
            if plugin.capability("hooks") and plugin.json("are-hooks-installed")["installed"]:
                plugin.run("uninstall-hooks")
                if plugin.json("are-hooks-installed")["installed"]:
                    plugin.violations.append(
                        Violation("are-hooks-installed", "still true after uninstall-hooks")
                    )
        finally:
            self._log(plugin, "disable")

    def uninstall(self, env: dict[str, str] | None = None) -> list[str]:
        """``entire disable --uninstall``: every agent's hooks out, then ``.entire/``; the agents it cleaned.

        Plugins are found on ``env``'s PATH (the shim passes its caller's, as the host searches only there;
        by default the simulator's own). A plugin not found is not asked, so its hooks stay.
        """
        import shutil

        env = env if env is not None else self.env()
        found = discovery.discover(env["PATH"], str(self.repo), env)
        cleaned: list[str] = []
        for plugin in found.plugins:
            if plugin.capability("hooks") and plugin.json("are-hooks-installed")["installed"]:
                self._plugins[plugin.name] = plugin
                self.disable(plugin.name)
                cleaned.append(plugin.name)
        shutil.rmtree(self.repo / ".entire", ignore_errors=True)
        return cleaned

    # -- hooks ----------------------------------------------------------------------------------------------

    def hook(self, name: str, hook: str, payload: bytes) -> dict[str, Any]:
        """Fire one hook in this process, exactly as the shim would; returns the hook record."""
        plugin = self.plugin(name)
        hook_names = plugin.info.get("hook_names") or []
        if hook not in hook_names:
            raise HookError(f'unknown command "{hook}" for "entire hooks {name}"')
        with self.state.lock():
            return HookRun(plugin, self.state, str(self.repo)).handle(hook, payload)

    def commit(self, name: str, session_id: str) -> dict[str, Any] | None:
        """The condensation a git commit triggers for one session of ``name``; the checkpoint, or None."""
        plugin = self.plugin(name)
        with self.state.lock():
            run = HookRun(plugin, self.state, str(self.repo))
            try:
                return run.post_commit(session_id)
            finally:
                self._log(plugin, "commit")

    def commit_without_trailer(self) -> None:
        """A git commit that names no session (no trailer; Entire's git hooks may not have run at all):
        nothing is condensed, now or at the next hook (``lifecycle.commit_without_trailer``)."""
        with self.state.lock():
            commit_without_trailer(self.state, str(self.repo))

    # -- resume ---------------------------------------------------------------------------------------------

    def resume(self, name: str, session_id: str, *, chunk_size: int | None = None) -> dict[str, Any]:
        """``entire session resume``: restore a session through the plugin from its newest checkpoint."""
        plugin = self.plugin(name)
        try:
            return self._resume(plugin, session_id, chunk_size)
        finally:
            if plugin.calls:  # a session id refused, or not recorded, leaves nothing behind
                self.state.append("resumes", {"agent": name, "session_id": session_id,
                                              "calls": [c.to_json() for c in plugin.calls]})  # fmt: skip
            self._log(plugin, "resume")

    def recorded_sessions(self) -> list[str]:
        """The ids of sessions with a stored transcript, which ``resume`` can restore."""
        directory = self.state.root / "metadata"
        return sorted(p.parent.name for p in directory.glob("*/full.jsonl")) if directory.is_dir() else []

    def _stored_transcript(self, session_id: str) -> bytes:
        """What ``resume`` restores: ``full.jsonl`` of the session's newest checkpoint, as the host reads it
        (``ReadRawSessionLogForCheckpoint``); for a session never committed, which the host cannot resume,
        the transcript its last TurnEnd read."""
        stored = [
            c for c in self.checkpoints() if c.get("session_id") == session_id and c.get("checkpoint_id")
        ]
        if stored:
            data = gitrefs.read(str(self.repo), stored[-1]["checkpoint_id"], "0/full.jsonl")
            if data is not None:
                return data
        last = self.state.root / "metadata" / session_id / "full.jsonl"
        if not last.is_file():
            known = ", ".join(self.recorded_sessions()) or "none"
            raise LookupError(f"no recorded session {session_id!r} in {self.repo} (recorded: {known})")
        return last.read_bytes()

    def _resume(self, plugin: Plugin, session_id: str, chunk_size: int | None) -> dict[str, Any]:
        from entire_core import validate

        validate.session_id(session_id)
        transcript = self._stored_transcript(session_id)
        # As the host (resume.go, resolveTranscriptPath): the path is the plugin's, never the session state's.
        session_dir = plugin.json("get-session-dir", "--repo-path", str(self.repo))["session_dir"]
        ref = plugin.json("resolve-session-file", "--session-dir", session_dir, "--session-id", session_id)[
            "session_file"
        ]
        if os.path.isabs(ref):
            if ".." in ref.replace("\\", "/").split("/"):
                raise CallFailed(Violation("write-session", f"session_ref {ref!r} has a '..' component"))
            real_dir = os.path.realpath(session_dir)
            if not os.path.realpath(ref).startswith(real_dir + os.sep):
                violation = Violation(
                    "get-session-dir", f"recorded transcript {ref} is outside session dir {session_dir}"
                )
                plugin.violations.append(violation)
                raise CallFailed(violation)
        data = transcript
        chunks: list[bytes] = []
        if chunk_size:
            chunks = (
                plugin.json("chunk-transcript", "--max-size", str(chunk_size), stdin=transcript)["chunks"]
                or []
            )
            encoded = [base64.b64encode(c).decode() for c in chunks]
            if len(chunks) >= 2:
                data = plugin.run(
                    "reassemble-transcript", stdin=json.dumps({"chunks": encoded}).encode()
                ).stdout
                if data != transcript:
                    violation = Violation(
                        "reassemble-transcript", "reassembled bytes differ from the original"
                    )
                    plugin.violations.append(violation)
                    raise CallFailed(violation)
        session_json = {"session_id": session_id, "agent_name": plugin.name, "repo_path": str(self.repo),
                        "session_ref": ref, "start_time": ZERO_TIME, "native_data": base64.b64encode(data).decode(),
                        "modified_files": None, "new_files": None, "deleted_files": None}  # fmt: skip
        # As Go's json.Marshal writes it (external.go, marshalAgentSession): no spaces, non-ASCII as is.
        plugin.run(
            "write-session",
            stdin=json.dumps(session_json, separators=(",", ":"), ensure_ascii=False).encode(),
        )
        command = plugin.json("format-resume-command", "--session-id", session_id)["command"]
        return {"session_ref": ref, "command": command, "restored_bytes": len(data), "chunks": len(chunks)}

    # -- what was recorded ------------------------------------------------------------------------------------

    def hook_calls(self) -> list[dict[str, Any]]:
        """One record per ``entire hooks`` call, oldest first."""
        return self.state.records("hook-calls")

    def events(self) -> list[dict[str, Any]]:
        """The events parse-hook returned (no-event hooks left out), oldest first."""
        return [r["event"] | {"_hook": r["hook"]} for r in self.hook_calls() if r["event"]]

    def checkpoints(self) -> list[dict[str, Any]]:
        """One record per TurnEnd and per finished subagent task."""
        return self.state.records("checkpoints")

    def violations(self) -> list[dict[str, Any]]:
        """Everything the real CLI would have rejected or lost (``severity`` error or warning)."""
        return self.state.records("violations")

    def errors(self) -> list[dict[str, Any]]:
        """Violations of severity error."""
        return [v for v in self.violations() if v.get("severity") == "error"]

    def sessions(self) -> list[dict[str, Any]]:
        """The session states."""
        return self.state.sessions()
