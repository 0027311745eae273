"""``make faults``: each agent's recorded session, its plugin killed at chosen points, checked after each kill.

Issue 37. The session is the agent package's bundled real one (``demo/replay.json``, the one
``entire-sim demo`` replays), driven through the simulator (``entire_sim.simulator``) in a sandbox of
its own (repository, HOME, TMPDIR, the simulator's state): ``enable`` (``install-hooks``), every hook
with the agent's files growing as they grew, ``resume`` (``write-session``), ``generate-text`` (a
summary, as the host asks for one; the agent's CLI a fake on PATH, ``fake_agent``), ``disable``
(``uninstall-hooks``).

How the points are chosen: one run without faults lists, per step, every fault point each plugin
process passes (``ENTIRE_FAULT_TRACE``: before and after each write, fsync and rename of
``fsutil.atomic_write``, each lock taken and released, ``process.Guard``'s scratch directory made and
removed and its child started and reaped, the answer before and after it is written).
That is the population: ``(step, subcommand, k)``, the k-th point of that step's first process
running that subcommand. A seeded sample of it is killed (``sample``), each with SIGKILL or SIGTERM
(also from the seed); beyond one kill per point, each point again with the other signal, never a
(point, signal) twice: the run restarts from a fresh sandbox brought to the step, runs the step
with ``ENTIRE_FAULT_AT=<subcommand>:*#<k>`` (``ENTIRE_FAULT_ONCE``), runs it again unfaulted when the
host saw it fail (the agent's next hook, as the host would get it), and finishes the session.

What must hold after every kill (each a kind in the report):

- ``torn``: every JSON file we own parses (scratch state, views' metadata, install records, the
  agent's hook config), and so does every line of a JSONL view;
- ``leftover``: no ``*.tmp`` and no view ``.next`` anywhere in the sandbox, no lock file in a
  directory shared with other programs (TMPDIR, the plugin's state directory), no scratch directory
  of ``generate-text`` in TMPDIR;
- ``lock``: every ``*.lock`` left can be taken at once;
- ``process``: no process of ours (its HOME is the sandbox's) still runs, the agent's CLI that
  ``generate-text`` started included (the fake lives on when its plugin dies before it answered);
- ``hook``: the step run again succeeds, or fails with one line naming the program;
- ``agent-files``: the repository and HOME outside our own state are byte for byte the unfaulted run's
  at the end (after ``disable``: as before ``enable``);
- ``checkpoint``: every checkpoint of a step other than the killed one is the unfaulted run's; the
  killed step's are the unfaulted one's, or absent (counted), never different;
- ``events``: the events the host heard are the unfaulted run's, the killed step's possibly absent or
  heard twice (a retry giving the same answer again), never another;
- ``reading-writes``: a reading subcommand (``READING``) changed no file (checked on every call).

Contention and resource faults are ``cases.py``'s. ``--host``: the same steps driven by the real Entire CLI
(``host.py``). Not covered yet (issue 37): kills at instructions between points (timed kills), and the
real agents' CLIs under ``generate-text`` (a fake stands in).

Every run prints its seed; ``--seed`` repeats it exactly. Exit status 1 when a check failed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from entire_core.cli import READING
from entire_sim import demo
from entire_sim.plugin import CallFailed, Plugin
from entire_sim.simulator import Simulator

SIGNALS = ("KILL", "TERM")
KINDS = ("torn", "leftover", "lock", "process", "hook", "agent-files", "checkpoint", "events", "unreached",
         "host-fallback", "known")  # fmt: skip
"""What is checked after each kill. ``unreached``: the chosen point was not passed, nothing was killed;
``host-fallback``: the host's own handling of a failed call shaped the killed turn (listed, not ours);
``known``: a failure ``known.json`` lists, with why, until it is fixed (listed, not counted)."""
NOT_FAILURES = frozenset(["host-fallback", "known"])
KNOWN = Path(__file__).with_name("known.json")
"""Failures known and not fixed yet (issue 37), with why: per agent, the files reading subcommands
write; and kinds of failure after a kill of a subcommand. Listed, not counted; a fix of a reading
write makes its entry stale, and the run says so."""


def _known() -> dict[str, Any]:
    return json.loads(KNOWN.read_text(encoding="utf-8")) if KNOWN.exists() else {}


PROCESS_GRACE_SECONDS = 5.0


# -- the plugin calls: an environment added to every call, and a check of the reading ones ------------------

_base_env: dict[str, str] = {}
"""Added to every plugin call (``--pythonpath``)."""
_extra_env: dict[str, str] = {}
"""Added to the plugin calls of one step (the fault point, the trace)."""
_sandbox: list[Path] = []
_reading_writes: list[str] = []
_wrapper: list[Path] = []
"""A directory of wrappers (``cases.as_user``): while set, every plugin runs through its wrapper there."""


def _patch_plugins() -> None:
    """Every plugin call gets ``_extra_env``; every reading call is checked for writes (once per process)."""
    if getattr(Plugin, "_faults_patched", False):
        return
    env_of, run_of = Plugin.env, Plugin.run

    def env(self: Plugin) -> dict[str, str]:
        return {**env_of(self), **_base_env, **_extra_env}

    def run(self: Plugin, subcommand: str, *args: str, **kwargs: Any) -> Any:
        if _wrapper:
            wrapped = Plugin(
                str(_wrapper[0] / Path(self.path).name), self.name, self.repo_root, self.base_env
            )
            wrapped.info, wrapped.calls, wrapped.violations = self.info, self.calls, self.violations
            return run_of(wrapped, subcommand, *args, **kwargs)
        if subcommand not in READING or not _sandbox:
            return run_of(self, subcommand, *args, **kwargs)
        before = snapshot(_sandbox[0])
        try:
            return run_of(self, subcommand, *args, **kwargs)
        finally:
            changed = sorted(_differences(before, snapshot(_sandbox[0])))
            if changed:
                _reading_writes.extend(f"{subcommand}: {path[1:]}" for path in changed)

    Plugin.env, Plugin.run = env, run
    Plugin._faults_patched = True  # type: ignore[attr-defined]


def snapshot(root: Path, skip: tuple[str, ...] = (".git", "state")) -> dict[str, tuple[int, int, int]]:
    """``{relative path: (size, mtime_ns, inode)}`` of every file under ``root`` but ``skip`` at the top."""
    found: dict[str, tuple[int, int, int]] = {}
    for directory, dirs, files in os.walk(root):
        relative = os.path.relpath(directory, root)
        if relative == ".":
            dirs[:] = [d for d in dirs if d not in skip]
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = os.path.join(directory, name)
            with contextlib.suppress(OSError):
                info = os.lstat(path)
                found[os.path.normpath(os.path.join(relative, name))] = (
                    info.st_size,
                    info.st_mtime_ns,
                    info.st_ino,
                )
    return found


def _differences(before: dict[str, tuple[int, int, int]], after: dict[str, tuple[int, int, int]]) -> set[str]:
    return {f"{'+' if p not in before else '-' if p not in after else '~'}{p}"
            for p in before.keys() | after.keys() if before.get(p) != after.get(p)}  # fmt: skip


# -- one session, step by step -----------------------------------------------------------------------------


DELIVERERS = frozenset(["aider", "cline-cli"])
"""Agents whose hooks a deliverer of ours runs and acknowledges (``entire_core.eventqueue``): Aider's come
from ``notify`` and the launcher, Cline's from the hook scripts we install (``hooks.delivering_script``).
The harness is that deliverer here: after each hook, what their ``delivered`` command does (``settle``)."""


def settle_delivery(agent: str, repo: Path, delivered: bool) -> None:
    """What a deliverer does after each ``entire hooks`` call it runs: the event the call took leaves the
    queue when the host has it, and is answered again when the call failed (issue 37)."""
    from entire_core import eventqueue, liveness
    from entire_core.scratch import Scratch

    eventqueue.settle(Scratch(str(repo), agent), liveness.token(), delivered=delivered)


class Session:
    """One agent's bundled session in the sandbox ``root`` (always the same path: ids and views name it)."""

    def __init__(self, manifest: Path, root: Path, env: dict[str, str] | None = None) -> None:
        self.manifest = manifest
        self.root = root
        self.env = env or {}
        """Over the plugins' environment (``cases``: a state directory shared with another sandbox)."""
        self.ids: dict[str, str] = {}
        """Text replaced in every payload, transcript, path and session id of the replay (``cases``: a
        second session of the agent, its ids not the first one's)."""
        self.files_under = ""
        """Where the session's edits of the repository go (``cases``: another agent's, not on these)."""
        self.drop: frozenset[str] = frozenset()
        """Fields of a checkpoint left out of its record (``cases``: what the host derives from the
        repository, which another agent's session changes too)."""
        self.replay = demo.Replay(manifest, root)
        self.agent: str = self.replay.spec["agent"]
        self.steps: list[dict[str, Any]] = [{"enable": True}, *self.replay.spec["steps"], {"generate": True},
                                            {"disable": True}]  # fmt: skip
        self.sim: Simulator | None = None

    def create(self) -> None:
        """The sandbox before the first step: a git repository, an empty HOME and TMPDIR."""
        shutil.rmtree(self.root, ignore_errors=True)
        demo.make_repo(self.replay.repo)
        for name in ("home", "tmp"):
            (self.root / name).mkdir(parents=True)

    def attach(self) -> None:
        """A simulator (a fresh ``entire`` process's view) over the sandbox as it stands."""
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(self.replay.home), "LANG": "C.UTF-8",
               "TMPDIR": str(self.root / "tmp"), "ENTIRE_AGENT_FRONT": "0"}  # fmt: skip
        env.update({k: self.replay.expand(v) for k, v in self.replay.spec.get("env", {}).items()})
        if self.agent in DELIVERERS:  # this process delivers the hooks, as notify does (``deliver``)
            from entire_core import eventqueue, liveness

            env[eventqueue.DELIVERY_ENV] = liveness.token()
        env.update(self.env)
        self.sim = Simulator(self.replay.repo, state_dir=self.root / "state", env=env)

    def run(self, index: int) -> dict[str, Any]:
        """Step ``index``: ``{"failed": error or "", "events": [...], "checkpoints": [...]}``."""
        sim = self.sim
        assert sim is not None
        step = self.steps[index]
        done: dict[str, Any] = {"failed": "", "events": [], "checkpoints": []}
        try:
            if "enable" in step:
                sim.enable(self.agent)
            elif "disable" in step:
                sim.disable(self.agent)
            elif "write" in step or "files" in step:
                self.change(step)
            elif "hook" in step:
                payload = self.read(step["payload"])
                record = sim.hook(self.agent, step["hook"], payload)
                if self.agent in DELIVERERS:
                    settle_delivery(self.agent, self.replay.repo, not record.get("error"))
                done["failed"] = record.get("error") or ""
                if record.get("event"):
                    done["events"].append(self.normal(record["event"]))
                if record.get("checkpoint"):
                    done["checkpoints"].append(self.normal(record["checkpoint"]))
            elif "resume" in step:
                sim.resume(self.agent, self.renamed(step["resume"]), chunk_size=step.get("chunk_size"))
            elif "generate" in step:
                done["events"].append({"kind": "generate-text", "text": self.generate()})
        except (CallFailed, OSError, ValueError, LookupError) as exc:
            done["failed"] = str(exc) or type(exc).__name__
        return done

    def change(self, step: dict[str, Any]) -> None:
        """A ``write`` or ``files`` step: the agent's session file grown, or the repository's files changed."""
        if "write" in step:
            data = self.read(step["from"])
            if "lines" in step:
                data = b"".join(data.splitlines(keepends=True)[: step["lines"]])
            target = Path(self.renamed(self.replay.expand(step["write"])))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        for name, content in step.get("files", {}).items():
            path = self.replay.repo / self.files_under / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")

    def read(self, relative: str) -> bytes:
        """A payload or transcript of the replay, its captured paths rewritten and ``ids`` replaced."""
        data = self.replay.read(relative)
        for old, new in self.ids.items():
            data = data.replace(old.encode(), new.encode())
        return data

    def renamed(self, text: str) -> str:
        for old, new in self.ids.items():
            text = text.replace(old, new)
        return text

    def generate(self) -> str:
        """``generate-text`` as the host asks it for a checkpoint's summary, the agent's CLI a fake on PATH
        (``fake_agent``): the answer."""
        sim = self.sim
        assert sim is not None
        plugin = sim.plugin(self.agent)
        bin_dir = self.root / "fake-bin"
        if not (bin_dir / BINARIES[self.agent]).exists():
            fake_agent(self.agent, bin_dir)
        last = next(s for s in reversed(self.steps) if "write" in s)
        transcript = self.read(last["from"])[:4096].decode("utf-8", "replace")
        prompt = f"Summarise this coding session in one sentence:\n\n{transcript}"
        saved = plugin.base_env
        plugin.base_env = {**saved, "PATH": f"{bin_dir}{os.pathsep}{saved.get('PATH', '')}",
                           "OPENAI_API_KEY": "fake", "GEMINI_API_KEY": "fake", "ENTIRE_AGENT_TEXT_TIMEOUT": "20"}  # fmt: skip
        try:
            answer = plugin.json("generate-text", stdin=prompt.encode("utf-8"))
        finally:
            plugin.base_env = saved
        return str(answer.get("text"))

    def normal(self, record: dict[str, Any]) -> dict[str, Any]:
        """A record without what differs run to run (times, the turn count a repeated hook moves)."""
        text = json.dumps(
            {k: v for k, v in record.items() if k not in ("time", "turn", *self.drop)}, sort_keys=True
        )
        return json.loads(text.replace(str(self.root), "$ROOT"))


# -- the agent's own CLI, faked for generate-text ------------------------------------------------------------

FAKE_AGENT = """#!{python}
# A stand-in for {binary} (``make faults``): answers as the real one does (as the package tests' fakes do),
# records what a run records in its working directory and home, and, when the plugin that started it is
# gone before it answers (killed), goes on as a real agent mid-request would, for a while.
import hashlib, json, os, sys, time
agent = {agent!r}


def plugin_alive(pid):  # the entire-agent-* process that started us
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return b"entire-agent-" in f.read()
    except OSError:
        return False


started_by = os.getppid()
for _ in range(3):  # a real agent takes seconds; this one a moment, long enough to see its caller die
    if os.getppid() != started_by or not plugin_alive(started_by):
        time.sleep({orphan_seconds})
        sys.exit(0)
    time.sleep(0.05)
args = sys.argv[1:]
value = lambda flag: args[args.index(flag) + 1]
with open("run-record.txt", "w") as f:  # the working directory: ours, the scratch directory's
    f.write(" ".join(args))
answer = {answer!r}
if agent == "qwen-code":
    runtime = os.environ["QWEN_RUNTIME_DIR"]
    os.makedirs(os.path.join(runtime, "projects", "x", "chats"), exist_ok=True)
    with open(os.path.join(runtime, "projects", "x", "chats", "s.jsonl"), "w") as f:
        f.write(json.dumps({{"prompt": value("-p")[:40]}}) + "\\n")
    key = hashlib.sha256((os.getcwd() + "/logs/openai").encode()).hexdigest()[:16]
    marker = os.path.join(os.environ["HOME"], ".qwen", ".openai-logs-cleanup-" + key)
    os.makedirs(os.path.dirname(marker), exist_ok=True)
    with open(marker, "w") as f:  # Qwen 0.23+'s housekeeping marker: the Guard removes it with the run
        f.write("0")
    print(answer)
elif agent == "openai-codex":
    sys.stdin.read()
    with open(value("--output-last-message"), "w") as f:
        f.write(answer)
elif agent == "google-gemini":
    sys.stdin.read()
    home = os.environ.get("GEMINI_CLI_HOME", "")
    if home:
        os.makedirs(os.path.join(home, ".gemini", "tmp", "run", "chats"), exist_ok=True)
        with open(os.path.join(home, ".gemini", "tmp", "run", "chats", "session-1.jsonl"), "w") as f:
            f.write("{{}}\\n")
    print(json.dumps({{"session_id": "x", "response": "  " + answer + "  ", "stats": {{}}}}, indent=2))
elif agent == "cline-cli":  # cline --json: its session in its data directory, the answer a run_result line
    session = os.path.join(os.environ["CLINE_DATA_DIR"], "sessions", "s1")
    os.makedirs(session, exist_ok=True)
    with open(os.path.join(session, "s1.messages.json"), "w") as f:
        f.write(json.dumps({{"messages": [{{"role": "user", "content": args[-1][:40]}}]}}) + "\\n")
    print(json.dumps({{"type": "run_result", "finishReason": "completed", "text": answer}}))
elif agent == "aider":
    prompt = open(value("--message-file")).read()
    with open(value("--chat-history-file"), "w") as f:
        f.write("\\n# aider chat started at 2026-12-01 10:00:00\\n\\n> Aider v0.86.2  \\n\\n")
        f.write("#### " + prompt[:40] + "  \\n\\n" + answer + "\\n\\n> Tokens: 1.2k sent, 56 received.  \\n")
"""
BINARIES = {"qwen-code": "qwen", "openai-codex": "codex", "google-gemini": "gemini", "aider": "aider",
            "cline-cli": "cline"}  # fmt: skip
ORPHAN_SECONDS = 3 * PROCESS_GRACE_SECONDS
"""How long a fake agent whose plugin was killed before it answered lives on (a real one finishes its
request): longer than the process check waits, so that one left running is seen."""


def fake_agent(agent: str, bin_dir: Path, answer: str = "A short sentence about the session.") -> Path:
    """The agent's CLI on a PATH of its own (``bin_dir``): a script that answers ``generate-text``'s run
    as the real one would (the package tests' fakes: ``test_textgen.py``, ``test_compact_and_textgen.py``,
    ``test_textgen_doctor.py``, ``test_hooks_and_transcript.py``), with ``answer``."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    path = bin_dir / BINARIES[agent]
    path.write_text(FAKE_AGENT.format(python=sys.executable, binary=BINARIES[agent], agent=agent,
                                      orphan_seconds=ORPHAN_SECONDS, answer=answer))  # fmt: skip
    path.chmod(0o755)
    return path


# -- what must hold ----------------------------------------------------------------------------------------


PARSED = (".json", ".jsonl", ".toml", ".yml", ".yaml")


def torn(root: Path) -> list[str]:
    """Files that do not parse: every JSON, JSONL, TOML and YAML file of the repository and HOME (ours:
    scratch state, views and their metadata, install records; the agent's config we edit; the agent's
    own, which the session wrote whole)."""
    import tomllib

    import yaml

    problems: list[str] = []
    mine = (root / "repo" / ".entire" / "tmp", root / "home" / ".local")
    for base in (root / "repo", root / "home"):
        for directory, dirs, files in os.walk(base):
            dirs[:] = [d for d in dirs if d not in (".git", "sim")]
            for name in files:
                path = Path(directory, name)
                if path.suffix not in PARSED or name.endswith(".tmp"):
                    continue
                try:
                    data = path.read_bytes()
                    if path.suffix == ".jsonl":
                        for line in data.splitlines():
                            if line.strip():
                                json.loads(line)
                    elif path.suffix == ".json" and (
                        data.strip() or any(path.is_relative_to(p) for p in mine)
                    ):
                        json.loads(data)  # a file of ours is never empty: we write a JSON value whole
                    elif path.suffix == ".toml":
                        tomllib.loads(data.decode("utf-8"))
                    elif path.suffix in (".yml", ".yaml"):
                        yaml.safe_load(data)
                except (OSError, ValueError, yaml.YAMLError) as exc:
                    problems.append(f"{path.relative_to(root)}: {str(exc)[:120]}")
    return problems


def leftovers(root: Path) -> list[str]:
    """Temporary files and views' ``.next`` files anywhere in the sandbox, lock files left in
    directories shared with other programs (TMPDIR, the plugin's state directory), and scratch
    directories (``generate-text``'s) left in TMPDIR."""
    found: list[str] = []
    shared = (root / "tmp", root / "home" / ".local" / "state")
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git" and Path(directory, d) != root / "state"]
        for name in files:
            path = Path(directory, name)
            in_shared = any(path.is_relative_to(place) for place in shared) and path.parent.name != ".meta"
            if name.endswith((".tmp", ".next")) or (name.endswith(".lock") and in_shared):
                found.append(str(path.relative_to(root)))
    with contextlib.suppress(OSError):
        found += [f"tmp/{p.name}/ (a scratch directory)" for p in (root / "tmp").iterdir()
                  if p.is_dir() and p.name.startswith(SCRATCH_PREFIXES)]  # fmt: skip
    return found


SCRATCH_PREFIXES = ("entire-agent-", "entire-codex-")
"""How ``process.Guard``'s scratch directories in TMPDIR are named (``generate-text``)."""


def ours(root: Path) -> set[str]:
    """The files in the places that hold only what we write: our scratch directory, our state and data
    directories in HOME, TMPDIR."""
    places = [root / "repo" / ".entire" / "tmp", root / "home" / ".local", root / "tmp"]
    return {
        str(p.relative_to(root))
        for place in places
        if place.is_dir()
        for p in place.rglob("*")
        if p.is_file()
    }


def held_locks(root: Path) -> list[str]:
    """Lock files in the sandbox that another process still holds."""
    import fcntl

    held: list[str] = []
    for path in root.rglob("*.lock"):
        with contextlib.suppress(OSError):
            fd = os.open(path, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
            except BlockingIOError:
                held.append(str(path.relative_to(root)))
            finally:
                os.close(fd)
    return held


def processes(root: Path) -> list[str]:
    """Processes still running with the sandbox's HOME (ours, or what ours started), after a grace."""
    needle = f"HOME={root / 'home'}".encode() + b"\0"

    def running() -> list[str]:
        found: list[str] = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != os.getpid():
                with contextlib.suppress(OSError):
                    if needle in Path(f"/proc/{entry}/environ").read_bytes():
                        found.append(f"pid {entry}: " + Path(f"/proc/{entry}/cmdline").read_bytes()
                                     .replace(b"\0", b" ").decode(errors="replace")[:120])  # fmt: skip
        return found

    deadline = time.monotonic() + PROCESS_GRACE_SECONDS
    while (left := running()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


HOSTS_OWN = (
    os.path.join("home", ".local"),
    os.path.join("home", ".config", "entire"),
)  # ours, the host's (--host)


def agent_files(root: Path) -> dict[str, str]:
    """``{path: sha256}`` of the repository (without ``.git`` and Entire's ``.entire``) and HOME without
    our state: the agent's own files, what install-hooks changes."""
    found: dict[str, str] = {}
    for base in ("repo", "home"):
        for directory, dirs, files in os.walk(root / base):
            relative = os.path.relpath(directory, root)
            dirs[:] = [d for d in dirs if d not in (".git", ".entire") and os.path.join(relative, d)
                       not in HOSTS_OWN]  # fmt: skip
            for name in files:
                path = os.path.join(directory, name)
                with open(path, "rb") as f:
                    found[os.path.relpath(path, root)] = hashlib.sha256(f.read()).hexdigest()
    return found


# -- the population of points, the sample, the runs --------------------------------------------------------


class Harness:
    """One agent: an unfaulted run (the reference and the points), then the sampled kills."""

    def __init__(self, manifest: Path, work: Path, session_type: type[Session] | None = None) -> None:
        self.session = (session_type or Session)(manifest, work / "sandbox")
        self.work = work
        self.reference: list[dict[str, Any]] = []
        self.reference_files: dict[str, str] = {}
        self.reference_torn: list[set[str]] = []
        self.reference_ours: set[str] = set()
        self.ours_before: list[set[str]] = []
        self.last_attempt: dict[str, Any] = {}
        """The faulted step's result in the last ``trial`` (for the report)."""
        """Per step, our files before it ran (where a resource fault finds something to break)."""
        self.points: list[tuple[int, str, int, str, str]] = []

    def prepare(self) -> None:
        """Run the session unfaulted: each step's result, the agent's files at the end, every point."""
        session = self.session
        session.create()
        _sandbox[:] = [session.root]
        session.attach()
        trace = self.work / "trace"
        for index in range(len(session.steps)):
            self.ours_before.append(ours(session.root))
            trace.unlink(missing_ok=True)
            _extra_env.clear()
            _extra_env["ENTIRE_FAULT_TRACE"] = str(trace)
            try:
                self.reference.append(session.run(index))
            finally:
                _extra_env.clear()
            if self.reference[-1]["failed"]:
                raise RuntimeError(f"step {index} fails without a fault: {self.reference[-1]['failed']}")
            self.points += _points_of(index, trace)
            self.reference_torn.append(set(torn(session.root)))  # the agent's own half-written files
        self.reference_files = agent_files(session.root)
        self.reference_ours = ours(session.root)

    def kill(self, point: tuple[int, str, int, str, str], signal: str) -> dict[str, list[str]]:
        """One run killed at ``point`` with ``signal``: the problems found, by kind."""
        index, subcommand, k = point[:3]
        once = self.work / "died"

        def attempt(session: Session, problems: dict[str, list[str]]) -> dict[str, Any]:
            once.unlink(missing_ok=True)
            _extra_env.update({"ENTIRE_FAULT_AT": f"{subcommand}:*#{k}", "ENTIRE_FAULT_SIGNAL": signal,
                               "ENTIRE_FAULT_ONCE": str(once)})  # fmt: skip
            try:
                return session.run(index)
            finally:
                _extra_env.clear()
                if not once.exists():
                    problems["unreached"].append(
                        f"step {index}: the fault point {subcommand}:*#{k} was never reached"
                    )

        problems = self.trial(index, attempt, killed=True)
        # --host (host.HostSession): what the real host's own handling of the killed call made is host-fallback
        getattr(self.session, "host_fallback", lambda *_: None)(point, self.last_attempt, problems)
        return problems

    def trial(self, index: int, attempt: Callable[[Session, dict[str, list[str]]], dict[str, Any]], *,
              killed: bool = False, torn_after: bool = True, setup: Callable[[Session], object] | None = None,
              recover: Callable[[], object] | None = None, finish: Callable[[dict[str, list[str]]], object] | None = None,
              also_ours: frozenset[str] = frozenset(), clean_after: bool = True) -> dict[str, list[str]]:  # fmt: skip
        """One faulted run, from a fresh sandbox: the problems found, by kind.

        ``attempt`` runs step ``index`` under the fault. A killed step (``killed``) may fail any way;
        under any other fault, the step fails in one line naming the program or succeeds, and its
        checkpoints are absent only when it failed (visibly), and the host's fallback is no excuse.
        ``torn_after``: every file parses right after the attempt (not where the fault tore a file by
        hand). ``setup`` runs on the new sandbox, ``recover`` after the attempt (the fault lifted, as a
        user would), before the step runs again; ``finish`` after the session's last step. ``also_ours``:
        files of ours the sandbox may hold besides the unfaulted run's (another sandbox's, sharing it).
        ``clean_after``: a step that was not killed leaves no temporary file, ``.next`` or shared lock
        behind it, even when it failed (not where another process still runs).

        Fresh, not a copy of the sandbox as it stood: a copy gives every file a new inode, and what an
        agent's state remembers of a file (Aider's history, a view) would see it replaced.
        """
        session = self.session
        session.create()
        if setup is not None:
            setup(session)
        session.attach()
        before = [session.run(earlier) for earlier in range(index)]
        if any(result["failed"] for result in before):
            raise RuntimeError(f"a step before {index} fails without a fault")
        problems: dict[str, list[str]] = {kind: [] for kind in KINDS}
        first = self.last_attempt = attempt(session, problems)
        if first["failed"] and not killed and not _one_line_naming(first["failed"], session.agent):
            problems["hook"].append(f"step {index} under the fault: {first['failed']}")
        results = [first]
        if torn_after:
            expected = self.reference_torn[index] | (self.reference_torn[index - 1] if index else set())
            problems["torn"] += [
                f"right after the fault: {p}" for p in torn(session.root) if p not in expected
            ]
        if clean_after and not killed:
            problems["leftover"] += [f"right after the fault: {p}" for p in leftovers(session.root)]
        if recover is not None:
            recover()
        if first["failed"]:
            again = session.run(index)  # the agent's next hook: the host sees it afresh
            results.append(again)
            if again["failed"] and not _one_line_naming(again["failed"], session.agent):
                problems["hook"].append(f"step {index} again: {again['failed']}")
        later = [session.run(i) for i in range(index + 1, len(session.steps))]
        for offset, result in enumerate(later, index + 1):
            if result["failed"]:
                problems["hook"].append(f"step {offset}: {result['failed']}")
        if finish is not None:
            finish(problems)
        self._compare(index, before, results, later, problems, excused=killed)
        self.end_checks(session.root, problems, also_ours)
        return problems

    def end_checks(
        self, root: Path, problems: dict[str, list[str]], also_ours: frozenset[str] = frozenset()
    ) -> None:
        """What must hold of the sandbox ``root`` when the session is over (``disable`` done)."""
        problems["torn"] += [p for p in torn(root) if p not in self.reference_torn[-1]]
        problems["leftover"] += leftovers(root)
        problems["leftover"] += [f"{p} (the unfaulted run leaves no such file)"
                                 for p in sorted(ours(root) - self.reference_ours - also_ours)]  # fmt: skip
        problems["lock"] += held_locks(root)
        problems["process"] += processes(root)
        final = agent_files(root)
        if final != self.reference_files:
            changed = sorted(p for p in final.keys() | self.reference_files.keys()
                             if final.get(p) != self.reference_files.get(p))  # fmt: skip
            problems["agent-files"].append("differ from the unfaulted run: " + ", ".join(changed))

    def _compare(self, index: int, before: list[dict[str, Any]], results: list[dict[str, Any]],
                 later: list[dict[str, Any]], problems: dict[str, list[str]], *, excused: bool = True) -> None:  # fmt: skip
        """The events the host heard and the checkpoints it made, in order, against the unfaulted run's.

        Each sequence must be the unfaulted one but for the killed step's items, which may come twice (a
        retry giving the same answer again) and, for a checkpoint, be absent (the host failed the step
        after it heard the event), and for when
        items arrive: an agent that queues events (Aider) answers the next one at the step run again,
        so later items may come a step early, never different, never lost. Where the host took the kill
        as no failure and carried on with its own fallback (a failed ``get-transcript-position`` is
        position 0, failed token counts are none), the killed turn's items, up to its end, are the
        host's doing: listed as ``host-fallback``, not ours.
        """
        fallback_until = index
        if not results[0]["failed"] and excused:
            ends = (j for j in range(index, len(self.reference))
                    if any(e.get("type") in (3, 5) for e in self.reference[j]["events"]))  # fmt: skip
            fallback_until = next(ends, len(self.reference) - 1)  # the turn's end: TurnEnd, else SessionEnd
        for kind, label in (("events", "events"), ("checkpoints", "checkpoint")):
            want = [(step, item) for step, result in enumerate(self.reference) for item in result[kind]]
            got = [
                (step, item) for step, result in enumerate([*before, *results[:1]]) for item in result[kind]
            ]
            got += [(index, item) for result in results[1:] for item in result[kind]]
            got += [(step, item) for step, result in enumerate(later, index + 1) for item in result[kind]]
            # an event heard is never lost; a turn the host failed (visibly, unless killed) has no checkpoint
            absent_ok = kind == "checkpoints" and (excused or bool(results[0]["failed"]))
            until = fallback_until if not results[0]["failed"] and excused else -1
            for problem_kind, text in _align(want, got, index, until, absent_ok=absent_ok):
                problems[label if problem_kind == "wrong" else problem_kind].append(text)


def _align(want: list[tuple[int, Any]], got: list[tuple[int, Any]], killed: int, fallback_until: int, *,
           absent_ok: bool) -> list[tuple[str, str]]:  # fmt: skip
    """What keeps ``got`` from being ``want`` with the killed step's items twice, or (``absent_ok``)
    absent, and up to ``fallback_until`` the host's fallback: ``[("wrong" | "host-fallback", text)]``."""
    found: list[tuple[str, str]] = []
    i = j = 0
    last: Any = None
    while j < len(got):
        step, item = got[j]
        if i < len(want) and item == want[i][1]:
            last, i, j = item, i + 1, j + 1
        elif item == last and step >= killed and want[i - 1][0] == killed:
            j += 1  # the killed step's item again: a retry that gives the same answer
        elif i < len(want) and killed <= want[i][0] <= fallback_until and step <= fallback_until:
            found.append(("host-fallback", f"step {want[i][0]}: {_summary(item)} instead of {_summary(want[i][1])}"
                          + _difference([item], [want[i][1]])))  # fmt: skip
            i, j = i + 1, j + 1
        elif absent_ok and i < len(want) and want[i][0] == killed:
            i += 1  # the killed step's item, absent: the host failed that step
        else:
            expected = _summary(want[i][1]) + f" of step {want[i][0]}" if i < len(want) else "nothing"
            found.append(("wrong", f"step {step}: {_summary(item)} where the unfaulted run has {expected}"
                          + (_difference([item], [want[i][1]]) if i < len(want) else "")))  # fmt: skip
            return found
    lost = [w for w in want[i:] if w[0] != killed or not absent_ok]
    if lost:
        found.append(
            ("wrong", f"lost: {', '.join(_summary(item) + f' of step {step}' for step, item in lost)}")
        )
    return found


def _difference(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> str:
    """The fields that differ between the first records of two lists, for the report."""
    if not got or not want:
        return ""
    keys = sorted(k for k in got[0].keys() | want[0].keys() if got[0].get(k) != want[0].get(k))
    return " (" + ", ".join(f"{k}: {got[0].get(k)!r:.60} vs {want[0].get(k)!r:.60}" for k in keys[:4]) + ")"


def _summary(record: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:8] + (
        f"(type {record['type']})"
        if "type" in record
        else f"({record.get('kind')} {record.get('session_id', '')[:12]})"
    )


def _one_line_naming(error: str, agent: str) -> bool:
    return "\n" not in error.strip() and f"entire-agent-{agent}" in error


def _points_of(index: int, trace: Path) -> list[tuple[int, str, int, str, str]]:
    """``(step, subcommand, k, point, path)`` for every point the first process of each subcommand passed."""
    if not trace.exists():
        return []
    first: dict[str, str] = {}
    count: Counter[str] = Counter()
    points: list[tuple[int, str, int, str, str]] = []
    for line in trace.read_text(encoding="utf-8", errors="replace").splitlines():
        pid, subcommand, point, path = [*line.split("\t"), "", "", ""][:4]
        if first.setdefault(subcommand, pid) != pid:
            continue
        count[subcommand] += 1
        points.append((index, subcommand, count[subcommand], point, path))
    return points


Point = tuple[int, str, int, str, str]


def sample(population: list[Point], kills: int, rng: random.Random, fixed_signal: str | None = None
           ) -> list[tuple[Point, str]]:  # fmt: skip
    """``kills`` (point, signal) pairs of ``population``, from ``rng``: every point once, with a signal
    from the seed, before any point twice; then points again with the other signal; never a pair twice.
    So up to one kill per point it is a sample of the points; up to two, every point and a sample of
    them again; beyond, every pair once (``fixed_signal``: one pair per point)."""
    order = rng.sample(population, len(population))
    first = [(p, fixed_signal or rng.choice(SIGNALS)) for p in order]
    if fixed_signal:
        return first[:kills]
    second = [(p, next(s for s in SIGNALS if s != signal)) for p, signal in first]
    return (first + rng.sample(second, len(second)))[:kills]


def run_agent(manifest: Path, kills: int, seed: int, work: Path, out: Any, *, points: list[str] | None = None,
              fixed_signal: str | None = None, list_points: bool = False, cases: list[str] | None = None,
              per_case: int = 0, subcommands: list[str] | None = None, session_type: type[Session] | None = None
              ) -> dict[str, Any]:  # fmt: skip
    """Every check after ``kills`` sampled kills of one agent's session (or at ``points``), then ``per_case``
    runs of each of ``cases`` (``cases.py``); a report dict. ``session_type``: who drives the steps
    (``host.HostSession``: the real Entire CLI; default the simulator)."""
    harness = Harness(manifest, work, session_type)
    _reading_writes.clear()
    started = time.monotonic()
    harness.prepare()
    reading = list(_reading_writes)
    rng = random.Random(f"{seed}:{harness.session.agent}")
    if list_points:
        out.write("".join(f"  {p[0]}:{p[1]}:{p[2]} {p[3]} {p[4]}\n" for p in harness.points))
        chosen: list[tuple[tuple[int, str, int, str, str], str]] = []
    elif points:
        named = {f"{p[0]}:{p[1]}:{p[2]}": p for p in harness.points}
        for p in reversed(harness.points):  # STEP:SUBCOMMAND:<point name>: the first such point
            named[f"{p[0]}:{p[1]}:{p[3]}"] = p
        missing = [p for p in points if p not in named]
        if missing:
            raise LookupError(f"no such point in {harness.session.agent}'s session: {', '.join(missing)}")
        chosen = [(named[p], fixed_signal or rng.choice(SIGNALS)) for p in points]
    else:
        population = [p for p in harness.points if not subcommands or p[1] in subcommands]
        chosen = sample(population, kills, rng, fixed_signal)
    failures: Counter[str] = Counter()
    matched_kills: set[int] = set()
    by_subcommand: dict[str, Counter[str]] = {}
    details: list[str] = []
    for number, (point, signal) in enumerate(chosen, 1):
        _reading_writes.clear()
        problems = harness.kill(point, signal)
        for number_of_entry, entry in enumerate(_known().get("kills", [])):
            after = entry.get("after_point")
            passed = [p[3] for p in harness.points if p[:2] == point[:2] and p[2] < point[2]]
            if (entry["subcommand"] == point[1] and entry.get("agent", harness.session.agent) == harness.session.agent
                    and problems[entry["kind"]] and (not after or after in passed)):  # fmt: skip
                matched_kills.add(number_of_entry)
                problems["known"] += [
                    f"{entry['kind']}: {p} ({entry['why']})" for p in problems[entry["kind"]]
                ]
                problems[entry["kind"]] = []
        reading += _reading_writes
        by_subcommand.setdefault(point[1], Counter())[signal] += 1
        label = f"{harness.session.agent} #{number} {point[0]}:{point[1]}:{point[2]} ({point[3]}) SIG{signal}"
        for kind, found in problems.items():
            if found:
                failures[kind] += 1
                details.append(
                    f"{label}: {kind}: {found[0]}" + (f" (+{len(found) - 1} more)" if len(found) > 1 else "")
                )
        bad = [k for k, v in problems.items() if v and k not in NOT_FAILURES]
        noted = [k for k, v in problems.items() if v and k in NOT_FAILURES]
        out.write(
            f"  {label}: {'FAILED ' + ', '.join(bad) if bad else 'ok'}{' (' + ', '.join(noted) + ')' if noted else ''}\n"
        )
        out.flush()
    writes = sorted(set(reading))
    case_report: dict[str, Any] = {}
    if cases and per_case:
        import cases as contention_and_resources

        case_report = contention_and_resources.run(harness, list(cases), per_case, seed, out)
    return {
        "cases": case_report,
        "agent": harness.session.agent, "points": len(harness.points), "kills": len(chosen),
        "by_subcommand": {k: dict(sorted(v.items())) for k, v in sorted(by_subcommand.items())},
        "population": dict(sorted(Counter(p[1] for p in harness.points).items())), "failures": {k: failures[k] for k in KINDS},
        "reading_writes": writes, "details": details, "seconds": round(time.monotonic() - started, 1),
        "matched_known": sorted(matched_kills),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="faults", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--agent", action="append", help="an agent's registry name (default: every agent)")
    parser.add_argument("--kills", type=int, default=25, help="kills per agent (default 25)")
    parser.add_argument("--seed", type=int, default=None, help="repeat a run (default: a new seed, printed)")
    parser.add_argument("--work", help="where the sandbox and snapshots go (default: a temporary directory)")
    parser.add_argument("--json", help="write the report as JSON to this file")
    parser.add_argument(
        "--point",
        action="append",
        metavar="STEP:SUBCOMMAND:K",
        help="kill at this point (as the report names it; K may be a point's name, for its first "
        "one) instead of a sample; repeatable",
    )
    parser.add_argument(
        "--list-points", action="store_true", help="print every point of the session and stop"
    )
    parser.add_argument("--case", action="append", metavar="CASE", help="a contention or resource case "
                        "(cases.py: " + ", ".join(_case_names()) + "; default: every one); repeatable")  # fmt: skip
    parser.add_argument("--cases", type=int, default=0, help="runs of each case per agent (default 0)")
    parser.add_argument("--subcommand", action="append", metavar="SUBCOMMAND", help="kill only in calls of "
                        "this subcommand (generate-text, parse-hook, ...); repeatable")  # fmt: skip
    parser.add_argument("--signal", choices=SIGNALS, help="always this signal (default: from the seed)")
    parser.add_argument("--pythonpath", metavar="DIR", help="put DIR first on the plugins' PYTHONPATH: a "
                        "sitecustomize.py there can break core on purpose, to see a check catch it")  # fmt: skip
    parser.add_argument("--host", action="store_true", help="drive each step with the real Entire CLI named by "
                        "ENTIRE_BIN (host.py), not the simulator; compared with the unfaulted host run")  # fmt: skip
    args = parser.parse_args(argv)
    import host

    if args.host and (refused := host.refused(args.cases)):
        sys.stderr.write(refused + "\n")
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    every = {json.loads(m.read_text(encoding="utf-8"))["agent"]: m for m in demo.manifests()}
    unknown = sorted(set(args.agent or []) - set(every))
    if unknown:
        sys.stderr.write(
            f"faults: no bundled session for {', '.join(unknown)}; there are: {', '.join(sorted(every))}\n"
        )
        return 2
    chosen_cases = args.case or (list(_case_names()) if args.cases else [])
    if set(chosen_cases) - set(_case_names()):
        sys.stderr.write(
            f"faults: no such case: {', '.join(sorted(set(chosen_cases) - set(_case_names())))}\n"
        )
        return 2
    if args.cases and any(c in _mounting() for c in chosen_cases):
        import cases as contention_and_resources

        again = contention_and_resources.namespace_argv([str(Path(__file__).resolve()), *(argv or sys.argv[1:]),
                                                        "--seed", str(seed)])  # fmt: skip
        if again is not None:  # a full disk needs a tmpfs, which needs a mount namespace
            sys.stdout.flush()
            done = subprocess.run(
                again, env={**os.environ, contention_and_resources.NAMESPACE_ENV: "1"}, check=False
            )
            return done.returncode
        if not os.environ.get(contention_and_resources.NAMESPACE_ENV):
            sys.stderr.write(
                "faults: no mount namespace here (unshare --user --mount): the full-disk case is left out\n"
            )
            chosen_cases = [c for c in chosen_cases if c not in _mounting()]
    _patch_plugins()
    if args.pythonpath:
        _base_env["PYTHONPATH"] = os.pathsep.join(
            [os.path.abspath(args.pythonpath), os.environ.get("PYTHONPATH", "")]
        )
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="entire-faults-"))
    print(
        f"faults: seed {seed} (repeat with --seed {seed}), {args.kills} kills per agent"
        + (f", {args.cases} runs of each of {', '.join(chosen_cases)}" if args.cases else "")
        + f", in {work}"
        + (f", under the real host {host.entire_bin()}" if args.host else "")
    )
    reports = []
    try:
        for agent in args.agent or sorted(every):
            print(f"{agent}:")
            reports.append(run_agent(every[agent], args.kills, seed, work / agent, sys.stdout,
                                     points=args.point, fixed_signal=args.signal, list_points=args.list_points,
                                     cases=chosen_cases, per_case=args.cases, subcommands=args.subcommand,
                                     session_type=host.HostSession if args.host else None))  # fmt: skip
    finally:
        _sandbox.clear()
        host.close()
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    known: dict[str, list[str]] = _known().get("reading_writes", {})
    failed = False
    for report in reports:
        bad = {k: v for k, v in report["failures"].items() if v and k not in NOT_FAILURES}
        noted = {k: v for k, v in report["failures"].items() if v and k in NOT_FAILURES}
        expected = set(known.get(report["agent"], []))
        new_writes = [w for w in report["reading_writes"] if w not in expected]
        stale = sorted(expected - set(report["reading_writes"]))
        failed = failed or bool(bad) or bool(new_writes) or bool(stale)
        print(f"{report['agent']}: {report['kills']} kills of {report['points']} points in {report['seconds']} s; "
              f"runs failing a check, by kind: {bad or 'none'}" + (f"; noted: {noted}" if noted else ""))  # fmt: skip
        print("  kills by subcommand and signal (of the points each subcommand passes): " + ("; ".join(
            f"{sub} {sum(by.values())} ({', '.join(f'SIG{k} {n}' for k, n in by.items())}) of "
            f"{report['population'].get(sub, 0)}" for sub, by in report["by_subcommand"].items()) or "none"))  # fmt: skip
        for line in report["details"]:
            print(f"  {line}")
        for line in report["reading_writes"]:
            print(
                f"  a reading subcommand wrote: {line}{' (known: ' + KNOWN.name + ')' if line in expected else ''}"
            )
        for line in stale:
            print(f"  {KNOWN.name} lists a write no reading subcommand made any more: {line} (remove it)")
        for case, result in report["cases"].items():
            bad = {k: v for k, v in result["failures"].items() if k not in NOT_FAILURES}
            noted = {k: v for k, v in result["failures"].items() if k in NOT_FAILURES}
            failed = failed or bool(bad)
            print(f"{report['agent']}: {case}: {result['runs']} runs; failing a check, by kind: {bad or 'none'}"
                  + (f"; noted: {noted}" if noted else ""))  # fmt: skip
            for line in result["details"]:
                print(f"  {line}")
            for entry in result.get("unmatched_known", []):
                print(f"  {KNOWN.name}'s cases entry {case}/{entry['kind']}"
                      f"{' (' + entry['agent'] + ')' if entry.get('agent') else ''} matched no failure in "
                      f"{result['runs']} runs (stale if it never does: each run's step is from the seed)")  # fmt: skip
    matched = {i for report in reports for i in report.get("matched_known", [])}
    for i, entry in enumerate(_known().get("kills", [])):
        killed = sum(sum(r["by_subcommand"].get(entry["subcommand"], {}).values()) for r in reports
                     if entry.get("agent", r["agent"]) == r["agent"])  # fmt: skip
        if killed and i not in matched:
            print(f"{KNOWN.name}'s kills entry {entry['subcommand']}/{entry['kind']}"
                  f"{' after ' + entry['after_point'] if entry.get('after_point') else ''}"
                  f"{' (' + entry['agent'] + ')' if entry.get('agent') else ''} matched none of {killed} kills of "
                  f"{entry['subcommand']} in this run (stale if it never does: kills are sampled)")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps({"seed": seed, "agents": reports}, indent=2) + "\n")
    print(f"faults: seed {seed}: {'FAILED' if failed else 'all checks held'}")
    return 1 if failed else 0


def _case_names() -> tuple[str, ...]:
    import cases as contention_and_resources

    return contention_and_resources.CASES


def _mounting() -> frozenset[str]:
    import cases as contention_and_resources

    return contention_and_resources.MOUNTED


if __name__ == "__main__":
    # As the module ``faults``, which cases.py imports: one copy of the harness's state, not two.
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import faults

    sys.exit(faults.main())
