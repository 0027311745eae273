"""Entire's built-in ``codex`` and ``gemini`` against our ``openai-codex`` and ``google-gemini``, same host, same sessions.

Issue 24, part 3. Under the real Entire CLI at ``$ENTIRE_BIN`` this replays each agent package's bundled real
session (``packages/*/demo/replay.json``: the captured hook payloads, the session files growing as they did, the
files the agent changed) once through Entire's built-in integration and once through our plugin, installed from
this checkout's wheels with ``uv tool install``. Each replay runs in a fresh git repository and HOME: ``entire
enable --agent <name>``, then every hook the integration installs, fed its captured payload on stdin as the agent
runs it (``entire hooks <agent> <hook>``), and a ``git commit`` after each turn. It prints two tables:

- what the host stored in each checkpoint (``refs/entire/checkpoints/*``, read with git): ``prompt.txt``,
  ``files_touched``, ``token_usage`` with ``subagent_tokens``, ``full.jsonl`` against the session file, and the
  prompts and replies in ``transcript.jsonl``, each against the scripted expectation;
- the wall time of the hook processes, per hook and per turn (the sum of a turn's hook processes), with none, one
  and all of our plugins on ``PATH``: min/median/max over the runs, and our time over the built-in's taken run
  by run in the same configuration.

Qwen Code and Aider (``--agent qwen``, ``--agent aider``) have no built-in: their sessions are replayed through
ours alone, and each hook is held to the built-in Codex hook of the same role (turn start, turn end, session
start and end, the commit), timed in the same run; Codex is replayed too when they are asked for.

The built-in gets the payloads of every hook it installs (Codex's pre/post-tool-use, Gemini's model and tool
hooks), ours those it installs; events only one side hooks are run for that side alone. Without ``ENTIRE_BIN`` it
prints one line and exits 0 (1 with ``ENTIRE_HOST=1``).

    uv run --locked --all-packages python tools/host_compare/host_compare.py [--runs 5] [--agent codex] [--json F]
    uv run --locked --all-packages python tools/host_compare/host_compare.py --render F   # F's tables again

The sessions are the packages' own, so a checkout whose plugins changed is measured as it is. The captured Codex
session's second turn deleted ``shell.txt``, which its replay manifest leaves out; this replay deletes it.
Per turn, the user commits after the agent's turn-end hook (and its session-end, where that follows at once).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from entire_core import views

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PLUGINS = ("openai-codex", "google-gemini", "aider", "qwen-code")

AGENTS: dict[str, dict[str, Any]] = {
    "codex": {
        "ours": "openai-codex",
        "manifest": ROOT / "packages/agent-codex/demo/replay.json",
        "turn_start": "user-prompt-submit",
        "turn_end": "stop",
        "builtin_hooks": {
            "session-start",
            "session-end",
            "user-prompt-submit",
            "stop",
            "pre-tool-use",
            "post-tool-use",
            "subagent-start",
            "subagent-stop",
        },
        "payload_index": re.compile(r"/(\d+)_[^/]*_([A-Za-z]+)\.json$"),
        "events": {"PreToolUse": "pre-tool-use", "PostToolUse": "post-tool-use"},
        "reply_key": "last_assistant_message",
        # What the captured agent did that the demo manifest leaves out: turn 2's apply_patch deleted shell.txt.
        "deletes_before": {"../tests/data/hooks/16_s1_Stop.json": ["shell.txt"]},
    },
    "gemini": {
        "ours": "google-gemini",
        "manifest": ROOT / "packages/agent-gemini/demo/replay.json",
        "turn_start": "before-agent",
        "turn_end": "after-agent",
        "builtin_hooks": {
            "session-start",
            "session-end",
            "before-agent",
            "after-agent",
            "before-model",
            "after-model",
            "before-tool-selection",
            "before-tool",
            "after-tool",
            "pre-compress",
            "notification",
        },
        "payload_index": re.compile(r"/(\d+)-[0-9a-f]+-([A-Za-z]+)\.json$"),
        "events": {
            "BeforeModel": "before-model",
            "AfterModel": "after-model",
            "BeforeToolSelection": "before-tool-selection",
            "BeforeTool": "before-tool",
            "AfterTool": "after-tool",
        },
        "reply_key": "prompt_response",
    },
    # No built-in: each hook is held to the built-in Codex hook of the same role, timed in the same run.
    "qwen": {
        "ours": "qwen-code",
        "manifest": ROOT / "packages/agent-qwen-code/demo/replay.json",
        "turn_start": "user-prompt-submit",
        "turn_end": "stop",
        "reply_key": "last_assistant_message",
        "builtin": None,
        "codex_hook": {
            "session-start": "session-start",
            "user-prompt-submit": "user-prompt-submit",
            "stop": "stop",
            "session-end": "session-end",
            "git commit": "git commit",
        },
    },
    "aider": {
        "ours": "aider",
        "manifest": ROOT / "packages/agent-aider/demo/replay.json",
        "turn_start": "turn-start",
        "turn_end": "turn-end",
        "reply_key": "",
        "builtin": None,
        "codex_hook": {
            "session-start": "session-start",
            "turn-start": "user-prompt-submit",
            "turn-end": "stop",
            "session-end": "session-end",
            "git commit": "git commit",
        },
    },
}
"""Per agent: its replay and hooks; ``builtin: None`` where Entire has no built-in for it."""


def fail(message: str) -> None:
    sys.stderr.write(f"host_compare: {message}\n")
    raise SystemExit(1)


# -- installing our plugins ---------------------------------------------------------------------------------


def install_plugins(work: Path) -> Path:
    """This checkout's wheels, each agent ``uv tool install``-ed; the directory uv links the executables into."""
    dist, tools, bin_dir = work / "dist", work / "uv-tools", work / "uv-bin"
    env = {**os.environ, "UV_TOOL_DIR": str(tools), "UV_TOOL_BIN_DIR": str(bin_dir)}
    run(["uv", "build", "--all-packages", "--no-sources", "-q", "--out-dir", str(dist)], cwd=ROOT, env=env)
    core = next(dist.glob("entire_core-*.whl"))
    for name in PLUGINS:
        wheel = next(dist.glob(f"entire_agent_{name.replace('-', '_')}-*.whl"))
        extra = [f"{core}[toml]"] if name == "openai-codex" else [str(core)]
        run(
            ["uv", "tool", "install", "-q", "--no-cache", "--compile-bytecode", str(wheel), "--with", *extra],
            cwd=work,
            env=env,
        )
        # Its first call puts the front (entire_core.front) in the launcher's place, as a user's first hook does.
        run([str(bin_dir / f"entire-agent-{name}"), "info"], cwd=work, env=env)
    return bin_dir


def run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run(argv, capture_output=True, check=False, **kwargs)
    if done.returncode != 0:
        fail(
            f"{' '.join(argv[:4])} exited {done.returncode}: {done.stderr.decode(errors='replace').strip()[-400:]}"
        )
    return done


# -- one replay ---------------------------------------------------------------------------------------------


class Replay:
    """One bundled session through one integration (``built-in`` or ``ours``) under one ``PATH``."""

    def __init__(
        self, agent: str, side: str, path_dirs: list[Path], root: Path, entire_bin: str, backend: str = "refs"
    ) -> None:
        from entire_sim.demo import Replay as Demo

        self.agent, self.side, self.conf = agent, side, AGENTS[agent]
        self.name = self.conf["ours"] if side == "ours" else agent
        self.root, self.backend = root, backend
        self.demo = Demo(self.conf["manifest"], root)
        self.repo, self.home = self.demo.repo, self.demo.home
        bin_dir = root / "bin"
        bin_dir.mkdir(parents=True)
        (bin_dir / "entire").symlink_to(entire_bin)
        self.env = {
            "PATH": os.pathsep.join(
                [str(bin_dir), *map(str, path_dirs), "/usr/local/bin", "/usr/bin", "/bin"]
            ),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "ENTIRE_TELEMETRY_OPTOUT": "1",
            "TMPDIR": str(root),
            "GIT_AUTHOR_NAME": "replay",
            "GIT_AUTHOR_EMAIL": "replay@example.invalid",
            "GIT_COMMITTER_NAME": "replay",
            "GIT_COMMITTER_EMAIL": "replay@example.invalid",
        }
        self.env.update({k: self.demo.expand(v) for k, v in self.demo.spec.get("env", {}).items()})
        self.timings: list[dict[str, Any]] = []  # {"hook", "turn", "ms"}; hook "git commit" for the commits
        self.turns: list[dict[str, Any]] = []  # per commit: expectation and what was committed
        self.errors: list[str] = []
        self.written: set[Path] = set()
        self.checkpoints: list[dict[str, Any]] = []  # stored(), read before the scratch repository goes

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=self.repo, env=self.env, capture_output=True, check=False)
        if done.returncode != 0:
            fail(f"git {' '.join(args)}: {done.stderr.decode(errors='replace').strip()}")
        return done.stdout.decode()

    def steps(self) -> list[dict[str, Any]]:
        """The manifest's steps; for the built-in also the captured payloads of hooks only it installs."""
        steps = [s for s in self.demo.spec["steps"] if "resume" not in s]
        if self.side == "ours":
            return steps
        pattern, events = self.conf["payload_index"], self.conf["events"]
        listed = {s["payload"] for s in steps if "hook" in s}
        folder = (self.conf["manifest"].parent / next(iter(listed))).parent
        extra: list[tuple[int, str, str]] = []
        for file in sorted(folder.glob("*.json")):
            match = pattern.search(str(file))
            if not match or match[2] not in events:
                continue
            relative = os.path.relpath(file, self.conf["manifest"].parent)
            if relative not in listed:
                extra.append((int(match[1]), events[match[2]], relative))
        merged: list[dict[str, Any]] = []
        for step in steps:
            if "hook" in step:
                index = int(pattern.search("/" + step["payload"])[1])
                while extra and extra[0][0] < index:
                    _, hook, payload = extra.pop(0)
                    merged.append({"hook": hook, "payload": payload})
            merged.append(step)
        merged += [{"hook": hook, "payload": payload} for _, hook, payload in extra]
        return merged

    def hook(self, hook: str, payload: bytes, turn: int) -> None:
        argv = ["entire", "hooks", self.name, hook]
        start = time.perf_counter()
        done = subprocess.run(
            argv, input=payload, cwd=self.repo, env=self.env, capture_output=True, check=False
        )
        ms = (time.perf_counter() - start) * 1000
        self.timings.append({"hook": hook, "turn": turn, "ms": ms})
        if done.returncode != 0:
            self.errors.append(
                f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode(errors='replace')}"
            )

    def commit(self, turn: int, expect: dict[str, Any]) -> None:
        path = expect.pop("session_file", None)  # the session file as it stands when the user commits
        expect["session_sha256"] = hashlib.sha256(Path(path).read_bytes()).hexdigest() if path else None
        expect["session_bytes"] = Path(path).stat().st_size if path else None
        expect["other_files"] = {  # every session file written so far, to name what full.jsonl holds instead
            hashlib.sha256(f.read_bytes()).hexdigest(): f.name for f in self.written if f.exists()
        }
        expect["files"] = sorted(expect["files"])
        self.git("add", "-A")
        if not self.git("status", "--porcelain").strip():
            expect["commit"] = None
        else:
            start = time.perf_counter()
            self.git("commit", "-q", "-m", f"turn {turn + 1}")
            self.timings.append(
                {"hook": "git commit", "turn": turn, "ms": (time.perf_counter() - start) * 1000}
            )
            expect["commit"] = self.git("rev-parse", "HEAD").strip()
        self.turns.append(expect)

    def run(self) -> None:
        from entire_sim.demo import make_repo

        make_repo(self.repo)
        self.home.mkdir(parents=True)
        (self.repo / ".entire").mkdir()
        # Every configuration the same: external agents on, as for a user who has our plugins.
        (self.repo / ".entire" / "settings.json").write_text('{"enabled": true, "external_agents": true}\n')
        done = subprocess.run(
            [
                "entire",
                "enable",
                "--agent",
                self.name,
                "--telemetry=false",
                "--checkpoint-backend",
                self.backend,
            ],
            cwd=self.repo,
            env=self.env,
            capture_output=True,
            check=False,
        )
        if done.returncode != 0:
            fail(f"entire enable --agent {self.name}: {done.stderr.decode(errors='replace').strip()}")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "entire enable")
        turn, ended = 0, False
        expect = self.new_turn()
        for step in self.steps():
            if ended and step.get("hook") != "session-end":
                self.commit(turn, expect)  # the user commits once the agent is done
                turn, ended, expect = turn + 1, False, self.new_turn()
            if "write" in step:
                data = self.demo.read(step["from"])
                if "lines" in step:
                    data = b"".join(data.splitlines(keepends=True)[: step["lines"]])
                target = Path(self.demo.expand(step["write"]))
                self.written.add(target)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            elif "files" in step:
                for name, content in step["files"].items():
                    (self.repo / name).parent.mkdir(parents=True, exist_ok=True)
                    (self.repo / name).write_text(content, encoding="utf-8")
                    expect["files"].add(name)
            elif "hook" in step:
                hook = step["hook"]
                for name in self.conf.get("deletes_before", {}).get(step["payload"], []):
                    (self.repo / name).unlink()
                    expect["files"].add(name)
                payload = self.demo.read(step["payload"])
                record = json.loads(payload)
                if hook == self.conf["turn_start"] and not record.get("agent_id") and record.get("prompt"):
                    expect["prompts"].append(record["prompt"])
                    expect["session_file"] = record.get("transcript_path")
                if hook == self.conf["turn_end"] and not record.get("agent_id"):
                    expect["replies"].append(record.get(self.conf["reply_key"]) or "")
                    ended = True
                if self.side == "ours" or hook in self.conf["builtin_hooks"]:
                    self.hook(hook, payload, turn)
        self.commit(turn, expect)

    @staticmethod
    def new_turn() -> dict[str, Any]:
        return {"prompts": [], "replies": [], "files": set(), "session_file": None}

    # -- what the host stored ---------------------------------------------------------------------------

    def stored(self) -> list[dict[str, Any]]:
        """Per turn's commit, the checkpoint its ``Entire-Checkpoint:`` trailer names, as the host stored it."""
        out: list[dict[str, Any]] = []
        for turn in self.turns:
            record: dict[str, Any] = {"checkpoint": None}
            if turn["commit"]:
                message = self.git("log", "-1", "--format=%B", turn["commit"])
                found = re.search(r"^Entire-Checkpoint:\s*(\S+)", message, re.M)
                if found:
                    record["checkpoint"] = found[1]
                    record.update(self.read_checkpoint(found[1]))
            out.append(record)
        branches = self.git("for-each-ref", "--format=%(refname:short)", "refs/heads/entire/").split()
        if out:
            out[-1]["shadow_branches_left"] = [b for b in branches if b != "entire/checkpoints/v1"]
        return out

    def checkpoint_root(self, checkpoint: str) -> str | None:
        """``<tree-ish>:<dir>/`` of a checkpoint: its own ref (git-refs backend) or the v1 branch's shard dir."""
        refs = self.git("for-each-ref", "--format=%(refname)", "refs/entire/checkpoints/").split()
        for ref in refs:
            if ref.endswith("/" + checkpoint):
                return ref + ":"
        shard = f"{checkpoint[:2]}/{checkpoint[2:]}"
        if self.show_bytes("refs/heads/entire/checkpoints/v1:", f"{shard}/metadata.json") is not None:
            return f"refs/heads/entire/checkpoints/v1:{shard}/"
        return None

    def read_checkpoint(self, checkpoint: str) -> dict[str, Any]:
        root = self.checkpoint_root(checkpoint)
        if root is None:
            return {"missing": True, "sessions": 0}
        top = self.show_json(root, "metadata.json") or {}
        sessions = top.get("sessions") or []
        result: dict[str, Any] = {
            "backend": "refs" if root.startswith("refs/entire/") else "branch",
            "sessions": len(sessions),
        }
        if not sessions:
            return result
        result["files_touched"] = sorted(top.get("files_touched") or [])
        # The checkpoint's newest session is the one whose turn was committed; its files by their own names.
        last = sessions[-1]
        folder = os.path.dirname(str(last.get("metadata", ""))).strip("/").split("/")[-1]
        base = f"{folder}/"
        meta = self.show_json(root, base + "metadata.json") or {}
        result["token_usage"] = meta.get("token_usage")
        result["session_files_touched"] = sorted(meta.get("files_touched") or [])
        result["prompt"] = self.show(root, base + "prompt.txt")
        full = self.show_bytes(root, base + "full.jsonl")
        result["full_sha256"] = hashlib.sha256(full).hexdigest() if full is not None else None
        # A wrapped view (ours, Gemini) carries the session file's lines in generic JSONL: what it holds.
        native = views.native_bytes(full, wrapped=True) if full is not None else None
        result["native_sha256"] = hashlib.sha256(native).hexdigest() if native is not None else None
        result["full_bytes"] = len(full) if full is not None else None
        result["content_hash"] = (self.show(root, base + "content_hash.txt") or "").strip()
        result["transcript"] = self.show(root, base + "transcript.jsonl")
        return result

    def show_bytes(self, root: str, path: str) -> bytes | None:
        done = subprocess.run(
            ["git", "show", f"{root}{path}"], cwd=self.repo, env=self.env, capture_output=True
        )
        return done.stdout if done.returncode == 0 else None

    def show(self, ref: str, path: str) -> str | None:
        data = self.show_bytes(ref, path)
        return None if data is None else data.decode(errors="replace")

    def show_json(self, ref: str, path: str) -> Any:
        text = self.show(ref, path)
        return None if text is None else json.loads(text)


# -- judging the contents -----------------------------------------------------------------------------------


def transcript_texts(text: str | None) -> str:
    """Every string in the compact transcript's records, joined: where prompts and replies show up, if at all."""
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for line in (text or "").splitlines():
        try:
            walk(json.loads(line))
        except ValueError:
            found.append(line)
    return "\n".join(found)


TOKEN_KEYS = ("input_tokens", "cache_read_tokens", "output_tokens", "api_call_count")


def tokens_text(usage: Any) -> str:
    if not isinstance(usage, dict):
        return "none"
    main = "/".join(str(usage.get(k, 0)) for k in TOKEN_KEYS)
    sub = usage.get("subagent_tokens")
    return main + (f" +sub {tokens_text(sub)}" if sub else "")


def tokens_match(got: Any, want: dict[str, Any]) -> bool:
    if not isinstance(got, dict):
        return False
    if any(got.get(k, 0) != want.get(k, 0) for k in TOKEN_KEYS):
        return False
    if "subagent_tokens" in want:
        return tokens_match(got.get("subagent_tokens"), want["subagent_tokens"])
    return not got.get("subagent_tokens")


def judge(
    turn: dict[str, Any], stored: dict[str, Any], tokens: dict[str, Any]
) -> dict[str, tuple[bool, str]]:
    """Field -> (as expected, what was stored, shortly)."""
    if turn["commit"] is None:
        return {"checkpoint": (stored["checkpoint"] is None, "no commit (nothing changed)")}
    if not stored.get("sessions"):
        return {
            "checkpoint": (
                False,
                "no checkpoint" if not stored["checkpoint"] else "checkpoint without a session",
            )
        }
    prompt = (stored.get("prompt") or "").strip()
    want_prompt = "\n\n---\n\n".join(turn["prompts"]).strip()  # the host's separator
    texts = transcript_texts(stored.get("transcript"))
    prompts_in = sum(p in texts for p in turn["prompts"])
    replies_in = sum(bool(r) and r in texts for r in turn["replies"])
    return {
        "checkpoint": (True, stored["checkpoint"]),
        "prompt.txt": (prompt == want_prompt, json.dumps(prompt[:70] + ("..." if len(prompt) > 70 else ""))),
        "files_touched": (
            stored["files_touched"] == turn["files"],
            ", ".join(stored["files_touched"]) or "[]",
        ),
        "token_usage": (
            tokens_match(stored.get("token_usage"), tokens),
            tokens_text(stored.get("token_usage")),
        ),
        "full.jsonl": (
            turn["session_sha256"] in (stored.get("full_sha256"), stored.get("native_sha256")),
            "the session file"
            if turn["session_sha256"] in (stored.get("full_sha256"), stored.get("native_sha256"))
            else f"{stored.get('full_bytes')} bytes, "
            + (
                f"the file {turn['other_files'][stored.get('full_sha256')]}"
                if stored.get("full_sha256") in turn["other_files"]
                else f"not the {turn['session_bytes']}-byte session file"
            ),
        ),
        "transcript.jsonl": (
            prompts_in == len(turn["prompts"]) and replies_in == len(turn["replies"]),
            f"{prompts_in}/{len(turn['prompts'])} prompts, {replies_in}/{len(turn['replies'])} replies",
        ),
    }


# -- the whole comparison -----------------------------------------------------------------------------------


def stats(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{min(values):.0f} / {statistics.median(values):.0f} / {max(values):.0f}"


def ratio_stats(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{min(values):.2f} / **{statistics.median(values):.2f}** / {max(values):.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="host_compare", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="replays of each configuration (default 5)")
    parser.add_argument(
        "--agent", choices=sorted(AGENTS), action="append", help="only this agent (repeatable)"
    )
    parser.add_argument("--json", type=Path, help="also write every figure and stored field as JSON here")
    parser.add_argument(
        "--checkpoint-backend",
        choices=("refs", "branch"),
        default="refs",
        help="`entire enable --checkpoint-backend` (default refs, v0.10.3's default)",
    )
    parser.add_argument(
        "--render", type=Path, help="print the tables of an earlier run's --json, and run nothing"
    )
    parser.add_argument("--keep", action="store_true", help="keep the scratch directory and print its path")
    args = parser.parse_args(argv)
    if args.render:
        text, failures = render(json.loads(args.render.read_text(encoding="utf-8")))
        print(
            text
            + f"\n\n{failures} stored field(s) differ from the scripted sessions (first run, 1 plugin on PATH)"
        )
        return 0
    entire_bin = os.environ.get("ENTIRE_BIN")
    if not entire_bin or not os.access(entire_bin, os.X_OK):
        line = "host_compare: skipped: needs ENTIRE_BIN=<path of the real Entire CLI binary>"
        if os.environ.get("ENTIRE_HOST") == "1":
            fail(line.removeprefix("host_compare: "))
        print(line)
        return 0
    entire_bin = str(Path(entire_bin).resolve())
    version = subprocess.run(
        [entire_bin, "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    work = Path(tempfile.mkdtemp(prefix="host-compare-"))
    try:
        return compare(args, entire_bin, version, work)
    finally:
        if args.keep:
            print(f"\nscratch kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def compare(args: argparse.Namespace, entire_bin: str, version: str, work: Path) -> int:
    tool_bin = install_plugins(work)
    head = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True
    )
    paths: dict[str, list[Path]] = {"0": [work / "path-none"]}
    (work / "path-none").mkdir()
    for name in PLUGINS:
        one = work / f"path-{name}"
        one.mkdir()
        (one / f"entire-agent-{name}").symlink_to(tool_bin / f"entire-agent-{name}")
    paths["all"] = [work / f"path-{name}" for name in PLUGINS]
    agents = args.agent or sorted(AGENTS)
    if any(AGENTS[a].get("builtin", "") is None for a in agents) and "codex" not in agents:
        agents.append("codex")  # what an agent without a built-in is timed against
    configs: list[tuple[str, str, str]] = []  # (agent, side, plugins on PATH)
    for agent in agents:
        if AGENTS[agent].get("builtin", "") is None:
            configs += [(agent, "ours", "1"), (agent, "ours", "all")]
            continue
        configs += [
            (agent, "built-in", "0"),
            (agent, "built-in", "1"),
            (agent, "ours", "1"),
            (agent, "built-in", "all"),
            (agent, "ours", "all"),
        ]
    results: dict[tuple[str, str, str], list[Replay]] = {c: [] for c in configs}
    counter = 0
    for _ in range(args.runs):
        for agent, side, plugins in configs:
            counter += 1
            dirs = [work / f"path-{AGENTS[agent]['ours']}"] if plugins == "1" else paths[plugins]
            replay = Replay(agent, side, dirs, work / f"r{counter:04d}", entire_bin, args.checkpoint_backend)
            replay.run()
            replay.checkpoints = replay.stored()
            results[(agent, side, plugins)].append(replay)
            if not args.keep:
                shutil.rmtree(replay.root, ignore_errors=True)
    dump: dict[str, Any] = {"host": version, "checkout": head.stdout.strip(), "runs": args.runs, "agents": {}}
    for agent in agents:
        for side in ("built-in", "ours"):
            if (agent, side, "1") not in results:
                continue
            first = results[(agent, side, "1")][0]
            dump["agents"].setdefault(agent, {})[side] = {
                "name": first.name,
                "turns": first.turns,
                "stored": first.checkpoints,
                "errors": first.errors,
                "differs_between_runs": sorted(
                    {d for r in results[(agent, side, "1")][1:] for d in differences(first, r)}
                ),
            }
    dump["timing"] = {agent: timing_rows(agent, results) for agent in agents}
    dump["against_codex"] = {
        a: AGENTS[a]["codex_hook"] for a in agents if AGENTS[a].get("builtin", "") is None
    }
    if args.json:
        args.json.write_text(json.dumps(dump, indent=1) + "\n", encoding="utf-8")
    text, failures = render(dump)
    print(text)
    print(f"\n{failures} stored field(s) differ from the scripted sessions (first run, 1 plugin on PATH)")
    return 0


def differences(one: Replay, other: Replay) -> list[str]:
    """``turn N: field`` where two runs stored differently. Checkpoint ids are new in every run, and the session
    files hold each run's own paths: for ``full.jsonl`` what counts is whether it is the run's session file."""
    found: list[str] = []
    for i, (a, b) in enumerate(zip(one.checkpoints, other.checkpoints, strict=False)):
        skip = {"checkpoint", "content_hash", "full_sha256", "full_bytes", "native_sha256"}
        for key in sorted((set(a) | set(b)) - skip):
            # Tool inputs name files by each run's own paths.
            if str(a.get(key)).replace(str(one.repo), "$REPO") != str(b.get(key)).replace(
                str(other.repo), "$REPO"
            ):
                found.append(f"turn {i + 1}: {key}")
        mine = [
            t["session_sha256"] in (c.get("full_sha256"), c.get("native_sha256"))
            for c, t in ((a, one.turns[i]), (b, other.turns[i]))
        ]
        if mine[0] != mine[1]:
            found.append(f"turn {i + 1}: full.jsonl")
    return found


SIDES = (("built-in", "0"), ("built-in", "1"), ("ours", "1"), ("built-in", "all"), ("ours", "all"))


def timing_rows(
    agent: str, results: dict[tuple[str, str, str], list[Replay]]
) -> dict[str, dict[str, list[float]]]:
    """Row name -> "<side> <plugins on PATH>" -> one figure per run: per hook the median of its calls in the
    session, per turn the sum of the turn's hook processes (the commit is its own row)."""
    hooks: list[str] = []
    for side in ("built-in", "ours"):
        for t in results[(agent, side, "1")][0].timings if (agent, side, "1") in results else []:
            if t["hook"] not in hooks:
                hooks.append(t["hook"])
    turns = sorted({t["turn"] for t in results[(agent, "ours", "1")][0].timings})
    rows: dict[str, dict[str, list[float]]] = {}
    for kind, key in [("hook", h) for h in hooks] + [("turn", str(n)) for n in turns]:
        per: dict[str, list[float]] = {}
        calls: dict[str, int] = {}
        for side, plugins in SIDES:
            values: list[float] = []
            for replay in results.get((agent, side, plugins), []):
                if kind == "hook":
                    picked = [t["ms"] for t in replay.timings if t["hook"] == key]
                    if picked:
                        values.append(statistics.median(picked))
                else:
                    picked = [
                        t["ms"] for t in replay.timings if t["turn"] == int(key) and t["hook"] != "git commit"
                    ]
                    values.append(sum(picked))
                calls[side] = len(picked)
            per[f"{side} {plugins}"] = values
        counts = f"{calls.get('built-in', 0)}/{calls.get('ours', 0)}"
        name = (
            f"`{key}` ({counts})"
            if kind == "hook"
            else f"turn {int(key) + 1}, all hooks ({counts} processes)"
        )
        rows[name] = per
    return rows


def render(dump: dict[str, Any]) -> tuple[str, int]:
    """The two tables (markdown) from the figures ``--json`` writes, and how many stored fields failed."""
    tokens = json.loads((HERE / "expected.json").read_text(encoding="utf-8"))
    agents = list(dump["agents"])
    out = [
        f"Host: `entire` {dump['host'].splitlines()[0] if dump['host'] else '?'} (ENTIRE_BIN); our plugins from the "
        f"wheels of checkout {dump['checkout']}; {dump['runs']} run(s) of each configuration.\n",
        "Checkpoint contents against the scripted sessions (turn by turn; what was stored where it differs):\n",
        "| agent | field | built-in | ours |",
        "|---|---|---|---|",
    ]
    failures = 0
    notes: list[str] = []
    for agent in agents:
        if "built-in" not in dump["agents"][agent]:
            continue  # no built-in to set beside it (make host holds what it stores)
        verdicts: dict[str, list[dict[str, tuple[bool, str]]]] = {}
        for side in ("built-in", "ours"):
            record = dump["agents"][agent][side]
            want = tokens[AGENTS[agent]["ours"]]
            verdicts[side] = [
                judge(t, s, want[i] if i < len(want) else {})
                for i, (t, s) in enumerate(zip(record["turns"], record["stored"], strict=True))
            ]
            if record["errors"]:
                notes.append(
                    f"{agent} {side}: {len(record['errors'])} hook(s) failed: {record['errors'][0][:200]}"
                )
            if record.get("differs_between_runs"):
                notes.append(
                    f"{agent} {side}: other runs stored differently: {', '.join(record['differs_between_runs'])}"
                )
        turns = dump["agents"][agent]["ours"]["turns"]
        notes.append(f"{agent} turns: " + "; ".join(f"{i + 1} = {json.dumps(', '.join(t['prompts']))}"
                                                      for i, t in enumerate(turns)))  # fmt: skip
        fields: list[str] = []
        for turn in verdicts["ours"] + verdicts["built-in"]:
            fields += [f for f in turn if f not in fields]
        for field in fields:
            cells: list[str] = []
            for side in ("built-in", "ours"):
                parts: list[str] = []
                for i, turn in enumerate(verdicts[side]):
                    if field not in turn:  # no commit in this turn, so nothing to judge
                        parts.append(f"{i + 1} -")
                        continue
                    ok, text = turn[field]
                    failures += not ok
                    parts.append(f"{i + 1} ok" if ok else f"{i + 1} **FAIL** {text.replace('|', '/')}")
                cells.append("; ".join(parts))
            name = f"`{agent}` / `{AGENTS[agent]['ours']}`"
            out.append(f"| {name} | {field} | {cells[0]} | {cells[1]} |")
    out += ["", *[f"- {n}" for n in notes], ""]
    out += [
        "Wall time of each hook process, `entire hooks <agent> <hook>` (ms, min / median / max over the runs; per hook "
        f"the median of its calls in a session; calls built-in/ours in brackets), with 0, 1 or all {len(PLUGINS)} of "
        "our plugins on PATH; ours / built-in taken run by run in the same configuration:\n",
        f"| agent | hook | built-in, 0 | built-in, 1 | ours, 1 | ours / built-in, 1 | built-in, {len(PLUGINS)} | "
        f"ours, {len(PLUGINS)} | ours / built-in, {len(PLUGINS)} |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    against = dump.get("against_codex", {})
    for agent in agents:
        for name, per in dump["timing"][agent].items():
            label = agent
            if agent in against:  # no built-in: the built-in Codex hook of the same role, same run
                label = f"{agent} (against codex)"
                hook = name.split("`")[1] if name.startswith("`") else ""
                mapped = against[agent].get(hook)
                codex = next(
                    (p for n, p in dump["timing"]["codex"].items() if n.startswith(f"`{mapped}` (")), None
                )
                if not mapped or codex is None:
                    continue  # a whole turn, or a hook with no counterpart: sessions differ, nothing to set beside
                name = f"{name} against `{mapped}`"
                per = {**per, "built-in 0": codex["built-in 0"], "built-in 1": codex["built-in 1"],
                       "built-in all": codex["built-in all"]}  # fmt: skip
            ratios: dict[str, list[float]] = {}
            for plugins in ("1", "all"):
                a, b = per[f"ours {plugins}"], per[f"built-in {plugins}"]
                ratios[plugins] = [x / y for x, y in zip(a, b, strict=False) if y] if a and b else []
            cells = [
                stats(per["built-in 0"]), stats(per["built-in 1"]), stats(per["ours 1"]), ratio_stats(ratios["1"]),
                stats(per["built-in all"]), stats(per["ours all"]), ratio_stats(ratios["all"]),
            ]  # fmt: skip
            out.append(f"| {label} | {name} | {' | '.join(cells)} |")
    return "\n".join(out), failures


if __name__ == "__main__":
    raise SystemExit(main())
