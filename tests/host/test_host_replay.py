"""The simulator held to what the real host recorded (``tests/data/host/<agent>.json``; ``make host-record``).

Runs in ``make test`` (no host needed). Each recorded hook is fed to ``entire-sim`` in order, with the
agent's own session file put back as it stood at that hook (a prefix of the recorded final bytes, of
the recorded size and sha256), and the plugin calls the simulator makes for that hook are compared
with the calls the host made: the same subcommands in the same order, with the same ``--offset``.

Commits are replayed too: where the host's git hook condensed a session (a process without a hook
that asks ``calculate-total-tokens``), the files its checkpoint names are committed and the simulator
runs its post-commit for the session of the last hook (every session of the worktree is looked at).
Before each hook, the files the next checkpoint names are left changed in the work tree (as the agent
left them for the host: a file renamed away after an earlier commit still counts as a change). A commit during a turn finds the agent's file grown past the
last hook: it is grown line by line until the plugin's ``extract-modified-files`` answers what it
answered the host.

What the simulator does differently is a simulator bug. Those not fixed yet are listed, with what the
host did, in ``tests/data/host/sim-differences.json``: a fix (or a new difference) changes the list,
and this test says so (``ENTIRE_SIM_DIFFERENCES=update`` rewrites it after a fix). Not replayed:
``session resume``; the Aider launcher's own state files (its plugin parses no event without them,
so its recorded view is put back and the host's event replayed). A session file deleted before the
end (Gemini's first chat file, for the resume test) is recorded as its last hook saw it.
"""

from __future__ import annotations

import contextlib
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
    ``("hook", parse-hook call, follow-ups)`` for a hook, ``("commit", first extract-modified-files call
    or None, calls)`` for a git hook's condensation (a process without ``parse-hook`` that asks
    ``calculate-total-tokens``).

    A process starts with discovery (``info`` on every plugin on PATH). Its calls are those of its
    ``host_pid``: hooks an agent fires at once run concurrently and their calls interleave (a recording
    without ``host_pid`` takes each call for the latest process's).
    """
    processes: list[list[dict[str, Any]]] = []
    current: dict[Any, list[dict[str, Any]]] = {}  # by host_pid: that process's calls
    previous: dict[Any, str] = {}
    for call in record["calls"]:
        pid = call.get("host_pid")
        if call["subcommand"] == "info" and previous.get(pid) != "info":
            current[pid] = []
            processes.append(current[pid])
        previous[pid] = call["subcommand"]
        if (
            pid in current
            and call["agent"] == record["agent"]
            and call["subcommand"] not in ("info", "get-session-dir")
        ):
            current[pid].append(call)
    steps: list[tuple[str, dict[str, Any] | None, list[tuple[str, str]]]] = []
    for calls in processes:
        follow = [(c["subcommand"], _offset(c["args"])) for c in calls if c["subcommand"] in HOOK_FOLLOW_UPS]
        hooks = [c for c in calls if c["subcommand"] == "parse-hook"]
        if hooks:
            steps.append(("hook", hooks[0], follow))
        elif any(c["subcommand"] == "calculate-total-tokens" for c in calls):
            extract = next((c for c in calls if c["subcommand"] == "extract-modified-files"), None)
            steps.append(("commit", extract, follow))
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


def grow_to_the_hosts_answer(
    sim: Any, agent: str, call: dict[str, Any], native: tuple[Path, bytes, int], ref: str
) -> None:
    """Put the agent's session file back as it stood at a commit during a turn.

    Hooks record their files' sizes; commits do not. The agent kept writing after the last hook, so the
    file is grown line by line from there until the plugin's ``extract-modified-files`` on the session's
    ``ref`` answers what it answered the host (files and position), else left at the last hook's size.
    """
    from entire_sim.plugin import CallFailed

    path, data, size = native
    offset = call["args"][call["args"].index("--offset") + 1]
    for end in [i + 1 for i in range(size, len(data)) if data[i] == 0x0A]:
        path.write_bytes(data[:end])
        plugin = sim.plugin(agent)
        with contextlib.suppress(CallFailed):  # the host ignores a failed prepare as well
            plugin.run("prepare-transcript", "--session-ref", ref)
        with contextlib.suppress(CallFailed):
            answer = plugin.run("extract-modified-files", "--path", ref, "--offset", offset).stdout
            if hashlib.sha256(answer).hexdigest() == call["answer_sha256"]:
                return
    path.write_bytes(data[:size])


def commit_the_files(repo: Path, files: list[str]) -> None:
    """The commit a condensation follows, with the files its checkpoint names (their contents are not
    recorded: a file the agent left is committed as it is, a missing one as a placeholder), so that
    files committed during a turn are in HEAD as the host saw them."""
    for name in files:
        path = repo / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"{name}\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A", "--", *files], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "a scripted commit"], cwd=repo, check=True)


def the_agents_changes(repo: Path, files: list[str]) -> None:
    """The files the next checkpoint names, changed in the work tree as the agent left them for the
    host: their contents are not recorded, so each one that HEAD holds as it is gets a line added."""
    for name in files:
        path = repo / name
        head = subprocess.run(["git", "show", f"HEAD:{name}"], cwd=repo, capture_output=True, check=False)
        if head.returncode == 0 and path.is_file() and path.read_bytes() == head.stdout:
            path.write_bytes(head.stdout + b"as the agent left it\n")


def replay_the_hosts_event(sim: Any, agent: str, hook: str, answer: str) -> dict[str, Any]:
    """What follows ``parse-hook`` for the event the plugin answered the host.

    Aider's plugin reads the launcher's own state files to parse a hook; they are not recorded, so
    here it answers no event. Its view is put back as recorded instead, and the host's event replayed.
    """
    from entire_sim import godecode
    from entire_sim.lifecycle import HookRun

    plugin = sim.plugin(agent)
    with sim.state.lock():
        return HookRun(plugin, sim.state, str(sim.repo)).replay(
            hook, godecode.decode("parse-hook", answer.encode())
        )


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
    # the recorded commits with a checkpoint: one per condensing commit step, in order
    checkpointed = [c for c in record["commits"] if c["checkpoint"]]
    commits_done = 0
    native: tuple[Path, bytes, int] | None = None  # the last hook's own session file: path, final bytes, size
    for index, (kind, call, host) in enumerate(host_steps(record)):
        if kind == "commit":
            session = sim.state.session(last_session) or {}
            if call is not None and native is not None and session.get("transcript_path"):
                grow_to_the_hosts_answer(sim, agent, call, native, session["transcript_path"])
            upcoming = checkpointed[commits_done] if commits_done < len(checkpointed) else {}
            commits_done += 1
            commit_the_files(repo, upcoming.get("files_touched") or [])
            plugin = sim.plugin(agent)
            with sim.state.lock():
                HookRun(plugin, sim.state, str(sim.repo)).post_commit(last_session)
            simulated = [
                (c.subcommand, _offset(c.args)) for c in plugin.calls if c.subcommand in HOOK_FOLLOW_UPS
            ]
            if simulated != host:
                differences.append(f"step {index} (commit): host {host}, simulator {simulated}")
            continue
        assert call is not None
        files = call.get("files", {})
        # a hook that names only our view (Aider's): the agent's own file comes from its launcher's state
        view_only = bool(files) and all(_is_view(name) for name in files)
        for name, (size, digest) in files.items():
            if (_is_view(name) and not view_only) or name not in final:
                continue
            target = Path(name.replace("$WORLD", str(world)))
            target.parent.mkdir(parents=True, exist_ok=True)
            data = final[name][:size]
            if hashlib.sha256(data).hexdigest() != digest:
                differences.append(f"step {index}: {name} at {size} bytes is not a prefix of its final bytes")
            target.write_bytes(data.replace(record["world_root"].encode(), str(world).encode()))
            native = (target, final[name].replace(record["world_root"].encode(), str(world).encode()), size)
        if commits_done < len(checkpointed):
            the_agents_changes(repo, checkpointed[commits_done].get("files_touched") or [])
        payload = call["stdin"].replace("$WORLD", str(world)).encode()
        hook = call["args"][call["args"].index("--hook") + 1]
        ran = sim.hook(agent, hook, payload)
        if view_only and ran["event"] is None and call.get("answer", "").strip() not in ("", "null"):
            ran = replay_the_hosts_event(sim, agent, hook, call["answer"].replace("$WORLD", str(world)))
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
