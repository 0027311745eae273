"""A/B of Gemini's turn on a big chat file named by its own path: this tree against another source tree.

    git archive main | tar -x -C /tmp/base
    uv run python tools/bench/gemini_positions.py --base /tmp/base [--size-mb 200] [--runs 5]

Issue 37: ``get-transcript-position`` wrote where its count fell (``positions.json``) for the TurnEnd's
``extract-*`` to seek to. The chat is run1's real one, its conversation repeated to ``--size-mb``; each
run is one turn as the Entire CLI drives it on a native path: the previous turn's ``prepare-transcript``,
``get-transcript-position`` at TurnStart, the turn's lines appended, then ``prepare-transcript``,
``extract-modified-files`` and ``extract-prompts`` from the start (``MODES``: less of it). Every run starts
from an empty scratch directory, the two trees alternate, each call is a fresh ``python -m
entire_agent_google_gemini`` process (no front); medians in ms. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
CHAT = REPO / "packages/agent-gemini/tests/data/captures/run1-same-minute-resume/final.gemini-tmp/repo/chats"
CHAT_FILE = CHAT / "session-2026-11-30T03-02-e7a78f69.jsonl"
MODES = ("warm", "cold", "miss", "position")
"""warm: a turn after a turn (the previous TurnEnd's prepare-transcript ran); cold: the file's first turn;
miss: only the TurnEnd's extract calls, nothing before them on the file (a cache of either kind is empty);
position: only get-transcript-position."""
STEPS = ("prepare (last turn)", "get-transcript-position", "prepare-transcript", "extract-modified-files",
         "extract-prompts")  # fmt: skip


def _env(tree: Path, root: Path) -> dict[str, str]:
    source = os.pathsep.join(str(tree / "packages" / p / "src") for p in ("entire-core", "agent-gemini"))
    return {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8", "PYTHONPATH": source,
            "ENTIRE_PROTOCOL_VERSION": "1", "ENTIRE_REPO_ROOT": str(root / "repo"), "HOME": str(root / "home"),
            "XDG_STATE_HOME": str(root / "state"), "TMPDIR": str(root / "tmp"), "ENTIRE_AGENT_FRONT": "0"}  # fmt: skip


def _call(env: dict[str, str], cwd: Path, *args: str) -> tuple[float, bytes]:
    """Milliseconds of one plugin process, and what it printed."""
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "entire_agent_google_gemini", *args], env=env, cwd=cwd,
                          capture_output=True, check=False)  # fmt: skip
    elapsed = (time.perf_counter() - started) * 1000
    if proc.returncode:
        raise SystemExit(f"{args[0]} failed: {proc.stderr.decode(errors='replace')[-500:]}")
    return elapsed, proc.stdout


def one_turn(tree: Path, root: Path, chat: Path, before: bytes, turn: bytes, mode: str) -> dict[str, float]:
    """One turn on ``chat`` by the code of ``tree`` (``MODES``): milliseconds per step."""
    shutil.rmtree(root / "repo" / ".entire", ignore_errors=True)
    env, cwd = _env(tree, root), root / "repo"
    with chat.open("r+b") as f:  # the same file (inode) all along, as Gemini appends to it
        f.truncate(len(before))
    times: dict[str, float] = {}
    if mode == "warm":
        times["prepare (last turn)"] = _call(env, cwd, "prepare-transcript", "--session-ref", str(chat))[0]
    offset = str(before.count(b"\n"))
    if mode != "miss":
        times["get-transcript-position"], answer = _call(
            env, cwd, "get-transcript-position", "--path", str(chat)
        )
        assert str(json.loads(answer)["position"]) == offset, answer
    if mode == "position":
        return times
    with chat.open("ab") as f:
        f.write(turn)
    if mode != "miss":
        times["prepare-transcript"] = _call(env, cwd, "prepare-transcript", "--session-ref", str(chat))[0]
    for name, flag in (("extract-modified-files", "--path"), ("extract-prompts", "--session-ref")):
        elapsed, answer = _call(env, cwd, name, flag, str(chat), "--offset", offset)
        assert b"hello" in answer.lower(), answer  # the turn's file and prompt, read from the start
        times[name] = elapsed
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--base", required=True, type=Path, help="the other source tree (A)")
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--modes", default=",".join(MODES), help=f"a comma-separated choice of {', '.join(MODES)}"
    )
    args = parser.parse_args()
    lines = CHAT_FILE.read_bytes().splitlines(keepends=True)
    head, body = lines[0], b"".join(lines[1:])
    before = head + body * max(1, (args.size_mb << 20) // len(body))
    trees = {"A (base)": args.base.resolve(), "B (this)": REPO}
    with tempfile.TemporaryDirectory(prefix="entire-gemini-positions-") as tmp:
        root = Path(tmp)
        for name in ("repo", "home", "state", "tmp", "chats"):
            (root / name).mkdir()
        chat = root / "chats" / CHAT_FILE.name
        chat.write_bytes(before)
        print(f"chat {len(before) / (1 << 20):.0f} MB + a turn of {len(body)} bytes; {sys.executable}")
        samples: dict[tuple[str, str], list[dict[str, float]]] = {}
        for _ in range(args.runs):
            for mode in args.modes.split(","):
                for label, tree in trees.items():
                    samples.setdefault((mode, label), []).append(
                        one_turn(tree, root, chat, before, body, mode)
                    )
        print(f"{'':<5} {'tree':<10} " + " ".join(f"{s:>23}" for s in STEPS))
        for (mode, label), runs in samples.items():
            cells = [statistics.median(r[s] for r in runs) if s in runs[0] else None for s in STEPS]
            print(f"{mode:<5} {label:<10} "
                  + " ".join(f"{c:23.1f}" if c is not None else f"{'':>23}" for c in cells))  # fmt: skip


if __name__ == "__main__":
    main()
