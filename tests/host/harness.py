"""The real Entire CLI in the loop: what every ``host`` test needs.

- ``entire_bin()``: the host binary from ``ENTIRE_BIN``; without it a ``host`` test skips with one line
  (``ENTIRE_HOST=1``: it fails instead; see ``tests/host/conftest.py``).
- ``plugin_bin(work)``: the four plugins built into wheels from a copy of this checkout and installed
  with ``uv tool install`` into one tool directory, whose bin directory goes on ``PATH``.
- ``agent_binary(agent)``: the real agent at the newest version of its support window, from the
  end-to-end tests' cache (``entire_sim.e2e``).
- ``Namespace``: a loopback-only network namespace (``unshare -n``) that lives while a scenario runs;
  every command of the scenario (the scripted model server, the agent, ``entire``, ``git commit``)
  runs inside it through ``nsenter``.
- ``World``: a scratch repository with a home, ``XDG`` homes and ``TMPDIR`` of its own, and the
  environment the agent, ``entire`` and the plugins run with (telemetry and update checks off,
  ``ENTIRE_PLUGIN_TRACE`` naming the trace of every plugin call); with a ``Kill``, the fault point
  that hangs a plugin call from one turn on, for the host's own timeout to kill it;
- ``read_checkpoints(repo, backend)``: what the host stored, read with git from the checkpoint refs
  (``refs/entire/checkpoints/<xx>/<id>``) or from the ``entire/checkpoints/v1`` branch.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

NEEDS = "needs ENTIRE_BIN=<path to a built Entire CLI v0.10.3 binary>"
"""The one line a ``host`` test skips with when there is no host."""

NEWEST = {
    "openai-codex": ("npm", "@openai/codex", "codex"),
    "google-gemini": ("npm", "@google/gemini-cli", "gemini"),
    "aider": ("pypi", "aider-chat", "aider"),
    "qwen-code": ("npm", "@qwen-code/qwen-code", "qwen"),
    "cline-cli": ("npm", "cline", "cline"),
}
"""How each agent's real binary is installed (the version is the newest of its support window)."""

BACKENDS = ("git-refs", "branch", "small-view")
"""The runs of each scenario: checkpoints in v0.10.3's default backend (one ref per checkpoint), in
``entire/checkpoints/v1``, and in the default backend again with the smallest view budget, so that the
views re-base at every turn (``variant_env``)."""
KILLED = "killed"
"""One more run, in the default backend, of a scenario whose test names a ``Kill``: a plugin call hangs
in the middle of a turn's end until the host kills it."""
SMALL_VIEW = {"ENTIRE_VIEW_BUDGET": "4096"}
"""The plugins' smallest view budget (``entire_core.views.MIN_BUDGET``): a session past it at once."""


def storage(backend: str) -> str:
    """The checkpoint backend a run stores into (``small-view`` is the default one)."""
    return "branch" if backend == "branch" else "git-refs"


def variant_env(backend: str) -> dict[str, str]:
    """What a run's environment adds for its variant: the small view budget, reaching the plugins
    through the agent, its hooks and ``entire``."""
    return dict(SMALL_VIEW) if backend == "small-view" else {}


@dataclass(frozen=True)
class Kill:
    """Where the ``killed`` run hangs a plugin call: from the start of the turn ``turn`` on, the first
    plugin process to reach the fault point ``at`` (``ENTIRE_FAULT_AT``: ``[<subcommand>:]<point>...``,
    ``entire_core.faults``) stops itself (``SIGSTOP``), and only that one (``ENTIRE_FAULT_ONCE``).
    Nothing of ours ends it: the host's own timeout does (``defaultRunTimeout``, 30 s, then SIGKILL:
    v0.10.3 ``agent/external/external.go``), unless the agent's timeout for the hook ends first."""

    turn: str
    at: str

    def env(self, once: Path) -> dict[str, str]:
        """The environment that arms it, ``once`` made beforehand: disarmed until ``World.turn_starts``."""
        return {"ENTIRE_FAULT_AT": self.at, "ENTIRE_FAULT_SIGNAL": "STOP", "ENTIRE_FAULT_ONCE": str(once)}


TRAILER = re.compile(r"^Entire-Checkpoint:\s*(\S+)\s*$", re.MULTILINE)


class HostUnavailable(RuntimeError):
    """A ``host`` test cannot run here: ``reason`` is one line, ``details`` the evidence."""

    def __init__(self, reason: str, details: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.details = details


def required() -> bool:
    """True where ``host`` tests must run (``ENTIRE_HOST=1``): a missing piece fails them."""
    return os.environ.get("ENTIRE_HOST", "") == "1"


def entire_bin() -> Path:
    """The real Entire CLI named by ``ENTIRE_BIN``."""
    named = os.environ.get("ENTIRE_BIN", "")
    if not named:
        raise HostUnavailable(NEEDS)
    path = Path(named)
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise HostUnavailable(f"ENTIRE_BIN={named} is not an executable file; {NEEDS}")
    return path


def newest_version(agent: str) -> str:
    """The newest version of ``agent``'s support window."""
    if agent == "openai-codex":
        from entire_agent_openai_codex.versions import WINDOW
    elif agent == "google-gemini":
        from entire_agent_google_gemini.versions import WINDOW
    elif agent == "qwen-code":
        from entire_agent_qwen_code.versions import WINDOW
    elif agent == "cline-cli":
        from entire_agent_cline_cli.versions import WINDOW
    else:
        from entire_agent_aider.versions import WINDOW
    return WINDOW.versions()[-1]


def agent_binary(agent: str) -> Path:
    """The real agent's executable at the newest version of its window, installed once into the cache."""
    from entire_sim import e2e

    kind, package, binary = NEWEST[agent]
    version = newest_version(agent)
    try:
        if kind == "npm":
            return e2e.npm_tool(package, version, binary)
        return e2e.pypi_tool(package, version) / binary
    except e2e.Unavailable as exc:
        raise HostUnavailable(exc.reason, exc.details) from exc


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what points uv or Python at the checkout; uv offline."""
    drop = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "ENTIRE_SIM_STATE", "ENTIRE_REPO_ROOT")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith(("UV_", "PIP_"))}
    if os.environ.get("UV_CACHE_DIR"):
        env["UV_CACHE_DIR"] = os.environ["UV_CACHE_DIR"]
    env.update(UV_OFFLINE="1", UV_PYTHON_DOWNLOADS="never", UV_NO_CONFIG="1", NO_COLOR="1")
    env.update(extra)
    return env


def plugin_bin(work: Path) -> Path:
    """Every plugin built into a wheel from a copy of this checkout and installed with ``uv tool install``
    (from the built wheels, as users will from PyPI) into one tool directory; its bin directory."""
    from checkout import copy_checkout

    source = copy_checkout(work / "checkout")
    env = clean_env()
    uv = shutil.which("uv") or "uv"
    dist = work / "dist"
    # The third-party wheels pinned in uv.lock, as the release smoke test keeps them: an offline resolve
    # from uv's cache alone fails on a machine whose cache never saw the registry's index pages.
    house = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "release" / "smoke.py"), "--wheelhouse"],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    if house.returncode != 0:
        raise RuntimeError(f"the release wheelhouse is not there:\n{house.stderr}")
    steps = [[uv, "build", "--all-packages", "--no-sources", "--out-dir", str(dist), "-q"]]
    tools, bin_dir = work / "uv-tools", work / "uv-bin"
    env.update(UV_TOOL_DIR=str(tools), UV_TOOL_BIN_DIR=str(bin_dir))
    local = ["--no-index", "--find-links", str(dist), "--find-links", house.stdout.strip()]
    for agent in NEWEST:
        # --no-cache: a wheel at a path seen before (a reused --basetemp) is read again, not taken from the cache.
        steps.append(
            [uv, "tool", "install", "-q", "--no-cache", "--no-sources", *local, f"entire-agent-{agent}"]
        )
    for argv in steps:
        done = subprocess.run(
            argv, cwd=source, env=env, capture_output=True, text=True, timeout=600, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed:\n{done.stdout}\n{done.stderr}")
    return bin_dir


class Namespace:
    """A loopback-only network namespace held open by a sleeping process; commands enter it with nsenter."""

    def __init__(self) -> None:
        if shutil.which("unshare") is None or shutil.which("nsenter") is None:
            raise HostUnavailable("needs unshare and nsenter (Linux network namespaces)")
        self.holder = subprocess.Popen(
            ["unshare", "-n", "sh", "-c", "ip link set lo up && echo up && exec sleep 86400"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.holder.stdout is not None
        line = self.holder.stdout.readline()
        if line.strip() != b"up":
            err = self.holder.stderr.read().decode(errors="replace") if self.holder.stderr else ""
            self.close()
            raise HostUnavailable(
                f"cannot create a loopback-only network namespace (run as root): {err.strip()}"
            )

    def argv(self, argv: list[str]) -> list[str]:
        """``argv`` run inside the namespace."""
        return ["nsenter", "-t", str(self.holder.pid), "-n", "--", *argv]

    def __enter__(self) -> Namespace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.holder.poll() is None:
            self.holder.kill()
        self.holder.wait(timeout=10)
        for pipe in (self.holder.stdout, self.holder.stderr):
            if pipe is not None:
                pipe.close()


@dataclass
class Run:
    """What one command did."""

    argv: list[str]
    code: int
    stdout: str
    stderr: str
    seconds: float


class World:
    """A scratch repository, a home and XDG homes of its own, and the environment its commands run with.

    With ``side_files`` (files a plugin reads besides the session files its hooks name), ``entire`` on
    ``PATH`` notes them as each process finds them (``_side_file_wrapper``; ``side_states``). With
    ``kill``, every process of the world carries its fault point, armed when its turn starts."""

    def __init__(
        self, root: Path, ns: Namespace, paths: list[Path], entire: Path, *, side_files: tuple[Path, ...] = (),
        kill: Kill | None = None, **extra: str,
    ) -> None:  # fmt: skip
        self.root, self.ns = root, ns
        self.kill, self.once, self.armed = kill, root / "fault-once", False
        self.repo, self.home = root / "repo", root / "home"
        self.trace = root / "trace.jsonl"
        self.side_trace = root / "side-files.jsonl"
        host_bin = root / "host-bin"
        for d in (self.repo, self.home, host_bin, root / "tmp"):
            d.mkdir(parents=True, exist_ok=True)
        if side_files:
            _side_file_wrapper(host_bin / "entire", entire, side_files, self.side_trace,
                               Path(str(self.trace) + ".files"))  # fmt: skip
        else:
            (host_bin / "entire").symlink_to(entire)
        self.env = {
            "PATH": os.pathsep.join([str(host_bin), *map(str, paths), "/usr/local/bin", "/usr/bin", "/bin"]),
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(root / "xdg-config"),
            "XDG_DATA_HOME": str(root / "xdg-data"),
            "XDG_STATE_HOME": str(root / "xdg-state"),
            "XDG_CACHE_HOME": str(root / "xdg-cache"),
            "TMPDIR": str(root / "tmp"),
            "LANG": "C.UTF-8",
            "TZ": "UTC",  # local times an agent writes (Aider's session header) read back alike in a replay
            "TERM": "dumb",
            "NO_COLOR": "1",
            "ENTIRE_TELEMETRY_OPTOUT": "1",
            "ENTIRE_NO_AUTO_UPDATE": "1",
            "ENTIRE_TEST_TTY": "0",
            "ENTIRE_PLUGIN_TRACE": str(self.trace),
            "GIT_AUTHOR_NAME": "User",
            "GIT_AUTHOR_EMAIL": "user@example.invalid",
            "GIT_COMMITTER_NAME": "User",
            "GIT_COMMITTER_EMAIL": "user@example.invalid",
            "GIT_CONFIG_NOSYSTEM": "1",
            **(kill.env(self.once) if kill else {}),
            **extra,
        }
        if kill:
            self.once.touch()  # disarmed until its turn starts
        self.log: list[Run] = []
        # The agents' shell tools run login shells (`bash -lc`), whose /etc/profile resets PATH: the user's
        # profile puts `entire` and the plugins back, as a user's own profile does.
        (self.home / ".bash_profile").write_text(f'export PATH="{self.env["PATH"]}"\n', encoding="utf-8")

    def run(
        self,
        argv: list[str],
        *,
        stdin: bytes = b"",
        timeout: float = 300,
        check: bool = True,
        env: dict[str, str] | None = None,
    ) -> Run:
        """Run ``argv`` in the repository, inside the namespace; with ``check`` a non-zero exit fails."""
        started = time.monotonic()
        done = subprocess.run(
            self.ns.argv(argv), cwd=self.repo, env={**self.env, **(env or {})}, input=stdin,
            capture_output=True, timeout=timeout, check=False,
        )  # fmt: skip
        run = Run(argv, done.returncode, done.stdout.decode("utf-8", "replace"),
                  done.stderr.decode("utf-8", "replace"), round(time.monotonic() - started, 2))  # fmt: skip
        self.log.append(run)
        if check and run.code != 0:
            raise AssertionError(
                f"{' '.join(argv)}: exit {run.code}\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
            )
        return run

    def turn_starts(self, label: str) -> None:
        """The agent's turn ``label`` starts: the kill's fault point is armed when this is its turn."""
        if self.kill and label == self.kill.turn:
            self.once.unlink()
            self.armed = True

    def killed(self) -> bool:
        """Whether a plugin process reached the kill's point since it was armed (and stopped there)."""
        return self.armed and self.once.exists()

    def entire(self, *args: str, check: bool = True) -> Run:
        return self.run(["entire", *args], check=check)

    def git(self, *args: str) -> str:
        return self.run(["git", *args]).stdout

    def init_repo(self, files: dict[str, str], branch: str = "feature") -> None:
        """A repository with ``files`` committed on ``main``, then a feature branch checked out."""
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.name", "User")  # the user's identity (Aider writes a placeholder otherwise)
        self.git("config", "user.email", "user@example.invalid")
        for name, text in files.items():
            (self.repo / name).parent.mkdir(parents=True, exist_ok=True)
            (self.repo / name).write_text(text, encoding="utf-8")
        self.git("add", "-A")
        self.git("commit", "-qm", "the user's project")
        self.git("switch", "-q", "-c", branch)

    def commit(self, message: str, paths: list[str]) -> str:
        """The user's commit of ``paths`` (added, changed or deleted); its sha."""
        self.git("add", "-A", "--", *paths)
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD").strip()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def trace_calls(self) -> list[dict[str, Any]]:
        """Every plugin call so far, as ``ENTIRE_PLUGIN_TRACE`` recorded it."""
        if not self.trace.exists():
            return []
        return [json.loads(line) for line in self.trace.read_text(encoding="utf-8").splitlines() if line]

    def side_states(self) -> list[dict[str, Any]]:
        """The side files each ``entire`` process found at its start (``side_files``), in order."""
        if not self.side_trace.exists():
            return []
        return [json.loads(line) for line in self.side_trace.read_text(encoding="utf-8").splitlines() if line]

    def processes(self) -> dict[int, list[str]]:
        """The processes running with this world's HOME, by pid: their argv. A process whose environment
        cannot be read (another user's) is not ours."""
        needle = f"HOME={self.home}".encode() + b"\0"
        found: dict[int, list[str]] = {}
        for entry in filter(str.isdigit, os.listdir("/proc")):
            try:
                if needle in Path(f"/proc/{entry}/environ").read_bytes():
                    argv = Path(f"/proc/{entry}/cmdline").read_bytes().rstrip(b"\0").split(b"\0")
                    found[int(entry)] = [arg.decode(errors="replace") for arg in argv]
            except OSError:
                continue
        return found

    def processes_left(self, grace: float = 5.0) -> list[str]:
        """The processes still running with this world's HOME (what the scenario started, and what they
        started), after ``grace`` seconds; each is killed once listed (by its pid), so that none outlives
        its run (``processes``)."""

        def running() -> dict[int, str]:
            return {pid: " ".join(argv)[:160] for pid, argv in self.processes().items()}

        deadline = time.monotonic() + grace
        while (left := running()) and time.monotonic() < deadline:
            time.sleep(0.2)
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        return [f"pid {pid}: {argv}" for pid, argv in sorted(left.items())]

    def files_left(self) -> list[str]:
        """What a killed writer of ours may leave and must not: a temporary file of ``atomic_write``
        (``.<name>.<writer>.tmp``; the agents' own, as Gemini CLI's ``projects.json.<uuid>.tmp``, are
        theirs) or a view's ``.next`` anywhere in the world but ``.git``, a lock file in a directory
        shared with other programs (``TMPDIR``, the plugins' state directories, but the views' own
        ``.meta``), and a lock file anywhere that a process still holds."""
        import fcntl

        shared = (self.root / "tmp", self.root / "xdg-state")
        found: list[str] = []
        for directory, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if d != ".git"]
            for name in files:
                path = Path(directory, name)
                stray = (
                    name.endswith(".lock")
                    and path.parent.name != ".meta"
                    and any(path.is_relative_to(place) for place in shared)
                )
                if (name.startswith(".") and name.endswith(".tmp")) or name.endswith(".next") or stray:
                    found.append(str(path.relative_to(self.root)))
                elif name.endswith(".lock"):
                    with contextlib.suppress(OSError):
                        fd = os.open(path, os.O_RDONLY)
                        try:
                            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        except BlockingIOError:
                            found.append(f"{path.relative_to(self.root)} (held)")
                        finally:
                            os.close(fd)
        return found

    def snapshot(self) -> dict[str, bytes]:
        """Every file of the work tree (but .git) and ``.git/config``, by relative path."""
        out: dict[str, bytes] = {}
        for path in sorted(self.repo.rglob("*")):
            rel = path.relative_to(self.repo).as_posix()
            if path.is_file() and not rel.startswith(".git/"):
                out[rel] = path.read_bytes()
        out[".git/config"] = (self.repo / ".git" / "config").read_bytes()
        return out


def _side_file_wrapper(
    path: Path, entire: Path, side_files: tuple[Path, ...], states: Path, keep: Path
) -> None:
    """``entire`` as a script that notes each of ``side_files`` as the process found it, then execs the
    host (the same pid: the plugins' trace names it ``host_pid``).

    A side file is one a plugin reads besides the session files its hooks name (Aider's analytics log):
    the plugins' trace keeps the session files as they stood at each hook, this keeps the side files:
    one line per file in ``states`` (``host_pid``, ``time``, ``path``, ``size``, ``sha256``) and its bytes
    as ``keep/<sha256>``, where the trace keeps the session files'. A file is copied before it is hashed:
    the agent may be appending to it.
    """
    note = '{"host_pid": %d, "time": %s, "path": %s, "size": %d, "sha256": "%s"}\\n'
    lines = [
        "#!/bin/bash",
        f"keep={shlex.quote(str(keep))}",
        f"states={shlex.quote(str(states))}",
        'mkdir -p "$keep"',
    ]
    for side in side_files:
        lines += [
            f"side={shlex.quote(str(side))}",
            'if [ -f "$side" ]; then',
            '  copy=$(mktemp "$keep/side.XXXXXX") && cp "$side" "$copy"',
            '  digest=$(sha256sum "$copy") && digest=${digest%% *} && size=$(stat -c %s "$copy")',
            '  mv "$copy" "$keep/$digest"',
            f'  printf {shlex.quote(note)} $$ "$(date +%s.%N)" {shlex.quote(json.dumps(str(side)))} "$size" "$digest" >> "$states"',
            "fi",
        ]
    path.write_text("\n".join([*lines, f'exec {shlex.quote(str(entire))} "$@"', ""]), encoding="utf-8")
    path.chmod(0o755)


# -- what the host stored ------------------------------------------------------------------------------


@dataclass
class Session:
    """One session's part of a checkpoint (``<n>/``)."""

    metadata: dict[str, Any]
    full: bytes
    transcript: bytes
    prompt: str
    content_hash: str


@dataclass
class Checkpoint:
    id: str
    metadata: dict[str, Any]
    sessions: list[Session] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def _git_bytes(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, check=True).stdout


def _show(repo: Path, rev: str, path: str) -> bytes:
    done = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=repo, capture_output=True, check=False)
    return done.stdout if done.returncode == 0 else b""


def _checkpoint(repo: Path, rev: str, prefix: str, cid: str) -> Checkpoint:
    names = _git_bytes(repo, "ls-tree", "-r", "--name-only", rev, "--", prefix or ".").decode().split()
    files = [n[len(prefix) :] for n in names]
    top = json.loads(_show(repo, rev, f"{prefix}metadata.json") or b"{}")
    point = Checkpoint(cid, top, files=files)
    for index in range(len(top.get("sessions") or [])):
        base = f"{prefix}{index}/"
        point.sessions.append(
            Session(
                json.loads(_show(repo, rev, base + "metadata.json") or b"{}"),
                _show(repo, rev, base + "full.jsonl"),
                _show(repo, rev, base + "transcript.jsonl"),
                _show(repo, rev, base + "prompt.txt").decode("utf-8", "replace"),
                _show(repo, rev, base + "content_hash.txt").decode().strip(),
            )
        )
    return point


def read_checkpoints(repo: Path, backend: str) -> dict[str, Checkpoint]:
    """Every checkpoint the host stored, by id: one ref each (``git-refs``) or the v1 branch (``branch``)."""
    out: dict[str, Checkpoint] = {}
    if backend == "git-refs":
        refs = (
            _git_bytes(repo, "for-each-ref", "--format=%(refname)", "refs/entire/checkpoints/")
            .decode()
            .split()
        )
        for ref in refs:
            cid = ref.rsplit("/", 1)[-1]
            out[cid] = _checkpoint(repo, ref, "", cid)
        return out
    branch = "entire/checkpoints/v1"
    if not _git_bytes(repo, "branch", "--list", branch).strip():
        return out
    names = _git_bytes(repo, "ls-tree", "-r", "--name-only", branch).decode().split()
    for name in names:
        parts = name.split("/")
        if len(parts) == 3 and parts[2] == "metadata.json":
            cid = parts[0] + parts[1]
            out[cid] = _checkpoint(repo, branch, f"{parts[0]}/{parts[1]}/", cid)
    return out


def trailers(repo: Path, since: str) -> list[tuple[str, str, str]]:
    """``(sha, subject, checkpoint id or "")`` of every commit after ``since`` on HEAD, oldest first."""
    raw = _git_bytes(repo, "log", "--reverse", "--format=%H%x1f%s%x1f%B%x1e", f"{since}..HEAD").decode()
    out = []
    for record in filter(None, (r.strip() for r in raw.split("\x1e"))):
        sha, subject, body = record.split("\x1f", 2)
        found = TRAILER.findall(body)
        out.append((sha, subject, found[-1] if found else ""))
    return out


def shadow_branches(repo: Path) -> list[str]:
    """Every ``entire/*`` branch but the checkpoint branch itself."""
    names = (
        _git_bytes(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads/entire/").decode().split()
    )
    return [n for n in names if n != "entire/checkpoints/v1"]


def line_count(data: bytes) -> int:
    """The host's count of a session file's lines: split on ``\\n``, trailing blank lines dropped."""
    lines = data.split(b"\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return len(lines)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def transcript_texts(transcript: bytes) -> tuple[list[str], list[str]]:
    """The user prompts and assistant texts of a stored ``transcript.jsonl`` (the host's compact format)."""
    users: list[str] = []
    replies: list[str] = []
    for line in transcript.decode("utf-8", "replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        kind = entry.get("type") or entry.get("role")
        texts: list[str] = []
        content = entry.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and isinstance(block.get("text"), str):
                    texts.append(block["text"])
        text = "\n".join(t for t in texts if t)
        if kind == "user" and text:
            users.append(text)
        elif kind == "assistant" and text:
            replies.append(text)
    return users, replies
