"""The simulator held to what the real host recorded (``tests/data/host/<agent>.json``; ``make host-record``).

Runs in ``make test`` (no host needed). Each recorded hook is fed to ``entire-sim`` in order, with the
agent's own session file put back as it stood at that hook (a prefix of the recorded final bytes, of
the recorded size and sha256), and the plugin calls the simulator makes for that hook are compared
with the calls the host made: the same subcommands in the same order, with the same ``--offset``.

Commits are replayed too: where the host's git hook condensed a session (a process without a hook
that asks ``calculate-total-tokens``), the simulator condenses the session of the last hook.

What the simulator does differently is a simulator bug. Those not fixed yet are listed, with what the
host did, in ``tests/data/host/sim-differences.json``: a fix (or a new difference) changes the list,
and this test says so (``ENTIRE_SIM_DIFFERENCES=update`` rewrites it after a fix). Not replayed yet:
``session resume``, and the Aider launcher's own state files (Aider's hooks parse to no event here).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parents[1] / "data" / "host"
RECORDINGS = sorted(p for p in DATA.glob("*.json") if p.name != "sim-differences.json")
HOOK_FOLLOW_UPS = ("get-transcript-position", "prepare-transcript", "read-transcript", "extract-prompts",
                   "extract-all-modified-files", "extract-modified-files", "calculate-total-tokens")  # fmt: skip
"""The calls a hook leads to that this replay compares (discovery, ``write-hook-response`` left out)."""

KNOWN = DATA / "sim-differences.json"
"""Per agent, the differences found and not fixed yet (``ENTIRE_SIM_DIFFERENCES=update`` rewrites it)."""


def _offset(args: list[str]) -> str:
    return args[args.index("--offset") + 1] if "--offset" in args else ""


def host_steps(record: dict[str, Any]) -> list[tuple[str, dict[str, Any] | None, list[tuple[str, str]]]]:
    """The host's ``entire`` processes that called the agent's plugin beyond discovery, in order:
    ``("hook", parse-hook call, follow-ups)`` for a hook, ``("commit", None, calls)`` for a git hook's
    condensation (a process without ``parse-hook`` that asks ``calculate-total-tokens``).

    A process starts with discovery (``info`` on every plugin on PATH).
    """
    processes: list[list[dict[str, Any]]] = []
    previous = ""
    for call in record["calls"]:
        if call["subcommand"] == "info" and previous != "info":
            processes.append([])
        previous = call["subcommand"]
        if (
            processes
            and call["agent"] == record["agent"]
            and call["subcommand"] not in ("info", "get-session-dir")
        ):
            processes[-1].append(call)
    steps: list[tuple[str, dict[str, Any] | None, list[tuple[str, str]]]] = []
    for calls in processes:
        follow = [(c["subcommand"], _offset(c["args"])) for c in calls if c["subcommand"] in HOOK_FOLLOW_UPS]
        hooks = [c for c in calls if c["subcommand"] == "parse-hook"]
        if hooks:
            steps.append(("hook", hooks[0], follow))
        elif any(c["subcommand"] == "calculate-total-tokens" for c in calls):
            steps.append(("commit", None, follow))
    return steps


def _final_bytes(record: dict[str, Any]) -> dict[str, bytes]:
    return {
        name: gzip.decompress((DATA / meta["blob"]).read_bytes()) for name, meta in record["files"].items()
    }


def _is_view(name: str) -> bool:
    return "/xdg-state/entire-agent-" in name


def same_length_world(original: str) -> Path:
    """A fresh directory whose path is as long as the recorded world's: the session files name it, and
    byte offsets into them must stay what the host saw."""
    base = Path(tempfile.mkdtemp(prefix="h"))
    pad = len(original) - len(str(base)) - 1
    assert pad > 0, f"the recorded world {original} is too short to replay under {base}"
    world = base / ("w" * pad)
    world.mkdir()
    return world


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.stem for p in RECORDINGS])
def test_the_simulator_makes_the_hosts_calls_at_each_hook(
    path: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    from entire_sim import Simulator

    record = json.loads(path.read_text(encoding="utf-8"))
    agent = record["agent"]
    world = same_length_world(record["world_root"])
    request.addfinalizer(lambda: shutil.rmtree(world.parent, ignore_errors=True))
    repo = world / "repo"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "the user's project"], cwd=repo, check=True)
    final = _final_bytes(record)
    bin_dir = str(Path(sys.executable).parent)
    env = {"PATH": os.pathsep.join([bin_dir, "/usr/bin", "/bin"]), "HOME": str(world / "home"),
           "XDG_STATE_HOME": str(world / "xdg-state"), "XDG_DATA_HOME": str(world / "xdg-data"),
           "XDG_CONFIG_HOME": str(world / "xdg-config"), "XDG_CACHE_HOME": str(world / "xdg-cache"),
           "TMPDIR": str(tmp_path), "CODEX_HOME": str(world / "codex-home"), "LANG": "C.UTF-8"}  # fmt: skip
    sim = Simulator(repo, state_dir=world / "sim", env=env)
    differences: list[str] = []
    from entire_sim.lifecycle import HookRun

    last_session = ""
    for index, (kind, call, host) in enumerate(host_steps(record)):
        if kind == "commit":
            plugin = sim.plugin(agent)
            with sim.state.lock():
                HookRun(plugin, sim.state, str(sim.repo)).condense(last_session)
            simulated = [
                (c.subcommand, _offset(c.args)) for c in plugin.calls if c.subcommand in HOOK_FOLLOW_UPS
            ]
            if simulated != host:
                differences.append(f"step {index} (commit): host {host}, simulator {simulated}")
            continue
        assert call is not None
        for name, (size, digest) in call.get("files", {}).items():
            if _is_view(name) or name not in final:
                continue
            target = Path(name.replace("$WORLD", str(world)))
            target.parent.mkdir(parents=True, exist_ok=True)
            data = final[name][:size]
            if hashlib.sha256(data).hexdigest() != digest:
                differences.append(f"step {index}: {name} at {size} bytes is not a prefix of its final bytes")
            target.write_bytes(data.replace(record["world_root"].encode(), str(world).encode()))
        payload = call["stdin"].replace("$WORLD", str(world)).encode()
        hook = call["args"][call["args"].index("--hook") + 1]
        ran = sim.hook(agent, hook, payload)
        if ran["event"] and ran["event"].get("session_id"):
            last_session = ran["event"]["session_id"]
        simulated = [
            (c["subcommand"], _offset(c["args"])) for c in ran["calls"] if c["subcommand"] in HOOK_FOLLOW_UPS
        ]
        if simulated != host:
            differences.append(f"step {index} ({hook}): host {host}, simulator {simulated}")
    known: dict[str, list[str]] = json.loads(KNOWN.read_text(encoding="utf-8")) if KNOWN.exists() else {}
    if os.environ.get("ENTIRE_SIM_DIFFERENCES") == "update":
        known[agent] = differences
        KNOWN.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assert differences == known.get(agent, []), "\n".join(differences)
