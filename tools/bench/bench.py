"""Whole-process timings of plugin subcommands, against bare interpreter start-up in the same run.

    uv run python tools/bench/bench.py wheels [--runs 31]
    uv run python tools/bench/bench.py subcommands [--runs 31]

``wheels`` measures what users run: every agent installed from its wheel, with compiled bytecode, in a
fresh virtual environment; its baseline is that environment's own ``python -c pass``.

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
from typing import Any

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


# -- the TurnEnd sequence of every agent, on its bundled session and on synthetic transcripts ---------------

SIZES_MB = (1, 10, 100)
TURN_END_STEPS = ("parse-hook", "prepare-transcript", "read-transcript", "extract-prompts", "files", "tokens")
STEP_OF = {
    "extract-modified-files": "files",
    "extract-all-modified-files": "files",
    "calculate-tokens": "tokens",
    "calculate-total-tokens": "tokens",
}


def _baseline(runs: int) -> float:
    times = time_cases([Case("python -c pass", [sys.executable, "-c", "pass"])], runs, dict(os.environ), REPO)
    return statistics.median(times["python -c pass"])


def grow(source: bytes, target_bytes: int) -> bytes:
    """A transcript of at least ``target_bytes``: the first line kept, the real lines after it repeated."""
    lines = source.splitlines(keepends=True)
    if len(lines) < 2:
        raise SystemExit("a transcript with at least two lines is needed to grow it")
    head, body = lines[0], b"".join(line if line.endswith(b"\n") else line + b"\n" for line in lines[1:])
    repeats = max(1, -(-(target_bytes - len(head)) // len(body)))
    return head + body * repeats


class AgentBench:
    """One agent's replayed session, kept so its TurnEnd can be run again on bigger transcripts."""

    def __init__(self, manifest: Path, root: Path) -> None:
        from entire_sim.demo import Replay

        self.replay = Replay(manifest, root)
        self.sim, _ = self.replay.run()
        self.agent: str = self.replay.spec["agent"]
        turn_end = next(r for r in self.sim.hook_calls() if r["event_name"] == "TurnEnd" and not r["error"])
        self.hook: str = turn_end["hook"]
        self.payload = json.dumps(turn_end["payload"]).encode()
        self.event: dict[str, Any] = turn_end["event"]
        self.ref: str = self.event["session_ref"]
        self.session_id: str = turn_end["event"]["session_id"]
        bench = self.replay.spec.get("bench", {})
        self.grown = Path(self.replay.expand(bench["grow"])) if "grow" in bench else Path(self.ref)
        self.original = self.grown.read_bytes()

    def turn_end(self) -> dict[str, float]:
        """parse-hook on the recorded payload, then the TurnEnd call sequence of the recorded event.

        The event is replayed rather than parsed again because a stateful plugin (Aider's reads the
        chat history since its last call) answers a repeated payload with no event.
        """
        from entire_sim.lifecycle import HookRun

        plugin = self.sim.plugin(self.agent)
        started = time.perf_counter()
        plugin.run("parse-hook", "--hook", self.hook, stdin=self.payload)
        parse_ms = (time.perf_counter() - started) * 1000
        run = HookRun(self.sim.plugin(self.agent), self.sim.state, str(self.sim.repo))
        started = time.perf_counter()
        record = run.replay(self.hook, self.event)
        steps: dict[str, float] = {
            "parse-hook": parse_ms,
            "total": parse_ms + (time.perf_counter() - started) * 1000,
        }
        for call in record["calls"]:
            name: str = call["subcommand"]
            steps[STEP_OF.get(name, name)] = float(call["ms"])
        if record["error"]:
            steps["error"] = 1.0
        return steps

    def files_from(self, offset: int) -> float:
        """Milliseconds of ``extract-modified-files --path`` from ``offset`` (reads only what follows it)."""
        plugin = self.sim.plugin(self.agent)
        started = time.perf_counter()
        plugin.json("extract-modified-files", "--path", self.ref, "--offset", str(offset))
        return (time.perf_counter() - started) * 1000

    def analyzer_steps(self, offset: int = 0) -> dict[str, float]:
        """The analyzer calls of a TurnEnd from ``offset``, each timed, even where read-transcript refuses."""
        plugin = self.sim.plugin(self.agent)
        data = Path(self.ref).read_bytes()
        aware = plugin.capability("subagent_aware_extractor")
        subagents = os.path.join(os.path.dirname(self.ref), self.session_id, "subagents")
        calls: list[tuple[str, list[str], bytes | None]] = [
            ("extract-prompts", ["extract-prompts", "--session-ref", self.ref, "--offset", str(offset)], None),
            ("files", ["extract-all-modified-files", "--offset", str(offset), "--subagents-dir", subagents]
             if aware else ["extract-modified-files", "--path", self.ref, "--offset", str(offset)],
             data if aware else None),
            ("tokens", ["calculate-total-tokens", "--offset", str(offset), "--subagents-dir", subagents]
             if aware else ["calculate-tokens", "--offset", str(offset)], data),
        ]  # fmt: skip
        out: dict[str, float] = {}
        for label, args, stdin in calls:
            started = time.perf_counter()
            plugin.run(args[0], *args[1:], stdin=stdin)
            out[label] = (time.perf_counter() - started) * 1000
        return out

    def offset_near_end(self, content: bytes, tail_lines: int = 20) -> int:
        """The plugin's own position of ``content`` minus its last lines (offsets are the plugin's units)."""
        lines = content.splitlines(keepends=True)
        self.grown.write_bytes(b"".join(lines[:-tail_lines]))
        position = self.sim.plugin(self.agent).json("get-transcript-position", "--path", self.ref)["position"]
        self.grown.write_bytes(content)
        return int(position)


def _median_steps(samples: list[dict[str, float]]) -> dict[str, float]:
    keys = {k for sample in samples for k in sample}
    return {k: statistics.median(s.get(k, 0.0) for s in samples) for k in keys}


def cmd_lifecycle(args: argparse.Namespace) -> None:
    from entire_sim.demo import manifests

    found = [m for m in manifests() if not args.agent or json.loads(m.read_text())["agent"] == args.agent]
    base = _baseline(args.runs)
    print(f"TurnEnd per agent, {sys.executable} ({sys.version.split()[0]}); python -c pass = {base:.1f} ms")
    print("columns: median ms of each plugin call, and the whole hook; x = total / python -c pass")
    print("'hook' rows run the TurnEnd as the CLI does (it stops at read-transcript over 10 MiB);")
    print("'analyzer' rows time extract-prompts, the files and the tokens calls from offset 0 anyway.\n")
    header = f"{'agent':<14} {'transcript':<30} " + " ".join(f"{s[:9]:>9}" for s in TURN_END_STEPS)
    print(header + f" {'total':>9} {'x':>6}")
    for manifest in found:
        with tempfile.TemporaryDirectory(prefix="entire-bench-") as tmp:
            bench = AgentBench(manifest, Path(tmp))
            rows: list[tuple[str, dict[str, float]]] = []
            samples = [bench.turn_end() for _ in range(args.runs)]
            rows.append((f"bundled ({len(bench.original) / 1024:.0f} KB)", _median_steps(samples)))
            for size in SIZES_MB:
                content = grow(bench.original, size * 1024 * 1024)
                bench.grown.write_bytes(content)
                runs = max(3, args.runs // (4 if size >= 100 else 2 if size >= 10 else 1))
                hook = _median_steps([bench.turn_end() for _ in range(runs)])
                steps = _median_steps([bench.analyzer_steps() for _ in range(runs)])
                label = f"{size} MB hook" + (" (read refused)" if hook.get("error") else "")
                rows.append((label, hook))
                rows.append((f"{size} MB analyzer from 0", steps))
                if size == SIZES_MB[-1] or size == SIZES_MB[0]:
                    offset = bench.offset_near_end(content)
                    near = statistics.median(bench.files_from(offset) for _ in range(runs))
                    rows.append((f"{size} MB files, offset near end", {"files": near}))
            bench.grown.write_bytes(bench.original)
        for label, steps in rows:
            cells = " ".join(f"{steps[s]:9.1f}" if s in steps else f"{'':>9}" for s in TURN_END_STEPS)
            total = steps.get("total", sum(steps.get(s, 0.0) for s in TURN_END_STEPS))
            print(f"{bench.agent:<14} {label:<30} {cells} {total:9.1f} {total / base:6.1f}")
        print()


# -- issue 10: steady-state TurnEnd at native sizes far past the CLI's 10 MiB answer limit --------------------

TURNEND_SIZES = "1M,100M,1G"
TURN_BYTES = 256 << 10
"""What each turn adds to the native file, whatever the session's size, so the sizes compare alike."""
TURN_END_HOOKS = {"openai-codex": "stop", "google-gemini": "after-agent", "aider": "turn-end"}


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/entire-bench`` (``~/.cache/entire-bench``): generated sessions, kept between runs."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "entire-bench"


def cached_session(agent: str, size: int, turns: int, seed: int = 0) -> Path:
    """A synthetic session of ``size`` native bytes, then ``turns`` more turns, generated once and cached.

    ``<key>/source`` is the whole native file; ``<key>/manifest.json`` lists every step after the
    first ``size`` bytes with the native size at which the agent fires it. The session's paths point
    into ``<key>/root``, where the benchmark replays it.
    """
    from entire_sim.synth import GENERATOR_VERSION, SYNTHS

    key = cache_dir() / f"{agent}-{size}-t{TURN_BYTES}-n{turns}-s{seed}-g{GENERATOR_VERSION}"
    if (key / "manifest.json").is_file():
        return key
    import shutil

    shutil.rmtree(key, ignore_errors=True)
    root = key / "root"
    synth = SYNTHS[agent](root, root / "repo", 1 << 62, seed=seed, turn_bytes=TURN_BYTES,
                          big_output=20 << 20 if size >= 64 << 20 else 0)  # fmt: skip
    synth.big_turn = max(2, (size // TURN_BYTES) // 3) if synth.big_output else -1
    steps: list[dict[str, Any]] = []
    prefix = -1
    measured = 0
    started = time.perf_counter()
    for step in synth.steps():
        if (
            prefix < 0
            and synth.size() >= size
            and step.hook == synth.hook_turn_start
            and synth.steady_point()
        ):
            prefix = synth.size()
            synth.resume_every = 1 << 30  # steady state: turns, not resumes, follow the prefix
        if prefix >= 0:
            if step.hook == synth.hook_turn_end:
                measured += 1
            steps.append({"hook": step.hook, "payload": step.payload.decode(), "files": step.files,
                          "turn": step.turn, "native_end": synth.size()})  # fmt: skip
            if measured >= turns:
                break
    os.replace(synth.native, key / "source")
    manifest = {"agent": agent, "prefix": prefix, "native": str(synth.native), "env": synth.env,
                "root": str(root), "steps": steps, "generated_s": round(time.perf_counter() - started, 1)}  # fmt: skip
    (key / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return key


def _copy_range(source: Path, target: Path, begin: int, end: int) -> None:
    with open(source, "rb") as src, open(target, "ab") as dst:
        src.seek(begin)
        remaining = end - begin
        while remaining > 0:
            block = src.read(min(8 << 20, remaining))
            if not block:
                break
            dst.write(block)
            remaining -= len(block)


def turnend_worker(agent: str, size: int, runs: int) -> dict[str, Any]:
    """In a process of its own (its children's peak RSS is the plugins'): first build, then ``runs`` TurnEnds."""
    import resource
    import shutil

    from entire_sim.demo import make_repo
    from entire_sim.plugin import RSS_LOG_ENV
    from entire_sim.simulator import Simulator
    from entire_sim.soak import peak_rss_kib
    from entire_sim.synth import deliver

    key = cached_session(agent, size, runs + 1)
    manifest = json.loads((key / "manifest.json").read_text(encoding="utf-8"))
    root = Path(manifest["root"])
    for name in ("repo", "state", "state-home", "cache-home"):
        shutil.rmtree(root / name, ignore_errors=True)
    make_repo(root / "repo")
    native = Path(manifest["native"])
    native.unlink(missing_ok=True)
    _copy_range(key / "source", native, 0, manifest["prefix"])
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(root / "home"), "LANG": "C.UTF-8",
           "XDG_STATE_HOME": str(root / "state-home"), "XDG_CACHE_HOME": str(root / "cache-home"),
           **manifest["env"]}  # fmt: skip
    rss_log = root / "plugin-rss.log"
    rss_log.unlink(missing_ok=True)
    os.environ[RSS_LOG_ENV] = str(rss_log)  # each plugin call's own peak, measured by GNU time
    sim = Simulator(root / "repo", state_dir=root / "state", env=env)
    sim.enable(agent)
    first_ms = -1.0
    turn_ends: list[float] = []
    read_bytes: list[int] = []
    errors: list[str] = []
    done = manifest["prefix"]
    for step in manifest["steps"]:
        _copy_range(key / "source", native, done, step["native_end"])
        done = step["native_end"]
        for name, content in step["files"].items():
            (root / "repo" / name).parent.mkdir(parents=True, exist_ok=True)
            (root / "repo" / name).write_text(content, encoding="utf-8")
        started = time.perf_counter()
        # Aider's notify calls again while events are queued (a first call mid-session: three events).
        records = deliver(sim, agent, step["hook"], step["payload"].encode())
        ms = (time.perf_counter() - started) * 1000
        if first_ms < 0:
            first_ms = ms  # the first call on the session: the view is built from the native file
        elif step["hook"] == TURN_END_HOOKS[agent]:
            turn_ends.append(ms)
            read = [c for r in records for c in r.get("calls", []) if c["subcommand"] == "read-transcript"]
            read_bytes.append(read[0]["stdout_bytes"] if read else 0)
        errors += [f"{r.get('hook', step['hook'])}: {r['error']}" for r in records if r.get("error")]
    peak = peak_rss_kib(str(rss_log)) or resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB
    return {"agent": agent, "size": size, "native": native.stat().st_size, "first_ms": first_ms,
            "turn_ends": turn_ends, "read_bytes": read_bytes, "errors": errors, "peak_rss_kib": peak,
            "violations": [v["message"] for v in sim.errors()], "generated_s": manifest["generated_s"]}  # fmt: skip


def _baseline_worker(runs: int) -> dict[str, Any]:
    import resource

    times = time_cases([Case("python -c pass", [sys.executable, "-c", "pass"])], runs, dict(os.environ), REPO)
    return {
        "turn_ends": times["python -c pass"],
        "peak_rss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    }


def cmd_worker(args: argparse.Namespace) -> None:
    if args.agent == "baseline":
        result = _baseline_worker(args.runs)
    else:
        result = turnend_worker(args.agent, args.size, args.runs)
    print(json.dumps(result))


def _in_worker(agent: str, size: int, runs: int) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, __file__, "worker", agent, str(size), "--runs", str(runs)],
                          capture_output=True, check=False, text=True)  # fmt: skip
    if proc.returncode != 0:
        return {
            "agent": agent,
            "size": size,
            "errors": [proc.stderr.strip().splitlines()[-1:]],
            "turn_ends": [],
        }
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cmd_turnend(args: argparse.Namespace) -> None:
    from entire_sim.soak import parse_size

    sizes = [parse_size(s) for s in args.sizes.split(",")]
    agents = [args.agent] if args.agent else list(TURN_END_HOOKS)
    base = _in_worker("baseline", 0, 21)
    base_ms = statistics.median(base["turn_ends"])
    budget = os.environ.get("ENTIRE_VIEW_BUDGET", "default (8 MiB)")
    print(
        f"steady-state TurnEnd (the view exists; one turn of ~{TURN_BYTES >> 10} KiB appended per run), "
        f"{args.runs} runs; ENTIRE_VIEW_BUDGET={budget}; {sys.executable} ({sys.version.split()[0]})"
    )
    print(f"python -c pass: {base_ms:.1f} ms, peak RSS {base['peak_rss_kib'] / 1024:.1f} MiB")
    print("TurnEnd = the whole `entire hooks <agent> <turn-end hook>`: parse-hook, then every call of §5.3;")
    print("first build = the first hook on the grown session (the view is made from the native file);")
    print("peak RSS = the largest plugin process of the run (first build included).\n")
    print(f"{'agent':<14} {'native':>8} {'first build':>11} {'TurnEnd med':>11} {'p10':>7} {'p90':>7} "
          f"{'x base':>7} {'peak RSS':>9} {'read med':>9}  errors")  # fmt: skip
    for agent in agents:
        medians: list[float] = []
        for size in sizes:
            r = _in_worker(agent, size, args.runs)
            samples = sorted(r["turn_ends"])
            if not samples:
                print(f"{agent:<14} {size >> 20:>6}MB  failed: {r['errors']}")
                continue
            median = statistics.median(samples)
            medians.append(median)
            p10, p90 = samples[len(samples) // 10], samples[min(len(samples) - 1, len(samples) * 9 // 10)]
            read = statistics.median(r["read_bytes"]) / 2**20 if r["read_bytes"] else 0.0
            errors = "; ".join(sorted(set(r["errors"] + r["violations"])))[:100] or "none"
            label = f"{size >> 30}GB" if size >= 1 << 30 else f"{size >> 20}MB"
            print(f"{agent:<14} {label:>8} {r['first_ms']:9.0f}ms {median:9.0f}ms {p10:7.0f} {p90:7.0f} "
                  f"{median / base_ms:7.1f} {r['peak_rss_kib'] / 1024:7.1f}MB {read:7.2f}MB  {errors}")  # fmt: skip
        if len(medians) > 1:
            print(f"{agent:<14} {'':>8} largest / smallest median: {max(medians) / min(medians):.2f}")
        print()


# -- every agent installed from its wheel, as users install it: the start-up that hooks pay --------------


def wheel_venv(work: Path) -> Path:
    """Build every wheel with ``uv build --no-sources`` and install the agents into a fresh venv, compiled."""
    import shutil

    uv = shutil.which("uv")
    if uv is None:
        raise SystemExit("bench.py wheels needs uv on PATH")
    dist, venv = work / "dist", work / "venv"
    subprocess.run([uv, "build", "--all-packages", "--no-sources", "--out-dir", str(dist), "-q"], cwd=REPO,
                   check=True)  # fmt: skip
    subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True)
    wheels = [str(w) for w in sorted(dist.glob("*.whl")) if not w.name.startswith("entire_sim-")]
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    subprocess.run([uv, "pip", "install", "-q", "--python", str(python), "--compile-bytecode", *wheels],
                   check=True)  # fmt: skip
    return python.parent


WHEEL_COLUMNS = ("info", "get-transcript-position", "parse-hook", "TurnEnd", "TurnEnd + sim")
WHEEL_TARGETS: dict[str, float | None] = {
    "info": 1.5,
    "get-transcript-position": 1.5,
    "parse-hook": 2.0,
    "TurnEnd": 8.0,
    "TurnEnd + sim": None,
}
"""The start-up budgets, as multiples of ``python -c pass`` (a report, never a test).

``TurnEnd`` is the sum of the whole-process times of the plugin's five processes at a turn's end
(parse-hook, prepare-transcript, read-transcript, extract-all-modified-files and
calculate-total-tokens): five interpreter start-ups are its floor, 5x. ``TurnEnd + sim`` is the same
sequence as the simulator runs it, with its own work between the calls (``git rev-parse``, ``git
status``, its state files), which stands in for the Entire CLI's own and has no budget here."""


def _wheel_cases(bench: AgentBench) -> list[Case]:
    """info, get-transcript-position on the session's transcript, and parse-hook on its TurnStart payload."""
    plugin = bench.sim.plugin(bench.agent)
    start = next(r for r in bench.sim.hook_calls() if r["event_name"] == "TurnStart" and not r["error"])
    script = plugin.path
    return [
        Case(f"{bench.agent} info", [script, "info"]),
        Case(f"{bench.agent} get-transcript-position", [script, "get-transcript-position", "--path", bench.ref]),
        Case(f"{bench.agent} parse-hook", [script, "parse-hook", "--hook", start["hook"]],
             json.dumps(start["payload"]).encode()),
    ]  # fmt: skip


def cmd_wheels(args: argparse.Namespace) -> None:
    from entire_sim.demo import manifests

    with tempfile.TemporaryDirectory(prefix="entire-bench-wheels-") as tmp:
        bin_dir = wheel_venv(Path(tmp))
        os.environ["PATH"] = os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])
        python = str(bin_dir / "python")
        benches = [AgentBench(m, Path(tmp) / f"replay-{i}") for i, m in enumerate(manifests())]
        times: dict[str, list[float]] = {"python -c pass": []}
        for bench in benches:
            plugin = bench.sim.plugin(bench.agent)
            if not plugin.path.startswith(str(bin_dir)):
                raise SystemExit(f"{plugin.path} is not the wheel-installed plugin")
            for case in _wheel_cases(bench):
                times[case.label] = []
            times[f"{bench.agent} TurnEnd"] = []
            times[f"{bench.agent} TurnEnd + sim"] = []
        for run in range(args.runs + 1):  # the first round warms caches and is dropped
            for bench in benches:
                plugin = bench.sim.plugin(bench.agent)
                cwd = Path(plugin.repo_root or bench.sim.repo)
                samples = {
                    "python -c pass": _run(Case("python -c pass", [python, "-c", "pass"]), plugin.env(), cwd)
                }
                for case in _wheel_cases(bench):
                    samples[case.label] = _run(case, plugin.env(), cwd)
                steps = bench.turn_end()
                samples[f"{bench.agent} TurnEnd"] = sum(
                    ms for step, ms in steps.items() if step not in ("total", "error")
                )
                samples[f"{bench.agent} TurnEnd + sim"] = steps["total"]
                if run:
                    for label, ms in samples.items():
                        times[label].append(ms)
    base = statistics.median(times["python -c pass"])
    print(f"every agent installed from its wheel (--compile-bytecode), {args.runs} rounds, "
          f"Python {sys.version.split()[0]}; python -c pass = {base:.1f} ms (the venv's own, same rounds)")  # fmt: skip
    print("cells: median ms (x python -c pass); budget: " +
          ", ".join(f"{c} {x:g}x" for c, x in WHEEL_TARGETS.items() if x) + "\n")  # fmt: skip
    print(f"{'agent':<14} " + " ".join(f"{c:>24}" for c in WHEEL_COLUMNS))
    for bench in benches:
        cells: list[str] = []
        for column in WHEEL_COLUMNS:
            median = statistics.median(times[f"{bench.agent} {column}"])
            ratio = median / base
            target = WHEEL_TARGETS[column]
            mark = "!" if target is not None and ratio > target else " "
            cells.append(f"{median:10.1f} ms ({ratio:5.2f}x){mark}")
        print(f"{bench.agent:<14} " + " ".join(f"{c:>24}" for c in cells))


def cmd_hooks(args: argparse.Namespace) -> None:
    """One ``entire hooks`` process per hook under a host stand-in (``hookhost.py``), with this agent's
    plugin alone and with all of ours on PATH, the front answering the discovery calls and (with
    ``ENTIRE_AGENT_FRONT=0``) Python answering every call; as ratios to a built-in agent's hook."""
    from entire_core.front import MARK
    from entire_sim.demo import manifests

    host = [sys.executable, str(HERE / "hookhost.py")]
    with tempfile.TemporaryDirectory(prefix="entire-bench-hooks-") as tmp:
        bin_dir = wheel_venv(Path(tmp))
        scripts = sorted(bin_dir.glob("entire-agent-*"))
        every = Path(tmp) / "path-all"
        every.mkdir()
        for script in scripts:
            subprocess.run(
                [str(script), "info"], capture_output=True, check=True
            )  # its first call: the front
            if not script.read_text(encoding="utf-8", errors="replace").split("\n")[1].startswith(MARK):
                raise SystemExit(f"{script} is not a front after its first call")
            (every / script.name).symlink_to(script)
        system = os.pathsep.join(p for p in ("/usr/local/bin", "/usr/bin", "/bin") if os.path.isdir(p))
        cases: list[tuple[Case, dict[str, str]]] = []
        benches = [AgentBench(m, Path(tmp) / f"replay-{i}") for i, m in enumerate(manifests())]
        repo = benches[0].sim.repo
        env = {**benches[0].sim.plugin(benches[0].agent).env(), "PATH": system}
        cases.append((Case("built-in hook", [*host, "--builtin"]), env))
        for bench in benches:
            alone = Path(tmp) / f"path-{bench.agent}"
            alone.mkdir()
            (alone / f"entire-agent-{bench.agent}").symlink_to(bin_dir / f"entire-agent-{bench.agent}")
            start = next(
                r for r in bench.sim.hook_calls() if r["event_name"] == "TurnStart" and not r["error"]
            )
            payload = json.dumps(start["payload"]).encode()
            for plugins, directory in (("1 plugin", alone), (f"{len(scripts)} plugins", every)):
                for answered, extra in (("front", {}), ("python", {"ENTIRE_AGENT_FRONT": "0"})):
                    label = f"{bench.agent} {start['hook']}, {plugins}, {answered}"
                    argv = [*host, bench.agent, start["hook"]]
                    cases.append(
                        (
                            Case(label, argv, payload),
                            {**env, **extra, "PATH": f"{directory}{os.pathsep}{system}"},
                        )
                    )
        times: dict[str, list[float]] = {case.label: [] for case, _ in cases}
        for run in range(args.runs + 1):  # the first round warms caches and is dropped
            for case, case_env in cases:
                ms = _run(case, case_env, Path(repo))
                if run:
                    times[case.label].append(ms)
    print(f"one hook process under a host stand-in (tools/bench/hookhost.py), {args.runs} rounds, "
          f"Python {sys.version.split()[0]}; every agent installed from its wheel")  # fmt: skip
    print("ratios are to the stand-in's built-in hook (no plugin run), in the same rounds\n")
    print(report(times, "built-in hook"))


COMMANDS: dict[str, Callable[[argparse.Namespace], None]] = {
    "hooks": cmd_hooks,
    "turnend": cmd_turnend,
    "worker": cmd_worker,
    "subcommands": cmd_subcommands,
    "lifecycle": cmd_lifecycle,
    "wheels": cmd_wheels,
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser(
        "wheels", help="each agent installed from its wheel: hot subcommands and TurnEnd vs python"
    )
    p.add_argument("--runs", type=int, default=31)
    p = sub.add_parser(
        "hooks", help="a hook process under a host stand-in, 1 and all plugins on PATH, front vs python"
    )
    p.add_argument("--runs", type=int, default=15)
    p = sub.add_parser("subcommands", help="each subcommand of the sample agent vs python -c pass")
    p.add_argument("--runs", type=int, default=31)
    p = sub.add_parser(
        "lifecycle", help="each agent's TurnEnd on its bundled session and 1/10/100 MB transcripts"
    )
    p.add_argument("--runs", type=int, default=9)
    p.add_argument("--agent", help="only this registry name")
    p = sub.add_parser(
        "turnend", help="issue 10: steady-state TurnEnd, first build and peak RSS at 1 MB, 100 MB, 1 GB"
    )
    p.add_argument("--runs", type=int, default=9)
    p.add_argument("--agent", choices=sorted(TURN_END_HOOKS))
    p.add_argument("--sizes", default=TURNEND_SIZES, help="native sizes, e.g. 1M,100M,1G")
    p = sub.add_parser("worker", help="(internal) one agent and size, in a process of its own; JSON out")
    p.add_argument("agent")
    p.add_argument("size", type=int)
    p.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "")
    COMMANDS[args.command](args)


if __name__ == "__main__":
    main()
