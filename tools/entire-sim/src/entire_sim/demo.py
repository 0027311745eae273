"""``entire-sim demo``: replay each agent's bundled real session through its installed plugin.

Each agent package may ship ``demo/replay.json`` next to its ``pyproject.toml``:

    {
      "agent": "<registry name>",
      "title": "what was recorded, with which agent version",
      "placeholders": {"<text in the captures>": "{root}/..."},   # rewritten in payloads and files
      "env": {"SOME_HOME": "{root}/..."},                           # extra environment for the plugin
      "steps": [
        {"write": "{root}/path/of/transcript", "from": "relative/capture/file", "lines": 12},
        {"files": {"hello.txt": "content"}},                        # change the repo, as the agent did
        {"hook": "<hook name>", "payload": "relative/payload.json"},
        {"resume": "<session id>"}
      ]
    }

``{root}`` is a fresh temporary directory, ``{repo}`` the git repository inside it (the Entire
repository root and the plugin's cwd), ``{home}`` the HOME given to the plugin. ``write`` with
``lines`` writes only the first lines of the capture, so a transcript grows turn by turn as it did.
Nothing touches the network or needs the agent's own binary.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from entire_sim.report import render
from entire_sim.simulator import Simulator

WORKSPACE = Path(__file__).resolve().parents[4]


def manifests(workspace: Path = WORKSPACE) -> list[Path]:
    """Every agent package's replay manifest, in package order."""
    return sorted(workspace.glob("packages/*/demo/replay.json"))


def _substitute(data: bytes, table: dict[str, str]) -> bytes:
    for old, new in table.items():
        data = data.replace(old.encode(), new.encode())
    return data


def make_repo(repo: Path) -> None:
    """A git repository with one commit, as Entire needs for checkpoints."""
    repo.mkdir(parents=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "demo", "GIT_AUTHOR_EMAIL": "demo@example.invalid",
           "GIT_COMMITTER_NAME": "demo", "GIT_COMMITTER_EMAIL": "demo@example.invalid"}  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["add", "README.md"], ["commit", "-q", "-m", "initial"]):
        if args[0] == "add":
            (repo / "README.md").write_text("# demo repository\n", encoding="utf-8")
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


class Replay:
    """One manifest replayed in a fresh sandbox."""

    def __init__(self, manifest: Path, root: Path) -> None:
        self.manifest = manifest
        self.spec: dict[str, Any] = json.loads(manifest.read_text(encoding="utf-8"))
        self.root = root
        self.repo = root / "repo"
        self.home = root / "home"
        self.vars = {"{root}": str(root), "{repo}": str(self.repo), "{home}": str(self.home)}
        self.table = {k: self.expand(v) for k, v in self.spec.get("placeholders", {}).items()}

    def expand(self, text: str) -> str:
        """``text`` with {root}, {repo} and {home} replaced by this replay's paths."""
        for key, value in self.vars.items():
            text = text.replace(key, value)
        return text

    def read(self, relative: str) -> bytes:
        """A file of the manifest's package, with the captured paths rewritten to this replay's."""
        return _substitute((self.manifest.parent / relative).read_bytes(), self.table)

    def run(self) -> tuple[Simulator, list[str]]:
        """Replay every step; return the simulator (for its records) and notes for the report."""
        make_repo(self.repo)
        self.home.mkdir(parents=True)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(self.home), "LANG": "C.UTF-8"}
        env.update({k: self.expand(v) for k, v in self.spec.get("env", {}).items()})
        sim = Simulator(self.repo, state_dir=self.root / "state", env=env)
        notes = [f"enable: {sim.enable(self.spec['agent'])} hooks installed"]
        for step in self.spec["steps"]:
            if "write" in step:
                data = self.read(step["from"])
                if "lines" in step:
                    data = b"".join(data.splitlines(keepends=True)[: step["lines"]])
                target = Path(self.expand(step["write"]))
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            elif "files" in step:
                for name, content in step["files"].items():
                    path = self.repo / name
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(content, encoding="utf-8")
            elif "hook" in step:
                sim.hook(self.spec["agent"], step["hook"], self.read(step["payload"]))
            elif "resume" in step:
                result = sim.resume(self.spec["agent"], step["resume"], chunk_size=step.get("chunk_size"))
                notes.append(f"resume: {result['command']} (restored {result['restored_bytes']:,} bytes)")
        sim.disable(self.spec["agent"])
        return sim, notes


def run(agent: str | None = None, *, keep: bool = False, out: Any = None) -> int:
    """Replay every bundled session (or one agent's); 0 when no protocol violation occurred."""
    out = out or sys.stdout
    every = {json.loads(m.read_text(encoding="utf-8"))["agent"]: m for m in manifests()}
    if not every:
        raise LookupError(
            "no agent package with a bundled session (packages/*/demo/replay.json) is installed"
        )
    if agent is not None and agent not in every:
        raise LookupError(
            f"unknown agent {agent!r}: the agents with a bundled session are {', '.join(sorted(every))}"
        )
    found = [every[agent]] if agent is not None else list(every.values())
    total_errors = 0
    for manifest in found:
        root = Path(tempfile.mkdtemp(prefix="entire-demo-"))
        replay = Replay(manifest, root)
        sim, notes = replay.run()
        errors = sim.errors() + [{"message": r["error"]} for r in sim.hook_calls() if r.get("error")]
        total_errors += len(errors)
        out.write(render(replay.spec["agent"], replay.spec.get("title", ""), sim.hook_calls(), sim.checkpoints(),
                         sim.violations(), notes) + "\n")  # fmt: skip
        if keep:
            out.write(f"   state kept in {root}\n")
        else:
            shutil.rmtree(root, ignore_errors=True)
        out.write("\n")
    out.write(f"{len(found)} agent(s) replayed, {total_errors} protocol violation(s)\n")
    return 0 if total_errors == 0 else 1
