"""``make faults``'s contention and resource cases: crowded, out of disk, damaged by hand (issue 37).

Each case is one faulted run of the agent's bundled session through ``faults.Harness.trial``, so the
sandbox, the replay and what must hold afterwards are the kills' (``faults.KINDS``); only the fault
differs. A run picks, from the seed, the hook step to fault (and the case's own choices: which file,
how much room is left) among the steps where the fault has something to act on in the unfaulted run.

Contention (nothing is killed: the step must succeed, and its checkpoints be exact, not absent):

- ``concurrent-hook``: a second host process works on the same session while the step's hook runs,
  as Qwen Code's ``Stop`` and ``SubagentStop`` fire at once (``tests/data/host/qwen-code.json``: the
  ``parse-hook`` of one and the ``prepare-transcript`` of the other interleave). It fires the agent's
  ``subagent-stop`` with the step's payload where the agent has one, else the same hook again (not for
  Aider, whose launcher fires one hook at a time and whose queue would hand the host's event to the
  second process), then what a commit's condensation asks of the session's view
  (``prepare-transcript``, ``read-transcript``, ``get-transcript-position``). Each of its calls
  succeeds or fails in one line naming the program. Started after a delay from the seed (0-40 ms).
- ``two-repos``: a second repository whose plugin shares the first one's state directory
  (``XDG_STATE_HOME``) and TMPDIR runs the same session at the same time, from ``enable`` to
  ``disable``; both are held to their own unfaulted runs.

Resources (the step may fail, in one line naming the program; the fault is then lifted, as a user
would, and the step runs again as the host would at the next event):

- ``full-disk``: our state directory, the repository's ``.entire/tmp`` and TMPDIR are small tmpfs
  mounts (the harness runs in a mount namespace of its own: ``unshare``), filled for the step but
  for the room the seed chooses (none, or one page: tmpfs counts pages);
- ``read-only-state``: our state directory and everything under it read-only for the step;
- ``unreadable``: one of our files (a view, its metadata, scratch state, an install record) mode
  000 for the step. These two run the plugin as a user that is not root (``unshare --map-user``), for
  whom modes count;
- ``view-deleted``, ``view-truncated``: one file of the session's views deleted, or cut in the
  middle of a line, by hand before the step, and left so (no torn check right after: we tore it);
- ``stale-lock``: each lock the step takes (in the unfaulted run) left by a process killed while it
  held it, before the step: it is taken over, and the step succeeds.

Reading subcommands are not checked for writes under contention (another process writes meanwhile).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import faults
from entire_sim.plugin import CallFailed

CONTENTION = ("concurrent-hook", "two-repos", "sessions-one-repo", "two-agents")
RESOURCES = ("full-disk", "read-only-state", "unreadable", "view-deleted", "view-truncated", "stale-lock")
CASES = CONTENTION + RESOURCES
MOUNTED = frozenset(["full-disk"])
"""Cases that mount a filesystem: the harness runs them in a mount namespace of its own."""
NAMESPACE_ENV = "ENTIRE_FAULTS_NAMESPACE"
TMPFS_SIZE = "16m"
USER = "1000"
"""Who the plugin runs as where modes must count (the harness may run as root, for whom they do not)."""


# -- namespaces, mounts and the plugin as another user ---------------------------------------------------------


def namespace_argv(argv: list[str]) -> list[str] | None:
    """The command that runs this harness again in a mount namespace of its own (where it may mount a
    tmpfs), or None when it runs in one already or ``unshare`` cannot make one here."""
    if os.environ.get(NAMESPACE_ENV) or not shutil.which("unshare"):
        return None
    command = ["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private"]
    if subprocess.run([*command, "true"], capture_output=True, check=False).returncode != 0:
        return None
    return [*command, sys.executable, *argv]


def _mount_tmpfs(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE},mode=0755", "tmpfs", str(path)],
                   check=True, capture_output=True)  # fmt: skip


def _unmount_all(root: Path) -> None:
    """Unmount every mount under ``root`` (deepest first)."""
    mounts = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()]
    for point in sorted((m for m in mounts if m.startswith(str(root) + "/")), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], check=False, capture_output=True)


def _fill(directory: Path, slack: int) -> Path:
    """Fill the filesystem of ``directory`` but ``slack`` bytes; the filler file."""
    filler = directory / ".faults-filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        size = 1 << 20
        while size:
            try:
                os.write(fd, bytes(size))
            except OSError:
                size //= 2
    finally:
        os.close(fd)
    if slack:
        size = filler.stat().st_size
        os.truncate(filler, max(0, size - slack))
    return filler


@contextlib.contextmanager
def as_user(work: Path) -> Iterator[None]:
    """While inside, every plugin runs as ``USER`` (a user namespace mapping it to us): modes count."""
    wrappers = work / "as-user"
    wrappers.mkdir(parents=True, exist_ok=True)
    bin_dir = Path(sys.executable).parent
    for script in bin_dir.glob("entire-agent-*"):
        wrapper = wrappers / script.name
        wrapper.write_text(
            f'#!/bin/sh\nexec unshare --user --map-user={USER} --map-group={USER} -- "{script}" "$@"\n'
        )
        wrapper.chmod(0o755)
    faults._wrapper[:] = [wrappers]
    try:
        yield
    finally:
        faults._wrapper.clear()


# -- the cases ------------------------------------------------------------------------------------------------


def _state(root: Path) -> Path:
    return root / "home" / ".local" / "state"


def _ours_in_state(files: set[str]) -> list[str]:
    """Our files in the state directory and the repository's scratch directory, but locks."""
    return sorted(f for f in files if (f.startswith("home/.local/state/") or f.startswith("repo/.entire/tmp/"))
                  and not f.endswith(".lock"))  # fmt: skip


def _hook_steps(harness: faults.Harness) -> list[int]:
    return [i for i, step in enumerate(harness.session.steps) if "hook" in step]


def candidates(case: str, harness: faults.Harness) -> list[int]:
    """The steps at which ``case`` has something to act on in the unfaulted run."""
    hooks = _hook_steps(harness)
    if case in ("view-deleted", "view-truncated"):
        return [i for i in hooks if any("/views/" in f for f in _ours_in_state(harness.ours_before[i]))]
    if case == "unreadable":
        return [i for i in hooks if _ours_in_state(harness.ours_before[i])]
    if case == "stale-lock":
        return sorted({p[0] for p in harness.points if p[3] == "lock.taken"})
    if case in ("two-repos", "sessions-one-repo", "two-agents"):
        return [0]
    return hooks


def run_case(
    case: str, harness: faults.Harness, index: int, rng: random.Random
) -> tuple[str, dict[str, list[str]]]:
    """One run of ``case`` at step ``index``: what was done, and the problems found, by kind."""
    session = harness.session
    root = session.root
    step = harness.session.steps[index]

    def plain(s: faults.Session, problems: dict[str, list[str]]) -> dict[str, Any]:
        return s.run(index)

    if case == "concurrent-hook":
        delay = rng.randrange(0, 40) / 1000
        return f"step {index} ({step.get('hook')}), second process after {delay * 1000:.0f} ms", _concurrent(
            harness, index, delay
        )
    if case == "two-repos":
        return "two repositories, one state directory", _two_repos(harness)
    if case == "sessions-one-repo":
        other = _second_session(harness)
        return (
            f"a second session ({', '.join(other.session.ids.values())}), interleaved step by step",
            _interleaved(harness, other),
        )
    if case == "two-agents":
        other = _other_agent(harness)
        delay = rng.randrange(0, 200) / 1000
        return f"{other.session.agent}'s session too, started after {delay * 1000:.0f} ms", _alongside(
            harness, other, delay
        )
    if case == "full-disk":
        slack = rng.choice([0, 0, 4096])  # tmpfs counts pages: 0 or one page free
        fillers: list[Path] = []
        places = [_state(root), root / "repo" / ".entire" / "tmp", root / "tmp"]

        def setup(s: faults.Session) -> None:
            for place in places:
                _mount_tmpfs(place)

        def full(s: faults.Session, problems: dict[str, list[str]]) -> dict[str, Any]:
            fillers.extend(_fill(place, slack) for place in places)
            return s.run(index)

        def recover() -> None:
            for filler in fillers:
                filler.unlink(missing_ok=True)

        try:
            return f"step {index} ({step.get('hook')}), {slack} bytes free", harness.trial(
                index, full, setup=setup, recover=recover
            )
        finally:
            _unmount_all(root)
    if case == "read-only-state":
        modes: dict[Path, int] = {}

        def read_only(s: faults.Session, problems: dict[str, list[str]]) -> dict[str, Any]:
            state = _state(root)
            state.mkdir(parents=True, exist_ok=True)
            for directory in [state, *(p for p in state.rglob("*") if p.is_dir())]:
                modes[directory] = directory.stat().st_mode
                directory.chmod(0o555)
            with as_user(harness.work):
                return s.run(index)

        def writable() -> None:
            for directory, mode in modes.items():
                directory.chmod(stat.S_IMODE(mode))

        return f"step {index} ({step.get('hook')})", harness.trial(index, read_only, recover=writable)
    if case == "unreadable":
        target = root / rng.choice(_ours_in_state(harness.ours_before[index]))
        kept: list[int] = []

        def unreadable(s: faults.Session, problems: dict[str, list[str]]) -> dict[str, Any]:
            if not target.exists():
                problems["unreached"].append(f"step {index}: {target.relative_to(root)} is not there")
                return s.run(index)
            kept.append(target.stat().st_mode)
            target.chmod(0)
            with as_user(harness.work):
                return s.run(index)

        def readable() -> None:
            if kept and target.exists():
                target.chmod(stat.S_IMODE(kept[0]))

        label = f"step {index} ({step.get('hook')}), {target.relative_to(root)} mode 000"
        return label, harness.trial(index, unreadable, recover=readable)
    if case in ("view-deleted", "view-truncated"):
        views = [f for f in _ours_in_state(harness.ours_before[index]) if "/views/" in f]
        target = root / rng.choice(views)
        cut = rng.random()

        def damaged(s: faults.Session, problems: dict[str, list[str]]) -> dict[str, Any]:
            if not target.exists():
                problems["unreached"].append(f"step {index}: {target.relative_to(root)} is not there")
            elif case == "view-deleted":
                target.unlink()
            else:
                size = target.stat().st_size
                os.truncate(target, int(size * cut))
            return s.run(index)

        how = "deleted" if case == "view-deleted" else f"cut to {cut:.0%}"
        return f"step {index} ({step.get('hook')}), {target.relative_to(root)} {how}", harness.trial(
            index, damaged, torn_after=False
        )
    if case == "stale-lock":
        paths = sorted({p[4] for p in harness.points if p[0] == index and p[3] == "lock.taken"})

        def stale(s: faults.Session, problems: dict[str, list[str]]) -> dict[str, Any]:
            for path in paths:
                left_by_killed_holder(path)
            return s.run(index)

        names = ", ".join(os.path.relpath(p, root) for p in paths)
        return f"step {index} ({step.get('hook') or next(iter(step))}), {names}", harness.trial(index, stale)
    raise LookupError(f"no such case: {case}")


def left_by_killed_holder(path: str) -> None:
    """Make ``path`` a lock file that a process held when it was killed (SIGKILL)."""
    code = ("import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600); "
            "fcntl.flock(fd, fcntl.LOCK_EX); os.kill(os.getpid(), 9)")  # fmt: skip
    os.makedirs(os.path.dirname(path), exist_ok=True)
    subprocess.run([sys.executable, "-c", code, path], check=False, capture_output=True)


def _companion_calls(harness: faults.Harness, index: int) -> list[tuple[str, ...] | tuple[str, bytes]]:
    """What a second host process asks of the session while step ``index`` runs (``concurrent-hook``)."""
    session = harness.session
    step = session.steps[index]
    sim = session.sim
    assert sim is not None
    hooks = sim.plugin(session.agent).info.get("hook_names") or []
    calls: list[Any] = []
    payload = session.read(step["payload"])
    if "subagent-stop" in hooks:
        calls.append(("parse-hook", "--hook", "subagent-stop", payload))
    elif session.agent != "aider":
        calls.append(("parse-hook", "--hook", step["hook"], payload))
    refs = [
        e.get("session_ref")
        for r in harness.reference[: index + 1]
        for e in r["events"]
        if e.get("session_ref")
    ]
    if refs:
        ref = refs[-1].replace("$ROOT", str(session.root))
        calls += [("prepare-transcript", "--session-ref", ref), ("read-transcript", "--session-ref", ref),
                  ("get-transcript-position", "--path", ref)]  # fmt: skip
    return calls


def _concurrent(harness: faults.Harness, index: int, delay: float) -> dict[str, list[str]]:
    failed: list[str] = []

    def second(session: faults.Session) -> None:
        time.sleep(delay)
        sim = session.sim
        assert sim is not None
        plugin = sim.plugin(session.agent)
        for call in _companion_calls(harness, index):
            stdin = call[-1] if isinstance(call[-1], bytes) else None
            args = [a for a in call if isinstance(a, str)]
            try:
                plugin.run(*args, stdin=stdin)
            except CallFailed as exc:
                if not faults._one_line_naming(str(exc.violation.message), session.agent):
                    failed.append(f"the second process's {args[0]}: {exc}")

    def both(session: faults.Session, problems: dict[str, list[str]]) -> dict[str, Any]:
        thread = threading.Thread(target=second, args=(session,))
        thread.start()
        try:
            return session.run(index)
        finally:
            thread.join()
            problems["hook"] += failed

    sandbox = list(faults._sandbox)
    faults._sandbox.clear()
    try:
        return harness.trial(index, both)
    finally:
        faults._sandbox[:] = sandbox


_second_repos: dict[str, tuple[faults.Harness, frozenset[str]]] = {}


def _two_repos(harness: faults.Harness) -> dict[str, list[str]]:
    """The session in a second repository (its own HOME and host) whose plugin shares the first's state
    directory and TMPDIR, run at the same time; each held to its own unfaulted run."""
    root = harness.session.root
    shared = {"XDG_STATE_HOME": str(_state(root)), "TMPDIR": str(root / "tmp")}
    sandbox = list(faults._sandbox)
    if harness.session.agent not in _second_repos:
        other = faults.Harness(harness.session.manifest, harness.work / "second")
        other.session.env.update(shared)
        other.session.create()  # its reference runs alone, with the first sandbox there but idle
        harness.session.create()
        other.prepare()
        _second_repos[harness.session.agent] = (other, frozenset(faults.ours(root)))
    other, its_files = _second_repos[harness.session.agent]
    faults._sandbox.clear()
    results: list[dict[str, Any]] = []

    def run_other() -> None:
        s = other.session
        s.create()
        s.attach()
        results.extend(s.run(i) for i in range(len(s.steps)))

    thread = threading.Thread(target=run_other)

    def start(session: faults.Session, problems: dict[str, list[str]]) -> dict[str, Any]:
        thread.start()
        return session.run(0)

    def finish(problems: dict[str, list[str]]) -> None:
        thread.join()
        for i, (got, want) in enumerate(zip(results, other.reference, strict=False)):
            if got["failed"]:
                problems["hook"].append(f"the second repository's step {i}: {got['failed']}")
            for kind in ("events", "checkpoints"):
                if got[kind] != want[kind] and not got["failed"]:
                    problems["checkpoint" if kind == "checkpoints" else "events"].append(
                        f"the second repository's step {i}: {faults._difference(got[kind], want[kind]) or 'differ'}"
                    )
        second: dict[str, list[str]] = {kind: [] for kind in faults.KINDS}
        other.end_checks(other.session.root, second)
        for kind, found in second.items():
            problems[kind] += [f"the second repository: {p}" for p in found]

    try:
        return harness.trial(0, start, finish=finish, also_ours=its_files, clean_after=False)
    finally:
        faults._sandbox[:] = sandbox


# -- several sessions in one repository: of one agent, of two ------------------------------------------------

_companions: dict[tuple[str, str], faults.Harness] = {}
"""Per (agent, companion): the companion's session prepared alone in the same sandbox path (its reference)."""


def _prepared(harness: faults.Harness, key: str, make: Callable[[], faults.Harness]) -> faults.Harness:
    """The companion session ``make`` gives, prepared once per agent: its unfaulted run alone, in the same
    sandbox path as ``harness``'s (each trial makes the sandbox anew), so paths and views' names agree."""
    if (harness.session.agent, key) not in _companions:
        sandbox = list(faults._sandbox)
        other = make()
        try:
            other.prepare()
        finally:
            faults._sandbox[:] = sandbox
        _companions[harness.session.agent, key] = other
    return _companions[harness.session.agent, key]


def _second_session(harness: faults.Harness) -> faults.Harness:
    """The agent's session again, as another session of it in the same repository: each session id of
    the unfaulted run (and so its transcripts' names) replaced where it appears by a new one (its first 8
    hex digits, which Gemini's file names hold); for Aider, whose ids come from the chat history file's
    path, another chat history file (``--chat-history-file``)."""

    def make() -> faults.Harness:
        other = faults.Harness(harness.session.manifest, harness.work)
        ids = sorted({e["session_id"] for r in harness.reference for e in r["events"] if e.get("session_id")})
        import hashlib

        other.session.ids = {sid[:8]: hashlib.sha256(sid.encode()).hexdigest()[:8] for sid in ids
                             if all(c in "0123456789abcdef" for c in sid[:8])}  # fmt: skip
        if harness.session.agent == "aider":  # its session ids come from the chat history file's path
            other.session.ids = {".aider.chat.history.md": ".aider.second.chat.history.md"}
        return other

    return _prepared(harness, "second-session", make)


def _other_agent(harness: faults.Harness) -> faults.Harness:
    """Another agent's bundled session in the same repository (the next agent by name, round)."""
    every = sorted(faults.demo.manifests(), key=lambda m: json.loads(m.read_text(encoding="utf-8"))["agent"])
    at = every.index(harness.session.manifest)
    manifest = every[(at + 1) % len(every)]

    def make() -> faults.Harness:
        other = faults.Harness(manifest, harness.work)
        other.session.files_under = "other-agent"  # its edits, not the first agent's files
        other.session.drop = REPOSITORY_FIELDS
        return other

    return _prepared(harness, f"agent:{manifest}", make)


REPOSITORY_FIELDS = frozenset(["files", "git_files", "dropped_files", "saved", "tokens"])
"""What the host puts in a checkpoint from the repository's changes (``git status`` at the turn's end;
tokens it counts only when something changed), which the other agent's session changes too: left out
of both agents' checkpoints in ``two-agents``. The rest (the transcript's bytes, lines, hash, offsets,
prompts, the session's reference) is the plugin's, and must be exact."""


@contextlib.contextmanager
def _sharing(harness: faults.Harness, other: faults.Harness) -> Iterator[None]:
    """While inside, what the sandbox must hold at the end is both sessions' (agent files, half-written
    files of the agents' own), reading subcommands are not checked (the other session writes), and the
    first session's checkpoints leave out what the other leaves out (``drop``)."""
    files, torn_last, reference = harness.reference_files, harness.reference_torn[-1], harness.reference
    harness.reference_files = {**other.reference_files, **files}
    harness.reference_torn[-1] = torn_last | other.reference_torn[-1]
    drop = other.session.drop
    harness.reference = [{**r, "checkpoints": [{k: v for k, v in c.items() if k not in drop}
                                               for c in r["checkpoints"]]} for r in reference]  # fmt: skip
    harness.session.drop = drop
    sandbox = list(faults._sandbox)
    faults._sandbox.clear()
    try:
        yield
    finally:
        harness.reference_files, harness.reference_torn[-1], harness.reference = files, torn_last, reference
        harness.session.drop = frozenset()
        faults._sandbox[:] = sandbox


def _held_to_its_run(other: faults.Harness, results: dict[int, dict[str, Any]], who: str,
                     problems: dict[str, list[str]]) -> None:  # fmt: skip
    """Each step of the companion session against its unfaulted run alone: no failure, the same events
    and checkpoints."""
    for i, got in sorted(results.items()):
        want = other.reference[i]
        if got["failed"]:
            problems["hook"].append(f"{who}'s step {i}: {got['failed']}")
            continue
        for kind in ("events", "checkpoints"):
            if got[kind] != want[kind]:
                problems["checkpoint" if kind == "checkpoints" else "events"].append(
                    f"{who}'s step {i}: {faults._difference(got[kind], want[kind]) or 'differ'}"
                )


def _interleaved(harness: faults.Harness, other: faults.Harness) -> dict[str, list[str]]:
    """``sessions-one-repo``: the second session's steps run each right after the first's same step, in
    one simulator (one host, one repository), from the first's ``enable`` to its ``disable``."""
    session = harness.session
    last = len(session.steps) - 1
    results: dict[int, dict[str, Any]] = {}
    plain = session.run

    def interleaved(index: int) -> dict[str, Any]:
        done = plain(index)
        if 0 < index < last and index < len(other.session.steps) - 1:
            other.session.sim = session.sim
            results[index] = other.session.run(index)
        return done

    def start(s: faults.Session, problems: dict[str, list[str]]) -> dict[str, Any]:
        s.run = interleaved
        return s.run(0)

    def finish(problems: dict[str, list[str]]) -> None:
        _held_to_its_run(other, results, "the second session", problems)

    with _sharing(harness, other):
        try:
            return harness.trial(0, start, finish=finish, also_ours=frozenset(other.reference_ours))
        finally:
            del session.run


def _alongside(harness: faults.Harness, other: faults.Harness, delay: float) -> dict[str, list[str]]:
    """``two-agents``: another agent's session in the same repository (same HOME, same TMPDIR, same
    host state) run at the same time, from its ``enable`` to its ``disable``, on a thread of its own."""
    results: dict[int, dict[str, Any]] = {}

    def run_other() -> None:
        time.sleep(delay)
        s = other.session
        s.attach()
        results.update((i, s.run(i)) for i in range(len(s.steps)))

    thread = threading.Thread(target=run_other)

    def start(session: faults.Session, problems: dict[str, list[str]]) -> dict[str, Any]:
        thread.start()
        return session.run(0)

    def finish(problems: dict[str, list[str]]) -> None:
        thread.join()
        _held_to_its_run(other, results, other.session.agent, problems)

    with _sharing(harness, other):
        return harness.trial(0, start, finish=finish, also_ours=frozenset(other.reference_ours),
                             clean_after=False)  # fmt: skip


# -- a run of every case --------------------------------------------------------------------------------------


def run(harness: faults.Harness, names: list[str], per_case: int, seed: int, out: Any) -> dict[str, Any]:
    """``per_case`` runs of each case of ``names`` on one agent: ``{case: {"runs", "failures", "details"}}``."""
    agent = harness.session.agent
    known = faults._known().get("cases", [])
    report: dict[str, Any] = {}
    for case in names:
        rng = random.Random(f"{seed}:{agent}:{case}")
        steps = candidates(case, harness)
        failures: Counter[str] = Counter()
        details: list[str] = []
        runs = 0
        matched: set[int] = set()
        for number in range(1, per_case + 1 if steps else 1):
            if not steps:
                out.write(f"  {agent} {case}: nothing to act on in this session\n")
                break
            runs += 1
            index = (
                steps[0] if case in ("two-repos", "sessions-one-repo", "two-agents") else rng.choice(steps)
            )
            did, problems = run_case(case, harness, index, rng)
            for number_of_entry, entry in enumerate(known):
                if entry["case"] == case and entry.get("agent", agent) == agent and problems[entry["kind"]]:
                    matched.add(number_of_entry)
                    problems["known"] += [
                        f"{entry['kind']}: {p} ({entry['why']})" for p in problems[entry["kind"]]
                    ]
                    problems[entry["kind"]] = []
            failed = harness.last_attempt.get("failed")
            label = f"{agent} {case} #{number}: {did}" + (
                f" (the step failed: {failed[:160]})" if failed else ""
            )
            for kind, found in problems.items():
                if found:
                    failures[kind] += 1
                    details.append(
                        f"{label}: {kind}: {found[0]}"
                        + (f" (+{len(found) - 1} more)" if len(found) > 1 else "")
                    )
            bad = [k for k, v in problems.items() if v and k not in faults.NOT_FAILURES]
            noted = [k for k, v in problems.items() if v and k in faults.NOT_FAILURES]
            out.write(f"  {label}: {'FAILED ' + ', '.join(bad) if bad else 'ok'}"
                      f"{' (' + ', '.join(noted) + ')' if noted else ''}\n")  # fmt: skip
            out.flush()
        unmatched = [e for i, e in enumerate(known) if i not in matched and e["case"] == case
                     and e.get("agent", agent) == agent] if runs else []  # fmt: skip
        report[case] = {"runs": runs, "failures": {k: failures[k] for k in faults.KINDS if failures[k]},
                        "details": details, "unmatched_known": unmatched}  # fmt: skip
    return report


def summary(report: dict[str, Any]) -> str:
    """One line per case: its runs and the runs failing a check, by kind."""
    return json.dumps({case: {"runs": r["runs"], **r["failures"]} for case, r in report.items()})
