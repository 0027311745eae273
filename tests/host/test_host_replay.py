"""The simulator held to what the real host recorded (``tests/data/host/<agent>.json``; ``make host-record``).

Runs in ``make test`` (no host needed). Each recorded hook is fed to ``entire-sim`` in order, with the
agent's own session file put back as it stood at that hook (a prefix of the recorded bytes, of the
recorded size and sha256), and the plugin calls the simulator makes for that hook are compared with
the calls the host made: the same subcommands in the same order, with the same ``--offset``. A file the
plugin reads besides (a side file: Aider's analytics log, whence its exact token counts) is put back
before each hook and each commit as the host's ``entire`` process found it at its start (the call's
``side_files``, noted by ``harness.World``; the same prefix of its recorded bytes).

Commits are replayed too: where the host's git hook condensed a session (a process without a hook
that asks ``calculate-total-tokens``), the files its checkpoint names are committed and the simulator
runs its post-commit for the session of the last hook (every session of the worktree is looked at).
A commit the host did not condense (no trailer: none of its processes ran for it, as for Gemini CLI's
own commits) is made as well, in the turn that named its files (``commits_without_trailer``), and the
simulator is told it carries no trailer.
Before each hook, the files the next checkpoint names are left changed in the work tree (as the agent
left them for the host: a file renamed away after an earlier commit still counts as a change; a file
the agent created is written at the hooks where the host saw new work, which asked
``calculate-total-tokens``). A commit during a
turn finds the agent's file grown past the last hook: it is grown line by line until the plugin's view
is the bytes the host's ``calculate-total-tokens`` read there.

What each checkpoint stored is compared too, read back at the end (as the host's were recorded) from
the simulator's ``refs/entire/checkpoints/`` with the readers that read the host's
(``harness.read_checkpoints``): per session ``prompt.txt``, ``files_touched``, ``token_usage``, the two
transcript starts, ``full.jsonl`` (size, lines, sha256) and ``content_hash.txt``, and of
``transcript.jsonl`` its line count and the prompts and replies it holds from
``compact_transcript_start`` on. Not its bytes: the simulator's compactor (``entire_sim.compact``, on
the port in ``entire_core.testing.compactor``) knows each line's kind, text and tool names, not the
rest of the host's line (timestamps, ids, tool inputs and results). Paths of the replay's world are
put back to the recorded world's before comparing (the same length: sizes hold).

Last, ``entire session resume``: the session's files are deleted and the simulator restores them from
its newest checkpoint of the session, with the host's calls (``resolve-session-file``,
``write-session`` with a stdin of the host's length, ``format-resume-command``) and the host's restored
file (size and sha256).

What the simulator does differently is a simulator bug. Those not fixed yet are listed, with what the
host did, in ``tests/data/host/sim-differences.json``: a fix (or a new difference) changes the list,
and this test says so (``ENTIRE_SIM_DIFFERENCES=update`` rewrites it after a fix). Not replayed: the
Aider launcher's own state files (its plugin parses no event without them, so its recorded view is
put back and the host's event replayed). A session file deleted before the end (Gemini's first chat file, for
the resume test) is recorded as its last hook saw it, and a file the agent rewrote with its earlier
states as well.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import re
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


def host_steps(record: dict[str, Any]) -> list[tuple[str, dict[str, Any], list[tuple[str, str]]]]:
    """The host's ``entire`` processes that called the agent's plugin beyond discovery, in order:
    ``("hook", parse-hook call, follow-ups)`` for a hook, ``("commit", calculate-total-tokens call,
    follow-ups)`` for a git hook's condensation (a process without ``parse-hook`` that asks
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
    steps: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = []
    for calls in processes:
        follow = [(c["subcommand"], _offset(c["args"])) for c in calls if c["subcommand"] in HOOK_FOLLOW_UPS]
        hooks = [c for c in calls if c["subcommand"] == "parse-hook"]
        tokens = [c for c in calls if c["subcommand"] == "calculate-total-tokens"]
        if hooks:
            steps.append(("hook", hooks[0], follow))
        elif tokens:
            steps.append(("commit", tokens[0], follow))
    return steps


def _recorded_bytes(record: dict[str, Any]) -> dict[str, list[bytes]]:
    """Each recorded file's bytes: its final ones, then those of its earlier states that are no prefix
    of them (a file the agent rewrote)."""
    return {
        name: [gzip.decompress((DATA / m["blob"]).read_bytes()) for m in [meta, *meta.get("earlier", [])]]
        for name, meta in record["files"].items()
    }


def _as_it_stood(states: list[bytes], size: int, digest: str) -> bytes:
    """The recorded bytes of which the file at a hook (``size`` bytes, ``digest``) is a prefix; the
    final bytes where none is."""
    return next((d for d in states if hashlib.sha256(d[:size]).hexdigest() == digest), states[0])


def put_back(name: str, size: int, digest: str, final: dict[str, list[bytes]], world: Path, root: str,
             differences: list[str], step: int) -> tuple[Path, bytes, int]:  # fmt: skip
    """The recorded file ``name`` written as it stood (``size`` bytes, ``digest``) into the replay's
    ``world``: its path, its whole recorded bytes (the host's ``root`` made the replay's) and ``size``."""
    target = Path(name.replace("$WORLD", str(world)))
    target.parent.mkdir(parents=True, exist_ok=True)
    whole = _as_it_stood(final[name], size, digest)
    if hashlib.sha256(whole[:size]).hexdigest() != digest:
        differences.append(f"step {step}: {name} at {size} bytes is not a prefix of its recorded bytes")
    whole = whole.replace(root.encode(), str(world).encode())
    target.write_bytes(whole[:size])
    return target, whole, size


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


def grow_to_what_the_host_read(
    sim: Any, agent: str, call: dict[str, Any], native: tuple[Path, bytes, int], ref: str, world: Path, root: str
) -> None:  # fmt: skip
    """Put the agent's session file back as it stood at a commit during a turn.

    Hooks record their files' sizes; commits do not. The agent kept writing after the last hook, so the
    file is grown line by line from there until the plugin's view (``ref``, prepared) is what the host's
    ``calculate-total-tokens`` read at the commit (``call``: its stdin's sha256, the replay's ``world``
    put back to the host's ``root``), else left at the last hook's size. (What the host stored for such a commit
    does not tell: it replaced the transcript at the turn's end.)
    """
    from entire_sim.plugin import CallFailed

    path, data, size = native
    for end in [size, *[i + 1 for i in range(size, len(data)) if data[i] == 0x0A]]:
        path.write_bytes(data[:end])
        with contextlib.suppress(CallFailed):  # the host ignores a failed prepare as well
            sim.plugin(agent).run("prepare-transcript", "--session-ref", ref)
        seen = _as_recorded(Path(ref).read_bytes(), root, world) if Path(ref).is_file() else b""
        if hashlib.sha256(seen).hexdigest() == call["stdin_sha256"]:
            return
    path.write_bytes(data[:size])


def commits_without_trailer(
    record: dict[str, Any], steps: list[tuple[str, dict[str, Any] | None, list[tuple[str, str]]]]
) -> dict[int, list[str]]:  # fmt: skip
    """The commits the host did not condense (no trailer: none of its processes ran for them, as for
    Gemini CLI's own commits), by the step before whose hook the replay makes each, with its files.

    The record keeps neither their files nor their moment. Such a commit is the agent's, in a turn, of
    files the turn named (the plugin's answers to the host at its end) that the next checkpoint does
    not name: it is made before the first hook since the condensation before it that named such files."""
    named: dict[Any, list[str]] = {}  # by host_pid: the files a process's extract answers named
    for c in record["calls"]:
        if c["agent"] == record["agent"] and c["subcommand"].startswith("extract-") and c.get("answer"):
            named.setdefault(c.get("host_pid"), []).extend(json.loads(c["answer"]).get("files") or [])
    pending: list[list[dict[str, Any]]] = [[]]  # per condensation, the commits without trailer before it
    for commit in record["commits"]:
        if commit["checkpoint"]:
            pending.append([])
        else:
            pending[-1].append(commit)
    later = [c.get("files_touched") or [] for c in record["commits"] if c["checkpoint"]] + [[]]
    out: dict[int, list[str]] = {}
    condensed = 0
    for index, (kind, call, _) in enumerate(steps):
        if kind == "commit":
            condensed += 1
            continue
        files = [f for f in named.get((call or {}).get("host_pid"), []) if f not in later[condensed]]
        if pending[condensed] and files:
            pending[condensed].pop(0)
            out[index] = files
    return out


def commit_the_files(repo: Path, files: list[str]) -> None:
    """A commit of ``files``: those its checkpoint names, or the agent's without trailer (their
    contents are not recorded: a file the agent left is committed as it is, a missing one as a
    placeholder), so that files committed during a turn are in HEAD as the host saw them."""
    for name in files:
        path = repo / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"{name}\n", encoding="utf-8")
    subprocess.run(["git", "add", "-A", "--", *files], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "a scripted commit"], cwd=repo, check=True)


def the_agents_changes(repo: Path, files: list[str], *, create: bool) -> None:
    """The files the next checkpoint names, changed in the work tree as the agent left them for the
    host: their contents are not recorded, so each one that HEAD holds as it is gets a line added, and
    with ``create`` each one neither HEAD nor the work tree holds is written (a file the agent created:
    when it did is not recorded either, so it is written where the host saw new work, at a hook that
    asked ``calculate-total-tokens``; written earlier, the host's own rule would not count it there,
    as a file already untracked at the turn's start)."""
    for name in files:
        path = repo / name
        head = subprocess.run(["git", "show", f"HEAD:{name}"], cwd=repo, capture_output=True, check=False)
        if head.returncode == 0 and path.is_file() and path.read_bytes() == head.stdout:
            path.write_bytes(head.stdout + b"as the agent left it\n")
        elif create and head.returncode != 0 and not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"{name}\n", encoding="utf-8")


STORED = ("prompt", "files_touched", "token_usage", "checkpoint_transcript_start", "compact_transcript_start",
          "full", "content_hash", "transcript_lines", "transcript_scope")  # fmt: skip
"""What a checkpoint stored per session that the replay compares (``stored_fields``)."""


def stored_fields(part: Any, world: Path, root: str) -> dict[str, Any]:
    """A checkpoint's session as the record keeps it, paths of the replay's world put back to the host's
    (same length: sizes and line counts hold); ``transcript.jsonl`` by its line count and the prompts
    and replies of this checkpoint's part, not its bytes (the simulator's lines are not the host's:
    ``entire_sim.compact``)."""
    from harness import line_count, sha256, transcript_texts

    full = part.full.replace(str(world).encode(), root.encode())
    meta = part.metadata
    start = meta.get("compact_transcript_start")
    users, replies = transcript_texts(b"".join(part.transcript.splitlines(keepends=True)[start or 0 :]))
    own = part.content_hash == f"sha256:{sha256(part.full)}"
    return {"prompt": part.prompt, "files_touched": meta.get("files_touched"), "token_usage": meta.get("token_usage"),
            "checkpoint_transcript_start": meta.get("checkpoint_transcript_start", 0), "compact_transcript_start": start,
            "full": {"size": len(full), "lines": line_count(full), "sha256": sha256(full)},
            "content_hash": f"sha256:{sha256(full)}" if own else f"{part.content_hash} (not full.jsonl's)",
            "transcript_lines": line_count(part.transcript),
            "transcript_scope": {"prompts": users, "replies": replies}}  # fmt: skip


def host_fields(session: dict[str, Any]) -> dict[str, Any]:
    """A recorded checkpoint session's fields as ``stored_fields`` gives the simulator's."""
    return {**{k: session.get(k) for k in STORED}, "transcript_lines": session["transcript"]["lines"]}


def stored_differences(step: str, host: dict[str, Any], checkpoint: dict[str, Any] | None, repo: Path,
                       world: Path, root: str) -> list[str]:  # fmt: skip
    """Where what the simulator stored at a commit (read back from its refs as the host's were,
    ``harness.read_checkpoints``) differs from what the host stored there."""
    from harness import read_checkpoints

    label = f"{step} ({host['label']})"
    if checkpoint is None or not checkpoint.get("checkpoint_id"):
        return [f"{label}: host stored a checkpoint, simulator none"]
    point = read_checkpoints(repo, "git-refs").get(checkpoint["checkpoint_id"])
    if point is None:
        return [f"{label}: simulator's checkpoint {checkpoint['checkpoint_id']} is not in its refs"]
    out: list[str] = []
    if point.metadata.get("files_touched") != host["files_touched"]:
        out.append(
            f"{label} files_touched: host {host['files_touched']}, simulator {point.metadata.get('files_touched')}"
        )
    hosts, sims = host["sessions"], [stored_fields(p, world, root) for p in point.sessions]
    if len(hosts) != len(sims):
        out.append(f"{label}: host stored {len(hosts)} sessions, simulator {len(sims)}")
    for n, (want, got) in enumerate(zip(map(host_fields, hosts), sims, strict=False)):
        out += [
            f"{label} session {n} {k}: host {want[k]!r}, simulator {got[k]!r}"
            for k in STORED
            if want[k] != got[k]
        ]
    return out


def _munged(path: str) -> str:
    """A path as Qwen Code names its project directory after it: every character outside ``[a-zA-Z0-9]``
    a ``-``."""
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in path)


def _in_the_replay(path: str, root: str, world: Path) -> str:
    """A recorded path (``$WORLD/...``, and a directory named after the recorded repository) in the replay."""
    return path.replace(_munged(root), _munged(str(world))).replace("$WORLD", str(world))


def _as_recorded(data: bytes, root: str, world: Path) -> bytes:
    """Bytes of the replay with its world's path (as is, and as Qwen Code's directory names) the host's."""
    return data.replace(str(world).encode(), root.encode()).replace(
        _munged(str(world)).encode(), _munged(root).encode()
    )


def _portable(arg: str, world: str) -> str:
    """A flag's value with the world's path as ``$WORLD`` and the views' directory name, which the
    plugins make from a digest of the repository's path, as ``repo-<digest>``."""
    return re.sub(r"/views/repo-[0-9a-f]{16}", "/views/repo-<digest>", arg.replace(world, "$WORLD"))


RESUME_CALLS = ("resolve-session-file", "write-session", "format-resume-command")
"""The calls ``entire session resume`` makes of the plugin (discovery and ``get-session-dir`` left out)."""


def resume_differences(sim: Any, record: dict[str, Any], world: Path) -> list[str]:
    """``entire session resume`` replayed as the host ran it: the session's files deleted, then restored
    through the plugin from the simulator's newest checkpoint of the session. The same calls (flags, and
    ``write-session``'s stdin by length) and the same restored file as the host's."""
    from entire_sim.plugin import CallFailed
    from harness import sha256

    host = [c for c in record["calls"] if c["agent"] == record["agent"] and c["subcommand"] in RESUME_CALLS]
    session_id = next(c["args"][-1] for c in host if c["subcommand"] == "format-resume-command")
    native = Path(_in_the_replay(record["resume"]["path"], record["world_root"], world))
    view = (sim.state.session(session_id) or {}).get("transcript_path", "")
    for path in (native, *([Path(view)] if view else [])):
        path.unlink(missing_ok=True)
    out: list[str] = []
    try:
        sim.resume(record["agent"], session_id)
    except (LookupError, CallFailed) as exc:
        out.append(f"resume: simulator failed: {exc}")
    resumes = sim.state.records("resumes")
    calls = [c for c in (resumes[-1]["calls"] if resumes else []) if c["subcommand"] in RESUME_CALLS]
    simulated = [
        (c["subcommand"], [_portable(a, str(world)) for a in c["args"]], c["stdin_bytes"]) for c in calls
    ]
    wanted = [(c["subcommand"], [_portable(a, "$WORLD") for a in c["args"]], c["stdin_len"]) for c in host]
    if simulated != wanted:
        out.append(f"resume: host {wanted}, simulator {simulated}")
    data = _as_recorded(native.read_bytes(), record["world_root"], world) if native.exists() else b""
    restored = {"size": len(data), "sha256": sha256(data)}
    if restored != {k: record["resume"][k] for k in restored}:
        out.append(f"resume: host restored {record['resume']}, simulator {restored}")
    return out


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
    final = _recorded_bytes(record)
    bin_dir = str(Path(sys.executable).parent)
    # TZ as the host's (harness.World): Aider's session header is local time, matched to its analytics log
    env = {"PATH": os.pathsep.join([bin_dir, "/usr/bin", "/bin"]), "HOME": str(world / "home"),
           "XDG_STATE_HOME": str(world / "xdg-state"), "XDG_DATA_HOME": str(world / "xdg-data"),
           "XDG_CONFIG_HOME": str(world / "xdg-config"), "XDG_CACHE_HOME": str(world / "xdg-cache"),
           "TMPDIR": str(tmp_path), "CODEX_HOME": str(world / "codex-home"), "LANG": "C.UTF-8",
           "TZ": "UTC"}  # fmt: skip
    sim = Simulator(repo, state_dir=world / "sim", env=env)
    differences: list[str] = []
    from entire_sim.lifecycle import HookRun

    last_session = ""
    # the recorded commits with a checkpoint: one per condensing commit step, in order
    checkpointed = [c for c in record["commits"] if c["checkpoint"]]
    commits_done = 0
    condensed: list[
        tuple[str, dict[str, Any], dict[str, Any] | None]
    ] = []  # step, host's commit, simulator's checkpoint
    native: tuple[Path, bytes, int] | None = None  # the last hook's own session file: path, final bytes, size
    steps = host_steps(record)
    without_trailer = commits_without_trailer(record, steps)
    for index, (kind, call, host) in enumerate(steps):
        # the files a plugin reads besides the session files (Aider's analytics log), as the host's process found them
        for name, (size, digest) in call.get("side_files", {}).items():
            put_back(name, size, digest, final, world, record["world_root"], differences, index)
        if kind == "commit":
            session = sim.state.session(last_session) or {}
            mid_turn = any(name == "extract-modified-files" for name, _ in host)
            if mid_turn and native is not None and session.get("transcript_path"):
                grow_to_what_the_host_read(
                    sim, agent, call, native, session["transcript_path"], world, record["world_root"]
                )
            upcoming = checkpointed[commits_done] if commits_done < len(checkpointed) else {}
            commits_done += 1
            commit_the_files(repo, upcoming.get("files_touched") or [])
            plugin = sim.plugin(agent)
            with sim.state.lock():
                checkpoint = HookRun(plugin, sim.state, str(sim.repo)).post_commit(last_session)
            simulated = [
                (c.subcommand, _offset(c.args)) for c in plugin.calls if c.subcommand in HOOK_FOLLOW_UPS
            ]
            if simulated != host:
                differences.append(f"step {index} (commit): host {host}, simulator {simulated}")
            if upcoming:
                condensed.append((f"step {index}", upcoming, checkpoint))
            continue
        files = call.get("files", {})
        # a hook that names only our view (Aider's): the agent's own file comes from its launcher's state
        view_only = bool(files) and all(_is_view(name) for name in files)
        for name, (size, digest) in files.items():
            if (_is_view(name) and not view_only) or name not in final:
                continue
            native = put_back(name, size, digest, final, world, record["world_root"], differences, index)
        if index in without_trailer:  # made during the turn, without Entire's git hooks
            commit_the_files(repo, without_trailer[index])
            sim.commit_without_trailer()
        if commits_done < len(checkpointed):
            # a file the agent created is put there where the host saw new work (it asked for tokens)
            saved = any(name == "calculate-total-tokens" for name, _ in host)
            the_agents_changes(repo, checkpointed[commits_done].get("files_touched") or [], create=saved)
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
    for step, upcoming, checkpoint in condensed:  # read at the end, as the host's were
        differences += stored_differences(step, upcoming, checkpoint, repo, world, record["world_root"])
    if "resume" in record:
        differences += resume_differences(sim, record, world)
    known: dict[str, list[str]] = json.loads(KNOWN.read_text(encoding="utf-8")) if KNOWN.exists() else {}
    if os.environ.get("ENTIRE_SIM_DIFFERENCES") == "update":
        known[agent] = differences
        KNOWN.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assert differences == known.get(agent, []), "\n".join(differences)
