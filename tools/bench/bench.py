"""Whole-process timings of plugin subcommands, against bare interpreter start-up in the same run.

    uv run python tools/bench/bench.py subcommands [--runs 31]

Every subcommand of the core's sample agent runs as the Entire CLI runs it: a fresh process of a
console-script launcher with the protocol's environment. The baseline, ``python -c pass`` from the
same environment, is measured interleaved with the subcommands so that machine load hits both alike.
Medians are reported with their ratio to the baseline; nothing here asserts a timing.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SAMPLE_SESSION = REPO / "packages" / "entire-core" / "tests" / "data" / "sample-session.jsonl"


class Case:
    """One command line to time, with its stdin."""

    def __init__(self, label: str, argv: list[str], stdin: bytes = b"") -> None:
        self.label = label
        self.argv = argv
        self.stdin = stdin


def time_cases(cases: list[Case], runs: int, env: dict[str, str], cwd: Path) -> dict[str, list[float]]:
    """Run every case ``runs`` times, round-robin, and return the wall times in milliseconds."""
    times: dict[str, list[float]] = {c.label: [] for c in cases}
    for case in cases:  # warm-up: bytecode caches, page cache
        _run(case, env, cwd)
    for _ in range(runs):
        for case in cases:
            times[case.label].append(_run(case, env, cwd))
    return times


def _run(case: Case, env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    proc = subprocess.run(case.argv, input=case.stdin, capture_output=True, env=env, cwd=cwd, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if proc.returncode != 0:
        raise SystemExit(f"{case.label} failed ({proc.returncode}): {proc.stderr.decode(errors='replace')}")
    return elapsed


def report(times: dict[str, list[float]], baseline: str) -> str:
    """A table of medians, p10/p90 and the ratio of each median to the baseline's."""
    base = statistics.median(times[baseline])
    width = max(len(label) for label in times)
    lines = [f"{'command':<{width}}  {'median ms':>9}  {'p10':>7}  {'p90':>7}  {'x baseline':>10}"]
    for label, samples in times.items():
        ordered = sorted(samples)
        p10 = ordered[len(ordered) // 10]
        p90 = ordered[min(len(ordered) - 1, len(ordered) * 9 // 10)]
        median = statistics.median(samples)
        lines.append(f"{label:<{width}}  {median:9.1f}  {p10:7.1f}  {p90:7.1f}  {median / base:10.2f}")
    return "\n".join(lines)


def write_launcher(directory: Path, name: str, target: str) -> Path:
    """A console-script launcher for ``module:function`` using this interpreter."""
    from entire_core.testing.runner import write_launcher as write

    return write(directory, name, target)


def protocol_env(root: Path, repo: Path) -> dict[str, str]:
    """The environment the CLI gives a plugin, with a private home."""
    from entire_core.testing.runner import Sandbox

    sandbox = Sandbox(root)
    env = dict(sandbox.env)
    env["ENTIRE_REPO_ROOT"] = str(repo)
    return env


def subcommand_cases(script: Path, work: Path) -> list[Case]:
    """Every subcommand of the sample agent, with realistic inputs."""
    transcript = work / "session.jsonl"
    transcript.write_bytes(SAMPLE_SESSION.read_bytes())
    data = transcript.read_bytes()
    ref = work / "restored" / "s-1.jsonl"
    session_fields = {
        "session_id": "s-1",
        "agent_name": "sample",
        "repo_path": "",
        "session_ref": str(ref),
        "start_time": "0001-01-01T00:00:00Z",
        "native_data": base64.b64encode(data).decode(),
        "modified_files": None,
        "new_files": None,
        "deleted_files": None,
    }
    session = json.dumps(session_fields).encode()
    hook = json.dumps({"session_id": "s-1", "transcript_path": str(transcript), "prompt": "hi"}).encode()
    s = str(script)
    t = str(transcript)
    return [
        Case("info", [s, "info"]),
        Case("--help", [s, "--help"]),
        Case("detect", [s, "detect"]),
        Case("parse-hook", [s, "parse-hook", "--hook", "prompt"], hook),
        Case("get-transcript-position", [s, "get-transcript-position", "--path", t]),
        Case("extract-modified-files", [s, "extract-modified-files", "--path", t, "--offset", "0"]),
        Case("extract-prompts", [s, "extract-prompts", "--session-ref", t, "--offset", "0"]),
        Case("read-transcript", [s, "read-transcript", "--session-ref", t]),
        Case("calculate-tokens", [s, "calculate-tokens", "--offset", "0"], data),
        Case("chunk-transcript", [s, "chunk-transcript", "--max-size", "100"], data),
        Case("write-session", [s, "write-session"], session),
        Case(
            "read-session",
            [s, "read-session"],
            json.dumps({"session_id": "s-1", "session_ref": str(ref)}).encode(),
        ),
        Case("compact-transcript", [s, "compact-transcript", "--session-ref", t]),
    ]


def cmd_subcommands(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="entire-bench-") as tmp:
        work = Path(tmp)
        repo = work / "repo"
        repo.mkdir()
        script = write_launcher(work / "bin", "sample", "entire_core.testing.sample_agent:main")
        env = protocol_env(work / "sandbox", repo)
        env["ENTIRE_REPO_ROOT"] = str(work)  # write-session restores under <repo>/.entire/tmp
        cases = [Case("python -c pass", [sys.executable, "-c", "pass"]), *subcommand_cases(script, work)]
        times = time_cases(cases, args.runs, env, work)
    print(f"sample agent subcommands, {args.runs} runs each, {sys.executable} ({sys.version.split()[0]})")
    print(report(times, "python -c pass"))


COMMANDS: dict[str, Callable[[argparse.Namespace], None]] = {"subcommands": cmd_subcommands}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("subcommands", help="each subcommand of the sample agent vs python -c pass")
    p.add_argument("--runs", type=int, default=31)
    args = parser.parse_args()
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "")
    COMMANDS[args.command](args)


if __name__ == "__main__":
    main()
