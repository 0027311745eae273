"""``entire-sim soak``: a synthetic session of any size, replayed through the simulator turn by turn.

The generator (``entire_sim.synth``) writes turn k's records into the agent's native file, and the
replay fires turn k's hooks through the plugin as the real agent would, then goes on to turn k+1:
the native file grows under the plugin exactly as it does in a long session. Every TurnEnd's
``read-transcript`` answer is what the CLI stores as ``full.jsonl``; the result says how big each one
was, against the native file's size at that moment, and whether any call broke the protocol (the
10 MiB answer limit included).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from entire_sim.demo import make_repo
from entire_sim.report import storage
from entire_sim.simulator import Simulator
from entire_sim.synth import SYNTHS, Synth, deliver


class Soak:
    """One synthetic session replayed in ``root`` (a fresh directory)."""

    def __init__(
        self, agent: str, root: Path, target_bytes: int, *, budget: int | None = None, **kw: Any
    ) -> None:
        self.root = root
        self.repo = root / "repo"
        make_repo(self.repo)
        self.synth: Synth = SYNTHS[agent](root, self.repo, target_bytes, **kw)
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(root / "home"), "LANG": "C.UTF-8",
               "XDG_STATE_HOME": str(root / "state-home"), "XDG_CACHE_HOME": str(root / "cache-home")}  # fmt: skip
        env.update(self.synth.env)
        if budget:
            env["ENTIRE_VIEW_BUDGET"] = str(budget)
        self.sim = Simulator(self.repo, state_dir=root / "state", env=env)
        self.turns: list[dict[str, Any]] = []
        self.failed: list[dict[str, Any]] = []
        self.seconds = 0.0

    def run(self, progress: Any = None) -> Soak:
        """Generate and replay every turn; ``progress`` (a stream) gets one line per TurnEnd."""
        agent = self.synth.agent
        started = time.perf_counter()
        self.sim.enable(agent)
        for step in self.synth.steps():
            for name, content in step.files.items():
                path = self.repo / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8")
            for record in deliver(self.sim, agent, step.hook, step.payload):
                if record.get("error"):
                    self.failed.append({"turn": step.turn, "hook": record.get("hook", step.hook),
                                        "error": record["error"]})  # fmt: skip
                if record.get("event_name") == "TurnEnd":
                    row = self._row(step.turn, record)
                    self.turns.append(row)
                    if progress is not None:
                        progress.write(_row_text(row) + "\n")
                        progress.flush()
        self.sim.disable(agent)
        self.seconds = time.perf_counter() - started
        return self

    def _row(self, turn: int, record: dict[str, Any]) -> dict[str, Any]:
        calls = record.get("calls") or []
        read = next((c for c in calls if c["subcommand"] == "read-transcript"), None)
        checkpoint = record.get("checkpoint") or {}
        expected = self.synth.expected.get(turn, {})
        mismatch: list[str] = []
        files = checkpoint.get("transcript_files")
        if "files" in expected and files is not None and sorted(files) != expected["files"]:
            mismatch.append(f"files {sorted(files)} != {expected['files']}")
        tokens = checkpoint.get("tokens") or {}
        for key, value in expected.get("tokens", {}).items():
            if tokens.get(key) != value:
                mismatch.append(f"{key} {tokens.get(key)} != {value}")
        return {
            "turn": turn,
            "native_bytes": self.synth.size(),
            "stored_bytes": int(checkpoint.get("transcript_bytes", read["stdout_bytes"] if read else 0)),
            "turn_end_ms": round(sum(float(c["ms"]) for c in calls), 1),
            "read_ms": float(read["ms"]) if read else 0.0,
            "calls": len(calls),
            "error": record.get("error"),
            "mismatch": mismatch,
        }

    def summary(self) -> dict[str, Any]:
        """What the run shows: sizes, stored bytes, TurnEnd times, violations."""
        ends = [t["turn_end_ms"] for t in self.turns] or [0.0]
        return {
            "agent": self.synth.agent,
            "generator": type(self.synth).__name__,
            "native_bytes": self.synth.size(),
            "turns": len(self.turns),
            "turn_ends_completed": sum(1 for t in self.turns if not t["error"]),
            "storage": storage(self.sim.checkpoints()),
            "turn_end_ms": {"median": statistics.median(ends), "max": max(ends)},
            "violations": self.sim.errors(),
            "mismatches": [
                {"turn": t["turn"], "mismatch": t["mismatch"]} for t in self.turns if t["mismatch"]
            ],
            "failed_hooks": self.failed,
            "seconds": round(self.seconds, 1),
            "peak_rss_kib": _children_peak_rss_kib(),
            "budget": self.sim.base_env.get("ENTIRE_VIEW_BUDGET", "default"),
        }


def _children_peak_rss_kib() -> int:
    """The largest resident set of any plugin call (``plugin.RSS_LOG_ENV``), in KiB; 0 where unknown."""
    from entire_sim.plugin import RSS_LOG_ENV

    return peak_rss_kib(os.environ.get(RSS_LOG_ENV, ""))


def peak_rss_kib(log: str) -> int:
    """The largest figure in a GNU time ``%M`` log, in KiB; 0 when there is none."""
    try:
        with open(log, encoding="utf-8") as f:
            return max((int(line) for line in f if line.strip().isdigit()), default=0)
    except OSError:
        return 0


def _row_text(row: dict[str, Any]) -> str:
    return (f"turn {row['turn']:4d}  native {row['native_bytes'] / 2**20:9.1f} MiB  stored "
            f"{row['stored_bytes'] / 2**20:7.2f} MiB  TurnEnd {row['turn_end_ms']:8.0f} ms"
            + (f"  ERROR {row['error']}" if row["error"] else "")
            + (f"  MISMATCH {'; '.join(row['mismatch'])}" if row["mismatch"] else ""))  # fmt: skip


def render(summary: dict[str, Any]) -> str:
    """The soak run as text."""
    st = summary["storage"]
    mib = 2**20
    lines = [
        f"== soak {summary['agent']}: {summary['native_bytes'] / mib:.1f} MiB native, {summary['turns']} turns, "
        f"ENTIRE_VIEW_BUDGET={summary['budget']}, {summary['seconds']:.0f} s",
        f"   TurnEnd completed: {summary['turn_ends_completed']}/{summary['turns']}; "
        f"protocol violations: {len(summary['violations'])}; failed hooks: {len(summary['failed_hooks'])}; "
        f"turns whose files or tokens differ from what the generator wrote: {len(summary['mismatches'])}",
        f"   TurnEnd ms (sum of plugin calls): median {summary['turn_end_ms']['median']:.0f}, "
        f"max {summary['turn_end_ms']['max']:.0f}; peak RSS of a plugin process: "
        f"{summary['peak_rss_kib'] / 1024:.0f} MiB",
        f"   stored across checkpoints: {st['total_bytes'] / mib:.1f} MiB in {st['checkpoints']} checkpoints "
        f"(raw transcripts would store {summary.get('raw_total_bytes', 0) / mib:.1f} MiB)",
        f"   stored per turn: median {st['median_bytes'] / mib:.2f} MiB, max {st['max_bytes'] / mib:.2f} MiB; "
        f"last third / middle third = {st['growth']:.2f}",
    ]
    for violation in summary["violations"][:10]:
        lines.append(f"     [violation] {violation['subcommand']}: {violation['message']}")
    for item in summary["mismatches"][:10]:
        lines.append(f"     [mismatch] turn {item['turn']}: {'; '.join(item['mismatch'])}")
    for failed in summary["failed_hooks"][:10]:
        lines.append(f"     [failed hook] turn {failed['turn']} {failed['hook']}: {failed['error']}")
    return "\n".join(lines)


def parse_size(text: str) -> int:
    """``300M``, ``1G``, ``512K`` or a number of bytes."""
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
    return int(float(text.rstrip("KMG")) * scale)


def main(args: Any) -> int:
    """``entire-sim soak``: print per-turn lines and the summary; 1 on any violation or failed TurnEnd."""
    import shutil
    import tempfile

    from entire_sim.plugin import RSS_LOG_ENV

    root = Path(tempfile.mkdtemp(prefix="entire-soak-", dir=args.dir))
    os.environ.setdefault(RSS_LOG_ENV, str(root / "plugin-rss.log"))
    try:
        soak = Soak(args.agent, root, parse_size(args.size), budget=parse_size(args.budget) if args.budget else None,
                    seed=args.seed, big_output=parse_size(args.big_output),
                    turn_bytes=parse_size(args.turn_bytes) if args.turn_bytes else None)  # fmt: skip
        soak.run(progress=sys.stdout if args.verbose else None)
        summary = soak.summary()
        summary["raw_total_bytes"] = sum(t["native_bytes"] for t in soak.turns)
        summary["per_turn"] = soak.turns
        print(render(summary))
        if args.json:
            Path(args.json).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
        if args.keep:
            print(f"   kept in {root}")
        ok = (
            not summary["violations"]
            and not summary["mismatches"]
            and summary["turn_ends_completed"] == summary["turns"]
        )
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
