"""The host's record of a ``host`` scenario, kept as test data (``tests/data/host/<agent>.json``).

``make host-record`` runs the ``host`` scenarios with ``ENTIRE_HOST_RECORD`` naming the data directory;
each scenario's git-refs run is then written there:

- ``calls``: every plugin call the host made, in order (``ENTIRE_PLUGIN_TRACE``): the subcommand, its
  flags (``--offset`` values as they were), a digest of stdin; small answers whole, large ones as digests;
  ``host_pid``, the ``entire`` process that made the call (hooks an agent fires at once run concurrently
  and their calls interleave; recordings made before it was kept lack it).
  A hook call (``parse-hook``) also has its payload and the files it named as they stood then (size and
  sha256 of the agent's own session file and of the view answered). A hook call and a
  ``calculate-total-tokens`` call also have ``side_files``, the files a plugin reads besides those
  (Aider's analytics log, whence its exact token counts), as the calling ``entire`` process found them
  at its start (``harness.World``'s ``side_files``), where the scenario names any, and the agent's
  files the process's calls read that no hook names (Cline's messages document, found by its session id:
  ``reads``, noted by the plugin's trace), as the process first read each;
- ``commits``: every commit of the scenario with its checkpoint's stored fields: ``prompt.txt``,
  ``files_touched``, ``token_usage``, the two transcript starts, and ``full.jsonl`` and
  ``transcript.jsonl`` as size, line count and sha256; ``transcript_scope``, the prompts and replies
  ``transcript.jsonl`` holds from ``compact_transcript_start`` on;
- ``resume``: the agent's session file ``entire session resume`` restored through ``write-session``
  (its path, and its bytes as size, line count and sha256; absent where the scenario resumes nothing);
- ``files``: the bytes of each session file named (the agent's own and our view) and of each side file,
  gzip-compressed beside the JSON, so that every earlier state is a prefix of known size and digest:
  its final bytes where they extend what its last hook saw, else (a file deleted before the end, or
  rewritten) the bytes its last hook saw, which the plugin's trace keeps (``$ENTIRE_PLUGIN_TRACE.files/<sha256>``); and, as
  ``earlier``, the states of a file an agent rewrote that are no prefix of those bytes (Gemini CLI
  rewrites a resumed session's chat file), so that every state is a prefix of one of them.

Paths are written relative to the scenario's scratch directory (``$WORLD``).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from harness import line_count, sha256, transcript_texts
from scenarios import Outcome

RECORD_ENV = "ENTIRE_HOST_RECORD"
DISCOVERY = ("info", "get-session-dir")
"""Calls every ``entire`` process makes of every plugin: recorded by digest only (the same answer each time)."""


def _norm(value: Any, root: str) -> Any:
    if isinstance(value, str):
        return value.replace(root, "$WORLD")
    if isinstance(value, list):
        return [_norm(v, root) for v in value]
    if isinstance(value, dict):
        return {_norm(k, root): _norm(v, root) for k, v in value.items()}
    return value


SIDE_FILES_AT = ("parse-hook", "calculate-total-tokens")
"""The calls a replay puts the side files back for: a hook's, and a commit's that reads the tokens."""


def _side_files(states: list[dict[str, Any]], call: dict[str, Any]) -> dict[str, list[Any]]:
    """``{path: [size, sha256]}`` of the side files as the ``entire`` process that made ``call`` found them:
    its own notes (the same ``host_pid``) up to the call (an earlier process may have had its pid)."""
    found: dict[str, list[Any]] = {}
    for state in states:
        if state["host_pid"] == call.get("host_pid") and state["time"] <= call["time"]:
            found[state["path"]] = [state["size"], state["sha256"]]
    return found


def _process_reads(calls: list[dict[str, Any]]) -> list[dict[str, list[Any]]]:
    """For each call, the agent's files its ``entire`` process read besides the files hooks name
    (``reads``, ``entire_core.trace.note_reads``): each as the process's first call to read it found it.
    A process is a ``host_pid``'s calls from its discovery (``info``) on, as ``test_host_replay`` tells."""
    by_process: list[dict[str, list[Any]]] = []
    current: dict[Any, dict[str, list[Any]]] = {}
    previous: dict[Any, str] = {}
    for call in calls:
        pid = call.get("host_pid")
        if pid not in current or (call["subcommand"] == "info" and previous.get(pid) != "info"):
            current[pid] = {}
        previous[pid] = call["subcommand"]
        for path, state in call.get("reads", {}).items():
            current[pid].setdefault(path, state)
        by_process.append(current[pid])
    return by_process


def _bytes(data: bytes) -> dict[str, Any]:
    return {"size": len(data), "lines": line_count(data), "sha256": sha256(data)}


def _scope(part: Any) -> dict[str, list[str]]:
    """The prompts and replies of ``transcript.jsonl`` from ``compact_transcript_start`` on."""
    start = part.metadata.get("compact_transcript_start") or 0
    users, replies = transcript_texts(b"".join(part.transcript.splitlines(keepends=True)[start:]))
    return {"prompts": users, "replies": replies}


def _restored(outcome: Outcome) -> dict[str, Any] | None:
    """The session file the host restored at ``entire session resume``, or None without a resume."""
    paths = outcome.facts.get("rollout_paths") or []
    if "resume" not in outcome.commands or not paths:
        return None
    return {"path": paths[0], **_bytes(outcome.facts.get("rollout_after") or b"")}


def _not_prefixes(states: list[bytes], kept: bytes) -> list[bytes]:
    """The longest of the bytes ``states`` (a file at each hook) that are no prefix of ``kept`` nor of
    each other: an agent that rewrote its file keeps each earlier state a prefix of one of them."""
    out: list[bytes] = []
    for data in sorted(set(states), key=len, reverse=True):
        if not kept.startswith(data) and not any(o.startswith(data) for o in out):
            out.append(data)
    return out


def recording(outcome: Outcome) -> tuple[dict[str, Any], dict[str, bytes], dict[str, list[bytes]]]:
    """The JSON record of ``outcome``, the final bytes of every session file it names, and the earlier
    states of those that are no prefix of them."""
    world = outcome.world
    root = str(world.root)
    calls: list[dict[str, Any]] = []
    seen_at: dict[str, list[str]] = {}  # each named or side file: its sha256 at each call noting it
    side_states = world.side_states()
    traced = world.trace_calls()
    for call, reads in zip(traced, _process_reads(traced), strict=True):
        entry = {k: call[k] for k in ("agent", "subcommand", "args", "stdin_sha256", "stdin_len", "code")}
        if "host_pid" in call:  # the calling host process: tells concurrent hooks' calls apart
            entry["host_pid"] = call["host_pid"]
        if "via" in call:  # "front" or "python": what answered (entire_core.front)
            entry["via"] = call["via"]
        entry["answer_sha256"] = call["answer_sha256"]
        for key in ("stdin", "answer", "files"):
            if key in call and not (key == "answer" and call["subcommand"] in DISCOVERY):
                entry[key] = call[key]
        if call["subcommand"] in SIDE_FILES_AT:
            side = {**_side_files(side_states, call),
                    **{p: r for p, r in reads.items() if p not in call.get("files", {})}}  # fmt: skip
            if side:
                entry["side_files"] = side
        for path, (_size, digest) in [*call.get("files", {}).items(), *entry.get("side_files", {}).items()]:
            seen_at.setdefault(path, []).append(digest)
        calls.append(_norm(entry, root))
    points = outcome.checkpoints()
    commits: list[dict[str, Any]] = []
    for sha, subject, cid in outcome.commits():
        commit: dict[str, Any] = {"subject": subject, "checkpoint": bool(cid)}
        label = next((e.label for e in outcome.expected if e.sha == sha), subject)
        commit["label"] = label
        if cid in points:
            point = points[cid]
            commit["files_touched"] = point.metadata.get("files_touched")
            commit["sessions"] = []
            for part in point.sessions:
                meta = part.metadata
                commit["sessions"].append({
                    "session": next((k for k, v in outcome.sessions.items() if v == meta.get("session_id")), "?"),
                    "prompt": part.prompt,
                    "files_touched": meta.get("files_touched"),
                    "token_usage": meta.get("token_usage"),
                    "checkpoint_transcript_start": meta.get("checkpoint_transcript_start", 0),
                    "compact_transcript_start": meta.get("compact_transcript_start"),
                    "full": _bytes(part.full),
                    "transcript": _bytes(part.transcript),
                    "transcript_scope": _scope(part),
                    "content_hash": part.content_hash,
                })  # fmt: skip
        elif cid:
            commit["missing"] = cid != ""
        commits.append(commit)
    files: dict[str, bytes] = {}
    earlier: dict[str, list[bytes]] = {}
    kept = Path(str(world.trace) + ".files")
    for path in sorted(seen_at):
        states = [(kept / d).read_bytes() for d in seen_at[path] if (kept / d).is_file()]
        at_hook = states[-1] if states else None
        final = Path(path).read_bytes() if os.path.isfile(path) else None
        if final is not None and (at_hook is None or final.startswith(at_hook)):
            files[_norm(path, root)] = final
        elif at_hook is not None:
            files[_norm(path, root)] = at_hook
        else:
            continue
        earlier[_norm(path, root)] = _not_prefixes(states, files[_norm(path, root)])
    record = {
        "agent": outcome.agent,
        "host": "Entire CLI v0.10.3 (local build, prints `dev`)",
        "backend": outcome.backend,
        "world_root": root,
        "sessions": sorted(outcome.sessions),
        "calls": calls,
        "commits": commits,
        "files": {name: {"size": len(data), "sha256": sha256(data)} for name, data in files.items()},
    }
    restored = _restored(outcome)
    if restored is not None:
        record["resume"] = _norm(restored, root)
    for name, states in earlier.items():
        if states:
            record["files"][name]["earlier"] = [{"size": len(d), "sha256": sha256(d)} for d in states]
    return record, files, earlier


def write(outcome: Outcome, directory: Path) -> Path:
    """Write the record of ``outcome`` (and its session files, gzip-compressed) under ``directory``."""
    record, files, earlier = recording(outcome)
    directory.mkdir(parents=True, exist_ok=True)
    blobs = directory / outcome.agent
    blobs.mkdir(exist_ok=True)
    for old in blobs.glob("*.gz"):
        old.unlink()
    for name, data in files.items():
        digest = hashlib.sha256(name.encode()).hexdigest()[:16]
        record["files"][name]["blob"] = f"{outcome.agent}/{digest}.gz"
        (blobs / f"{digest}.gz").write_bytes(gzip.compress(data, mtime=0))
        for n, (meta, state) in enumerate(
            zip(record["files"][name].get("earlier", []), earlier[name], strict=True)
        ):
            meta["blob"] = f"{outcome.agent}/{digest}-{n}.gz"
            (blobs / f"{digest}-{n}.gz").write_bytes(gzip.compress(state, mtime=0))
    target = directory / f"{outcome.agent}.json"
    target.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return target


def maybe_write(outcome: Outcome) -> None:
    """Write the record when ``ENTIRE_HOST_RECORD`` names a directory (``make host-record``), git-refs runs only."""
    directory = os.environ.get(RECORD_ENV, "")
    if directory and outcome.backend == "git-refs":
        write(outcome, Path(directory))
