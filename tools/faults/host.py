"""``faults.py --host``: the same kills, each step driven by the real Entire CLI instead of the simulator.

Issue 37. ``HostSession`` is ``faults.Session`` with the host in the simulator's place: the sandbox is the
same (one repository, HOME and TMPDIR, always at the same path), and so are the points, the sample and
every check after a kill (``faults.Harness``); only who runs the plugin differs. The binary is
``ENTIRE_BIN`` (never built here). Every ``entire`` process and the user's ``git commit`` (its hooks run
``entire``) run in a loopback-only network namespace (``unshare -n``), in the sandbox's repository, with the sandbox's HOME
and TMPDIR, git's identity from the environment (no system or global git config), telemetry and
update checks off, and the fault point (``ENTIRE_FAULT_AT``, ``ENTIRE_FAULT_TRACE``,
``ENTIRE_FAULT_ONCE``) in its environment, which the host hands on to each plugin process
(v0.10.3 ``agent/external/external.go`` ``run``: ``cmd.Environ()``). Only the agent's own
``entire-agent-*`` is on PATH, so the host asks no other plugin.

The steps, as the host has them:

- ``enable``: ``entire enable --agent <agent> --telemetry=false`` on a feature branch (``resume``
  needs commits of its own on the branch);
- a hook: ``entire hooks <agent> <hook>``, the payload on stdin;
- after each hook that ends a turn (``TURN_ENDS``) with anything changed in the work tree: the user's
  commit of it all but ``.entire/`` (``git add -A``, ``git commit``), a step of its own, so that the
  host's git hooks condense a checkpoint (the host makes checkpoints at commits, not at turn ends);
- ``resume``: ``entire session resume feature --force`` (the host restores the newest checkpoint's
  sessions on the branch, overwriting their logs);
- ``generate``: ``entire configure --summarize-provider <agent>``, then ``entire checkpoint explain
  <newest checkpoint> --generate`` (the agent's CLI the same fake on PATH); none where the session
  has no checkpoint;
- ``disable``: ``entire disable --uninstall --force``.

What is compared is what the real host made, with the unfaulted host run of the same session (never
with the simulator): ``events`` are the answers of the ``parse-hook`` calls that exited 0 (the plugin
trace, ``ENTIRE_PLUGIN_TRACE``: a killed call writes no line, and the host throws its answer away) and
of ``generate-text``; ``checkpoint`` is each checkpoint ref (``refs/entire/checkpoints/``) that is new
or changed after the step, its files read with git, ids and times left out (``VOLATILE``). Not checked
under the host: the writes of reading subcommands (the simulator sees each call; the host's are its
own), and ``cases.py``'s cases.

What the real host does with a killed call, where it is not what the simulator does (v0.10.3 source), is
listed as ``host-fallback``, not as a failure: a killed token count at a commit's condensation is no usage
(``agent/token_usage.go:20-24``), and the checkpoint takes the usage the session's turn ends summed instead
(``strategy/manual_commit_condensation.go:1470``, ``563-565``): the checkpoint's ``token_usage`` differs
(``faults._compare``: the killed step exited 0); a killed ``extract-prompts`` at a turn's end is no prompt
(``lifecycle.go:806-809``: a warning), so a checkpoint finalized there keeps another ``prompt.txt``, also
when ``explain --generate`` writes it again (``host_fallback``: carried); a killed ``info`` at
``disable``: ``HOST_FALLBACKS``.
A killed ``parse-hook`` fails ``entire hooks`` (``hook_registry.go:168-170``), and the step runs again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import faults

BIN_ENV = "ENTIRE_BIN"
REFUSED = "faults: --host needs ENTIRE_BIN=<path to a built Entire CLI v0.10.3>"
"""The one line ``--host`` (and each host test) stops with where there is no host."""
TURN_ENDS = {"qwen-code": "stop", "openai-codex": "stop", "google-gemini": "after-agent", "aider": "turn-end",
             "cline-cli": "task-complete"}  # fmt: skip
"""The hook that ends a turn, per agent: the user commits after it."""
VOLATILE = frozenset(["checkpoint_id", "created_at", "updated_at", "started_at", "ended_at", "last_interaction_time",
                      "commit_hash", "base_commit", "cli_version", "tree_hash", "calculated_at", "turn_id"])  # fmt: skip
"""Fields of a checkpoint's JSON files that differ run to run whatever the faults (ids, commits; and
every ``*_at``, a time)."""
SUMMARY = json.dumps(
    {
        "intent": "A short sentence about the session.",
        "outcome": "Done.",
        "learnings": {"repo": [], "code": [], "workflow": []},
        "friction": [],
        "open_items": [],
    }
)
"""The fake agent's answer to the host's summary prompt: the JSON the host parses (``summarize/claude.go``)."""
HOST_FALLBACKS = (
    ("info", "disable", ("agent-files", "leftover"),
     "v0.10.3 skips a plugin whose info fails (agent/external/discovery.go:182-188: 'registration failed', a debug "
     "log line), so entire disable --uninstall (setup.go:2456, 2770-2780) never asks it to uninstall its hooks and "
     "exits 0; the host's remedy is a re-run (setup.go:2558-2561)"),
)  # fmt: skip
"""``(subcommand killed, step, kinds, why)``: where the real host's own handling of a killed call, the step
exiting 0, leaves what a check would fail; listed as ``host-fallback``, with the host's source."""
IDENTITY = {"GIT_AUTHOR_NAME": "User", "GIT_AUTHOR_EMAIL": "user@example.invalid", "GIT_COMMITTER_NAME": "User",
            "GIT_COMMITTER_EMAIL": "user@example.invalid", "GIT_AUTHOR_DATE": "2026-12-08T10:00:00Z",
            "GIT_COMMITTER_DATE": "2026-12-08T10:00:00Z"}  # fmt: skip


def entire_bin(environ: dict[str, str] | os._Environ[str] = os.environ) -> Path | None:
    """The host named by ``ENTIRE_BIN``, or None where there is none (``--host`` refuses: ``REFUSED``)."""
    named = environ.get(BIN_ENV, "")
    return Path(named) if named and os.access(named, os.X_OK) and Path(named).is_file() else None


def refused(cases: int) -> str:
    """Why ``--host`` cannot run here, in one line; empty when it can."""
    if entire_bin() is None:
        return REFUSED
    return "faults: --host runs no cases (cases.py drives the simulator)" if cases else ""


class Namespace:
    """A loopback-only network namespace, held by a sleeping process; ``argv`` runs a command in it."""

    def __init__(self) -> None:
        self.holder: subprocess.Popen[bytes] | None = None
        if shutil.which("unshare") and shutil.which("nsenter"):
            holder = subprocess.Popen(["unshare", "-n", "sh", "-c", "ip link set lo up && echo up && exec sleep 86400"],
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)  # fmt: skip
            assert holder.stdout is not None
            if holder.stdout.readline().strip() == b"up":
                self.holder = holder
            else:
                holder.kill()
                holder.wait()
        if self.holder is None:
            raise RuntimeError(
                "faults: --host needs a loopback-only network namespace here (unshare -n, as root)"
            )

    def argv(self, argv: list[str]) -> list[str]:
        assert self.holder is not None
        return ["nsenter", "-t", str(self.holder.pid), "-n", "--", *argv]

    def close(self) -> None:
        if self.holder is not None and self.holder.poll() is None:
            self.holder.kill()
            self.holder.wait(timeout=10)
        if self.holder is not None and self.holder.stdout is not None:
            self.holder.stdout.close()


_namespace: list[Namespace] = []


def namespace() -> Namespace:
    """The run's one namespace, made at its first use."""
    if not _namespace:
        _namespace.append(Namespace())
    return _namespace[0]


def close() -> None:
    """End the namespace's holder (the run is over)."""
    while _namespace:
        _namespace.pop().close()


def with_commits(agent: str, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``steps`` with the user's commit after each hook that ends a turn (``TURN_ENDS``)."""
    out: list[dict[str, Any]] = []
    for step in steps:
        out.append(step)
        if step.get("hook") == TURN_ENDS.get(agent):
            out.append({"commit": step["hook"]})
    return out


class HostSession(faults.Session):
    """One agent's bundled session in the sandbox ``root``, its steps driven by the real ``entire``."""

    def __init__(self, manifest: Path, root: Path, env: dict[str, str] | None = None) -> None:
        super().__init__(manifest, root, env)
        found = entire_bin()
        if found is None:
            raise RuntimeError(REFUSED)
        self.entire = found
        self.steps = with_commits(self.agent, self.steps)
        self.trace = root / "plugin-trace.jsonl"
        self.seen: dict[str, str] = {}
        """The checkpoint refs' commits as the last step left them (a ref moved: its checkpoint changed)."""
        self.host_env: dict[str, str] = {}

    def create(self) -> None:
        super().create()
        self.git("switch", "-q", "-c", "feature")
        bin_dir = self.root / "host-bin"
        bin_dir.mkdir()
        (bin_dir / "entire").symlink_to(self.entire)
        plugin = f"entire-agent-{self.agent}"
        (bin_dir / plugin).symlink_to(Path(shutil.which(plugin) or Path(sys.executable).parent / plugin))

    def attach(self) -> None:
        env = {"PATH": os.pathsep.join([str(self.root / "host-bin"), "/usr/local/bin", "/usr/bin", "/bin"]),
               "HOME": str(self.replay.home), "TMPDIR": str(self.root / "tmp"), "LANG": "C.UTF-8", "TZ": "UTC",
               "TERM": "dumb", "NO_COLOR": "1", "ENTIRE_TELEMETRY_OPTOUT": "1", "ENTIRE_NO_AUTO_UPDATE": "1",
               "ENTIRE_TEST_TTY": "0", "GIT_CONFIG_NOSYSTEM": "1", "ENTIRE_AGENT_FRONT": "0",
               "ENTIRE_PLUGIN_TRACE": str(self.trace), **IDENTITY}  # fmt: skip
        env.update({k: self.replay.expand(v) for k, v in self.replay.spec.get("env", {}).items()})
        if self.agent in faults.DELIVERERS:  # this process delivers the hooks, as notify does
            from entire_core import eventqueue, liveness

            env[eventqueue.DELIVERY_ENV] = liveness.token()
        env.update(self.env)
        self.host_env = env
        self.seen = self.refs()

    def command(self, argv: list[str], stdin: bytes = b"", extra: dict[str, str] | None = None
                ) -> subprocess.CompletedProcess[bytes]:  # fmt: skip
        """``argv`` in the repository, in the namespace, with the host's environment and the step's faults."""
        env = {**self.host_env, **faults._base_env, **faults._extra_env, **(extra or {})}
        return subprocess.run(namespace().argv(argv), cwd=self.replay.repo, env=env, input=stdin,
                              capture_output=True, timeout=300, check=False)  # fmt: skip

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=self.replay.repo, capture_output=True, check=False,
                              env={"PATH": os.environ.get("PATH", ""), "HOME": str(self.replay.home),
                                   "GIT_CONFIG_NOSYSTEM": "1", **IDENTITY})  # fmt: skip
        if done.returncode:
            raise OSError(f"git {' '.join(args)}: {done.stderr.decode(errors='replace').strip()}")
        return done.stdout.decode()

    def run(self, index: int) -> dict[str, Any]:
        step = self.steps[index]
        done: dict[str, Any] = {"failed": "", "events": [], "checkpoints": []}
        calls = self.calls()
        try:
            if "write" in step or "files" in step:
                self.change(step)
                return done
            if "enable" in step:
                run = self.command(["entire", "enable", "--agent", self.agent, "--telemetry=false"])
            elif "disable" in step:
                run = self.command(["entire", "disable", "--uninstall", "--force"])
            elif "hook" in step:
                payload = self.read(step["payload"])
                run = self.command(["entire", "hooks", self.agent, step["hook"]], stdin=payload)
                if self.agent in faults.DELIVERERS:
                    faults.settle_delivery(self.agent, self.replay.repo, run.returncode == 0)
            elif "commit" in step:
                run = self.commit(index)
            elif "resume" in step:
                run = self.command(["entire", "session", "resume", "feature", "--force"])
            else:
                run = self.generate_summary()
            if run is not None and run.returncode:
                done["failed"] = _failure(run)
        except (OSError, ValueError, LookupError, subprocess.TimeoutExpired) as exc:
            done["failed"] = str(exc) or type(exc).__name__
        for call in self.calls()[len(calls) :]:
            if call.get("code") == 0 and call.get("subcommand") in ("parse-hook", "generate-text"):
                answer = json.loads(call.get("answer") or "null")
                if call["subcommand"] == "generate-text":
                    done["events"].append({"kind": "generate-text", "text": answer.get("text")})
                elif answer:
                    done["events"].append(self.normal(answer))
        done["checkpoints"] = self.changed_checkpoints()
        return done

    def host_fallback(self, point: tuple[int, str, int, str, str], attempt: dict[str, Any],
                      problems: dict[str, list[str]]) -> None:  # fmt: skip
        """What the host's own handling of the killed call made (``HOST_FALLBACKS``), moved to ``host-fallback``;
        and a checkpoint that differs later exactly as the host's fallback made it differ (the same fields, the
        same values: the same checkpoint written again, by ``explain --generate``, carrying what was stored)."""
        fallback = {entry[entry.find(" (") :] for entry in problems["host-fallback"] if " (" in entry}
        carried = [p for p in problems["checkpoint"] if " (" in p and p[p.find(" (") :] in fallback]
        problems["host-fallback"] += [f"carried: {p}" for p in carried]
        problems["checkpoint"] = [p for p in problems["checkpoint"] if p not in carried]
        for subcommand, step, kinds, why in HOST_FALLBACKS:
            if point[1] == subcommand and step in self.steps[point[0]] and not attempt["failed"]:
                for kind in kinds:
                    problems["host-fallback"] += [f"{kind}: {p} ({why})" for p in problems[kind]]
                    problems[kind] = []

    def commit(self, index: int) -> subprocess.CompletedProcess[bytes] | None:
        """The user's commit of the work tree but ``.entire/`` (none when nothing changed), hooks and all."""
        self.git("add", "-A", "--", ".", ":(exclude).entire")
        if not self.git("diff", "--cached", "--name-only").strip():
            return None
        return self.command(["git", "commit", "-q", "-m", f"the user's commit at step {index}"])

    def generate_summary(self) -> subprocess.CompletedProcess[bytes] | None:
        """The newest checkpoint's summary through the plugin's ``generate-text`` (none without checkpoints)."""
        trailers = re.findall(r"Entire-Checkpoint:\s*(\S+)", self.git("log", "--format=%B", "main..HEAD"))
        if not trailers:
            return None
        bin_dir = self.root / "fake-bin"
        if not (bin_dir / faults.BINARIES[self.agent]).exists():
            faults.fake_agent(self.agent, bin_dir, SUMMARY)
        extra = {"PATH": f"{bin_dir}{os.pathsep}{self.host_env['PATH']}", "OPENAI_API_KEY": "fake",
                 "GEMINI_API_KEY": "fake", "ENTIRE_AGENT_TEXT_TIMEOUT": "20"}  # fmt: skip
        chosen = self.command(["entire", "configure", "--summarize-provider", self.agent], extra=extra)
        if chosen.returncode:
            return chosen
        return self.command(
            ["entire", "checkpoint", "explain", trailers[0], "--generate", "--no-pager"], extra=extra
        )

    def calls(self) -> list[dict[str, Any]]:
        """Every plugin call that finished so far (the plugin trace)."""
        with contextlib.suppress(OSError):
            lines = self.trace.read_text(encoding="utf-8").splitlines()
            return [json.loads(line) for line in lines if line.strip()]
        return []

    def refs(self) -> dict[str, str]:
        """``{checkpoint ref: its commit}``."""
        listed = self.git("for-each-ref", "--format=%(refname) %(objectname)", "refs/entire/checkpoints/")
        return dict(line.split(" ", 1) for line in listed.splitlines() if line.strip())

    def changed_checkpoints(self) -> list[dict[str, Any]]:
        """Each checkpoint whose ref is new or moved since the last step, as ``checkpoint_record`` has it."""
        now = self.refs()
        changed = [ref for ref, commit in sorted(now.items()) if self.seen.get(ref) != commit]
        self.seen = now
        return sorted(
            (self.checkpoint_record(now[ref]) for ref in changed), key=lambda r: json.dumps(r, sort_keys=True)
        )

    def checkpoint_record(self, commit: str) -> dict[str, Any]:
        """A checkpoint's tree: each JSON file parsed, ids and times left out (``VOLATILE``), each other
        file's sha256, paths of the sandbox as ``$ROOT``."""
        record: dict[str, Any] = {}
        for line in self.git("ls-tree", "-r", commit).splitlines():
            meta, path = line.split("\t", 1)
            blob = subprocess.run(["git", "cat-file", "blob", meta.split()[2]], cwd=self.replay.repo,
                                  capture_output=True, check=True).stdout  # fmt: skip
            text = blob.decode("utf-8", "replace").replace(str(self.root), "$ROOT")
            if path.endswith(".json"):
                record[path] = _without(json.loads(text), VOLATILE)
            else:
                record[path] = hashlib.sha256(text.encode()).hexdigest()[:16]
        return record


def _without(value: Any, keys: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys and not k.endswith("_at")}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


def _failure(run: subprocess.CompletedProcess[bytes]) -> str:
    """What a failed command said: its stderr (else stdout), with its exit status."""
    said = (run.stderr or run.stdout).decode("utf-8", "replace").strip()
    return f"{said or 'no output'} (exit {run.returncode})"
