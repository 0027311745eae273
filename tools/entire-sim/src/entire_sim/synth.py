"""Synthetic large sessions built from real records, written turn by turn as the agent writes them.

    from entire_sim.synth import codex_session, gemini_session
    session = codex_session(root, repo, target_bytes=300 << 20)
    for step in session.steps():      # writes turn k's records, then yields its hooks
        ...                           # write step.files into the repository, fire step.hook

Every record is a real one from the captures bundled with the agent packages
(``packages/agent-codex/tests/data``, ``packages/agent-gemini/tests/data/captures``), copied and
given new ids, texts, sizes and counters. A Codex rollout gets many turns of prompts, ``apply_patch``
calls with their ``FileChange`` items, shell calls with their outputs, encrypted reasoning,
cumulative ``token_count`` records and ``task_complete``; a ``compacted`` record with its
``replacement_history`` now and then (PreCompact, PostCompact, SessionStart ``compact``); resumes
(SessionEnd, SessionStart ``resume``, appending to the same file); inline base64 images; and one turn
with a 20 MiB tool output. A Gemini session is JSONL: a header, ``$set`` updates, user and gemini
messages with tool calls (each gemini message written twice, before and after its tools ran), and
at every resume (same minute: the same file) a second header and the ``$set.messages`` checkpoint
restating the whole history.

The generator streams: only the current record is in memory (Gemini's history checkpoint is copied
back from the file itself), so a 1 GB session costs what a 20 MiB record costs. It is deterministic:
the same arguments give the same bytes (``GENERATOR_VERSION`` changes whenever that output changes,
so caches can key on it).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import json
import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

GENERATOR_VERSION = 1
WORKSPACE = Path(__file__).resolve().parents[4]
CODEX_DATA = WORKSPACE / "packages" / "agent-codex" / "tests" / "data"
CODEX_ROLLOUT = (
    CODEX_DATA / "rollouts" / "rollout-2026-11-30T03-02-53-01a22a67-c6ec-77d0-98ce-b28638e49364.jsonl"
)
CODEX_ID = "01a22a67-c6ec-77d0-98ce-b28638e49364"
CODEX_REPO, CODEX_HOME = "/srv/codex-live/repo", "/srv/codex-live/home"
GEMINI_RUN = (
    WORKSPACE / "packages" / "agent-gemini" / "tests" / "data" / "captures" / "run1-same-minute-resume"
)
GEMINI_CHAT = GEMINI_RUN / "final.gemini-tmp" / "repo" / "chats" / "session-2026-11-30T03-02-e7a78f69.jsonl"
GEMINI_ID = "e7a78f69-f494-40ba-bbfa-6dcf2126e6e0"
GEMINI_REPO, GEMINI_HOME = "/srv/gcap/run1/repo", "/srv/gcap/run1/home"
AIDER_HISTORY = WORKSPACE / "packages" / "agent-aider" / "tests" / "data" / "aider.chat.history.md"
AIDER_HEADER = "# aider chat started at "
AIDER_PROMPT = "#### Add a greet function to hello.py  "
AIDER_NOTIFY = 'command -v entire-agent-aider >/dev/null 2>&1 || exit 0; exec entire-agent-aider notify --aider-pid "$PPID" </dev/null'
"""``entire_agent_aider.hooks.NOTIFY_COMMAND``, which the launcher passes to Aider."""
BIG_OUTPUT = 20 << 20
START = datetime.datetime(2026, 11, 30, 3, 2, 53, tzinfo=datetime.UTC)
FILES = 40
"""The repository files the sessions edit, again and again (src/mod_00.py ...)."""


class Step:
    """One thing the agent does after writing records: change files, then fire a hook (or not)."""

    __slots__ = ("files", "hook", "payload", "turn")

    def __init__(
        self, hook: str, payload: dict[str, Any], turn: int, files: dict[str, str] | None = None
    ) -> None:
        self.hook = hook
        self.payload = json.dumps(payload, separators=(",", ":")).encode()
        self.turn = turn
        self.files = files or {}

    def __repr__(self) -> str:
        return f"Step({self.hook!r}, turn={self.turn}, files={len(self.files)})"


class Synth:
    """A session to generate: where its native file goes, the plugin's environment, its steps."""

    agent = ""
    hook_turn_start = ""
    hook_turn_end = ""

    def __init__(
        self,
        root: Path,
        repo: Path,
        target_bytes: int,
        *,
        seed: int = 0,
        turn_bytes: int | None = None,
        big_output: int = BIG_OUTPUT,
        resume_every: int = 9,
        compact_every: int = 7,
        image_every: int = 5,
    ) -> None:
        self.root = root
        self.repo = repo
        self.target = target_bytes
        self.seed = seed
        self.turn_bytes = turn_bytes or max(64 << 10, min(2 << 20, target_bytes // 120))
        self.big_output = big_output
        self.big_turn = (
            max(2, (target_bytes - big_output) // max(1, self.turn_bytes) // 3) if big_output else -1
        )
        self.resume_every = resume_every
        self.compact_every = compact_every
        self.image_every = image_every
        self.rng = random.Random(f"{self.agent}:{seed}")
        self.native = Path()
        self.env: dict[str, str] = {}
        self.turns = 0
        self._text = _text_pool(random.Random(f"text:{seed}"))
        self._b64 = base64.b64encode(random.Random(f"b64:{seed}").randbytes(3 << 18)).decode()
        self._created: set[str] = set()
        self._clock = 0.0
        self.expected: dict[int, dict[str, Any]] = {}
        """Per turn, what Entire should record: ``files`` (repo-relative, sorted) and, for Codex, ``tokens``."""

    # -- what subclasses use ----------------------------------------------------------------------------

    def size(self) -> int:
        try:
            return self.native.stat().st_size
        except FileNotFoundError:
            return 0

    def done(self) -> bool:
        return self.size() >= self.target

    def steps(self) -> Iterator[Step]:
        raise NotImplementedError

    def steady_point(self) -> bool:
        """Whether the turn about to start may begin a benchmark's steady state (see ``AiderSynth``)."""
        return True

    def uuid(self, *parts: object) -> str:
        h = hashlib.sha256(":".join(map(str, (self.agent, self.seed, *parts))).encode()).hexdigest()
        return f"{h[:8]}-{h[8:12]}-7{h[13:16]}-8{h[17:20]}-{h[20:32]}"

    def now(self, advance: float = 0.2) -> str:
        self._clock += advance
        moment = START + datetime.timedelta(seconds=self._clock)
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def text(self, size: int) -> str:
        """``size`` characters of tool output: real-looking log lines (test runs, compiler output)."""
        pool = self._text
        if size <= 0:
            return ""
        start = self.rng.randrange(len(pool) // 2)
        if start + size <= len(pool):
            return pool[start : start + size]
        return (pool[start:] + pool * (size // len(pool) + 1))[:size]

    def b64(self, size: int) -> str:
        """``size`` characters of base64 (an image, encrypted reasoning)."""
        pool = self._b64
        start = self.rng.randrange(len(pool) // 2) & ~3
        if start + size <= len(pool):
            return pool[start : start + size]
        return (pool[start:] + pool * (size // len(pool) + 1))[:size]

    def prompt(self, turn: int) -> str:
        verbs = ("Refactor", "Add tests for", "Fix the failing check in", "Document", "Speed up", "Review")
        what = (
            "the parser",
            "the config loader",
            "the cache layer",
            "the CLI entry point",
            "the HTTP client",
        )
        return (
            f"Turn {turn}: {self.rng.choice(verbs)} {self.rng.choice(what)} and update the affected modules."
        )

    def edit(self, turn: int, j: int) -> tuple[str, str, bool]:
        """A repository file this turn changes: its path, new content, and whether it is new."""
        name = f"src/mod_{(turn * 3 + j) % FILES:02d}.py"
        new = name not in self._created
        self._created.add(name)
        body = "".join(f"def f_{turn}_{j}_{i}():\n    return {turn * 100 + i}\n\n" for i in range(3))
        return name, f"# edited at turn {turn}\n{body}", new

    def split(self, total: int, parts: int) -> list[int]:
        weights = [self.rng.random() + 0.2 for _ in range(parts)]
        scale = total / sum(weights)
        return [int(w * scale) for w in weights]


def _text_pool(rng: random.Random) -> str:
    modules = ("parser", "config", "cache", "cli", "http", "models", "views", "utils")
    lines: list[str] = []
    size = 0
    while size < 1 << 20:
        kind = rng.random()
        module = rng.choice(modules)
        if kind < 0.5:
            status = "PASSED" if rng.random() < 0.9 else "FAILED"
            line = f"tests/test_{module}.py::test_{module}_{rng.randrange(400)} {status} [{rng.randrange(100):3d}%]"
        elif kind < 0.8:
            line = (f"src/{module}.py:{rng.randrange(1, 900)}:{rng.randrange(1, 80)}: warning: unused variable "
                    f"'tmp_{rng.randrange(99)}' [-Wunused-variable]")  # fmt: skip
        else:
            line = f"    at {module}.handle ({module}.py:{rng.randrange(1, 900)}) ms={rng.random() * 100:.3f}"
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines) + "\n"


def _dump(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


class _Writer:
    """Appends records to the native file (opened per turn, so readers see each turn whole)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.f = open(path, "ab")  # noqa: SIM115 - closed by close()

    def write(self, data: bytes) -> int:
        at = self.f.tell()
        self.f.write(data)
        return at

    def close(self) -> None:
        self.f.close()


# -- Codex ------------------------------------------------------------------------------------------------


class CodexSynth(Synth):
    """A Codex 0.171 rollout under ``$CODEX_HOME/sessions`` and the hooks Codex fires for it."""

    agent = "openai-codex"
    hook_turn_start = "user-prompt-submit"
    hook_turn_end = "stop"

    def __init__(self, root: Path, repo: Path, target_bytes: int, **kw: Any) -> None:
        super().__init__(root, repo, target_bytes, **kw)
        self.id = self.uuid("session")
        home = root / "codex-home"
        self.env = {"CODEX_HOME": str(home)}
        self.native = (
            home / "sessions" / "2026" / "11" / "30" / f"rollout-2026-11-30T03-02-53-{self.id}.jsonl"
        )
        table = {CODEX_ID: self.id, CODEX_REPO: str(repo), CODEX_HOME: str(home)}
        self.t: list[dict[str, Any]] = []
        for line in CODEX_ROLLOUT.read_text(encoding="utf-8").splitlines():
            for old, new in table.items():
                line = line.replace(old, new)
            self.t.append(json.loads(line))
        self.totals = dict.fromkeys(
            ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens"), 0
        )
        self.prompts: list[str] = []
        self.ordinal = 0
        self.usage: dict[str, int] = {}

    def _rec(self, index: int, turn_id: str = "") -> dict[str, Any]:
        record = json.loads(json.dumps(self.t[index]))
        record["timestamp"] = self.now(0.05)
        record["ordinal"] = self.ordinal
        self.ordinal += 1
        payload = record["payload"]
        if turn_id:
            _set_turn(payload, turn_id)
        return record

    def _hook(self, event: str, turn_id: str = "", **extra: Any) -> dict[str, Any]:
        payload: dict[str, Any] = {"session_id": self.id}
        if turn_id:
            payload["turn_id"] = turn_id
        payload.update(transcript_path=str(self.native), cwd=str(self.repo), hook_event_name=event)
        if event != "SessionEnd":
            payload["model"] = "gpt-5.5"
        if event not in ("SessionEnd", "PreCompact", "PostCompact"):
            payload["permission_mode"] = "bypassPermissions"
        payload.update(extra)
        return payload

    def _usage(self, inp: int, out: int) -> tuple[dict[str, int], dict[str, int]]:
        last = {"input_tokens": inp, "cached_input_tokens": inp // 4, "cache_write_input_tokens": 0,
                "output_tokens": out, "reasoning_output_tokens": out // 5, "total_tokens": inp + out}  # fmt: skip
        for key in self.totals:
            self.totals[key] += last[key]
        usage = self.usage
        usage["input_tokens"] += inp - inp // 4
        usage["cache_read_tokens"] += inp // 4
        usage["output_tokens"] += out
        usage["api_call_count"] += 1
        total = {**self.totals, "cache_write_input_tokens": 0}
        total["total_tokens"] = total["input_tokens"] + total["output_tokens"]
        return last, total

    def _token_count(self, w: _Writer, turn_id: str, inp: int, out: int) -> None:
        last, total = self._usage(inp, out)
        usage = self._rec(10, turn_id)
        usage["payload"].update(response_id=f"resp_{self.ordinal}", usage=last, thread_token_usage=total)
        w.write(_dump(usage))
        count = self._rec(13)
        count["payload"]["info"].update(total_token_usage=total, last_token_usage=last)
        w.write(_dump(count))

    def steps(self) -> Iterator[Step]:
        w = _Writer(self.native)
        w.write(_dump(self._rec(0)))
        w.close()
        yield Step("session-start", self._hook("SessionStart", source="startup"), 0)
        turn = 0
        while not self.done():
            turn += 1
            self.turns = turn
            turn_id = self.uuid("turn", turn)
            if turn > 1 and turn % self.resume_every == 0:
                yield Step("session-end", self._hook("SessionEnd", reason="other"), turn)
                w = _Writer(self.native)
                w.write(_dump(self._rec(6)))
                w.close()
                yield Step("session-start", self._hook("SessionStart", source="resume"), turn)
            w = _Writer(self.native)
            started = self._rec(1, turn_id)
            w.write(_dump(started))
            if turn > 1 and turn % self.compact_every == 0:
                w.close()
                yield Step("pre-compact", self._hook("PreCompact", turn_id, trigger="auto"), turn)
                w = _Writer(self.native)
                self._compaction(w, turn_id)
                w.close()
                yield Step("post-compact", self._hook("PostCompact", turn_id, trigger="auto"), turn)
                yield Step("session-start", self._hook("SessionStart", source="compact"), turn)
                w = _Writer(self.native)
            if turn == 1:
                for index in (2, 3, 4):
                    w.write(_dump(self._rec(index, turn_id)))
            w.write(_dump(self._rec(5, turn_id)))
            w.write(_dump(self._rec(6)))
            w.close()
            prompt = self.prompt(turn)
            yield Step("user-prompt-submit", self._hook("UserPromptSubmit", turn_id, prompt=prompt), turn)
            w = _Writer(self.native)
            files, summary = self._turn(w, turn, turn_id, prompt)
            w.close()
            yield Step("stop", self._hook("Stop", turn_id, stop_hook_active=False, last_assistant_message=summary),
                       turn, files)  # fmt: skip
        yield Step("session-end", self._hook("SessionEnd", reason="other"), turn)

    def _turn(self, w: _Writer, turn: int, turn_id: str, prompt: str) -> tuple[dict[str, str], str]:
        self.prompts.append(prompt)
        self.usage = dict.fromkeys(
            ("input_tokens", "cache_read_tokens", "output_tokens", "api_call_count"), 0
        )
        user = self._rec(7, turn_id)
        content: list[dict[str, Any]] = [{"type": "input_text", "text": prompt}]
        budget = self.turn_bytes
        if self.image_every and turn % self.image_every == 0:
            image = self.b64(min(budget // 3, 600 << 10))
            content.append({"type": "input_image", "image_url": f"data:image/png;base64,{image}"})
            budget -= len(image)
        user["payload"]["content"] = content
        user["payload"]["id"] = f"msg_{self.uuid('user', turn)}"
        w.write(_dump(user))
        item = self._rec(8, turn_id)
        item["payload"]["item"]["content"][0]["text"] = prompt
        item["payload"]["item"]["id"] = self.uuid("user-item", turn)
        w.write(_dump(item))
        files: dict[str, str] = {}
        calls = 2 + self.rng.randrange(5)
        sizes = self.split(max(0, budget), calls)
        for j in range(calls):
            call_id = f"call_{turn}_{j}"
            reasoning = {"timestamp": self.now(0.05), "ordinal": self.ordinal, "type": "response_item",
                         "payload": {"type": "reasoning", "id": f"rs_{turn}_{j}", "summary": [],
                                     "content": None, "encrypted_content": "gAAAAB" + self.b64(sizes[j] // 4)}}  # fmt: skip
            self.ordinal += 1
            w.write(_dump(reasoning))
            if j % 2 == 0:
                name, text, new = self.edit(turn, j)
                files[name] = text
                patch = f"*** Begin Patch\n*** {'Add' if new else 'Update'} File: {name}\n"
                patch += "".join(f"+{line}\n" for line in text.splitlines()) + "*** End Patch\n"
                call = self._rec(9, turn_id)
                call["payload"].update(id=f"ctc_{turn}_{j}", call_id=call_id, input=patch)
                w.write(_dump(call))
                self._token_count(w, turn_id, 1000 + 40 * turn, 50 + j)
                change = self._rec(11, turn_id)
                path = str(self.repo / name)
                change["payload"]["item"].update(id=call_id, changes={path: (
                    {"type": "add", "content": text} if new else
                    {"type": "update", "unified_diff": "@@ -1 +1 @@\n" + "".join(f"+{x}\n" for x in text.splitlines()),
                     "move_path": None})})  # fmt: skip
                change["payload"]["item"]["stdout"] = (
                    f"Success. Updated the following files:\n{'A' if new else 'M'} {name}\n"
                )
                w.write(_dump(change))
                out = self._rec(12, turn_id)
                out["payload"].update(call_id=call_id, id=f"ctco_{turn}_{j}",
                                      output=f"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\n{'A' if new else 'M'} {name}\n")  # fmt: skip
                w.write(_dump(out))
            else:
                size = sizes[j] * 3 // 4
                if turn == self.big_turn and j == 1:
                    size = self.big_output
                command = f"pytest -q tests/test_{j}.py"
                call = self._rec(14, turn_id)
                call["payload"].update(id=f"fc_{turn}_{j}", call_id=call_id,
                                       arguments=json.dumps({"cmd": command, "yield_time_ms": 2000}))  # fmt: skip
                w.write(_dump(call))
                self._token_count(w, turn_id, 2000 + 40 * turn, 51 + j)
                output = self.text(size)
                done = self._rec(16, turn_id)
                done["payload"]["item"].update(id=call_id, command=["/bin/bash", "-lc", command],
                                               parsed_cmd=[{"type": "unknown", "cmd": command}],
                                               aggregated_output=output[:4096])  # fmt: skip
                w.write(_dump(done))
                result = self._rec(17, turn_id)
                result["payload"].update(call_id=call_id, id=f"fco_{turn}_{j}",
                                         output=f"Chunk ID: {turn:06x}\nWall time: 1.2 seconds\nProcess exited with code 0\n"
                                                f"Original token count: {size // 4}\nOutput:\n{output}")  # fmt: skip
                w.write(_dump(result))
                del output
        summary = f"Turn {turn} done: updated {', '.join(sorted(files)) or 'nothing'}."
        agent_item = self._rec(19, turn_id)
        agent_item["payload"]["item"].update(id=f"msg_{turn}", content=[{"type": "Text", "text": summary}])
        w.write(_dump(agent_item))
        message = self._rec(20, turn_id)
        message["payload"].update(
            id=f"msg_{turn}", content=[{"type": "output_text", "text": summary, "annotations": []}]
        )
        w.write(_dump(message))
        self._token_count(w, turn_id, 3000 + 40 * turn, 52)
        complete = self._rec(23, turn_id)
        complete["payload"]["last_agent_message"] = summary
        w.write(_dump(complete))
        self.expected[turn] = {"files": sorted(files), "tokens": dict(self.usage)}
        return files, summary

    def _compaction(self, w: _Writer, turn_id: str) -> None:
        """What Codex writes when it compacts: the summary, counters, ``compacted``, fresh context."""
        self._token_count(w, turn_id, 3000, 0)
        summary = (
            f"SUMMARY: {len(self.prompts)} turns so far; the user asked for refactors and tests; "
            + self.text(2000)
        )
        message = self._rec(20, turn_id)
        message["payload"].update(
            id=f"msg_cmp_{self.ordinal}",
            content=[{"type": "output_text", "text": summary, "annotations": []}],
        )
        w.write(_dump(message))
        self._token_count(w, turn_id, 3000, 52)
        compacted = self._rec(30)
        payload = compacted["payload"]
        developer, environment, user = (self.t[2]["payload"], self.t[3]["payload"], self.t[7]["payload"])
        kept: list[dict[str, Any]] = []
        size = 0
        for prompt in reversed(self.prompts):  # Codex keeps the newest user messages, up to ~20k tokens
            if size > 80_000:
                break
            kept.insert(
                0, {**user, "content": [{"type": "input_text", "text": prompt + "\n" + self.text(1500)}]}
            )
            size += len(prompt) + 1500
        bridge = {
            **user,
            "content": [{"type": "input_text", "text": payload["message"].split("SUMMARY:")[0] + summary}],
        }
        payload["message"] = payload["message"].split("SUMMARY:")[0] + summary
        payload["replacement_history"] = [developer, environment, *kept, bridge]
        payload["replacement_history_metadata"] = [{"history_sequence": i} for i in range(len(kept) + 3)]
        w.write(_dump(compacted))
        for index in (4, 5, 6):
            w.write(_dump(self._rec(index, turn_id)))
        count = self._rec(13)  # Codex repeats the thread's totals after a compaction
        total = {**self.totals, "cache_write_input_tokens": 0}
        total["total_tokens"] = total["input_tokens"] + total["output_tokens"]
        count["payload"]["info"].update(total_token_usage=total, last_token_usage=total)
        w.write(_dump(count))
        w.write(_dump(self._rec(35, turn_id)))


def _set_turn(payload: dict[str, Any], turn_id: str) -> None:
    for key in ("turn_id", "root_turn_id"):
        if key in payload:
            payload[key] = turn_id
    for nested in ("turn_attribution", "internal_chat_message_metadata_passthrough"):
        inner = payload.get(nested)
        if isinstance(inner, dict):
            for key in ("turn_id", "root_turn_id"):
                if key in inner:
                    inner[key] = turn_id


# -- Gemini -----------------------------------------------------------------------------------------------


class GeminiSynth(Synth):
    """A Gemini CLI 0.61 chat recording (JSONL) under ``~/.gemini/tmp`` and the hooks Gemini fires."""

    agent = "google-gemini"
    hook_turn_start = "before-agent"
    hook_turn_end = "after-agent"

    def __init__(self, root: Path, repo: Path, target_bytes: int, **kw: Any) -> None:
        kw.setdefault("resume_every", 12)
        super().__init__(root, repo, target_bytes, **kw)
        self.id = self.uuid("session")
        self.home = root / "home"
        self.env = {"HOME": str(self.home)}
        tmp = self.home / ".gemini" / "tmp" / "repo"
        self.native = tmp / "chats" / f"session-2026-11-30T03-02-{self.id[:8]}.jsonl"
        table = {GEMINI_ID: self.id, GEMINI_HOME + "/.gemini/srv": str(self.home / ".gemini" / "tmp"),
                 GEMINI_HOME: str(self.home), GEMINI_REPO: str(repo)}  # fmt: skip
        self.t: list[dict[str, Any]] = []
        for line in GEMINI_CHAT.read_text(encoding="utf-8").splitlines():
            for old, new in table.items():
                line = line.replace(old, new)
            self.t.append(json.loads(line))
        self.history: list[tuple[int, int]] = []
        """Where each message's final record is in the native file: (offset, length without newline)."""
        tmp.mkdir(parents=True, exist_ok=True)
        (tmp / ".project_root").write_text(str(repo), encoding="utf-8")
        (self.home / ".gemini" / "projects.json").write_text(
            json.dumps({"projects": {str(repo): "repo"}}), encoding="utf-8"
        )

    def _hook(self, event: str, **extra: Any) -> dict[str, Any]:
        return {"session_id": self.id, "transcript_path": str(self.native), "cwd": str(self.repo),
                "hook_event_name": event, "timestamp": self.now(0.01), **extra}  # fmt: skip

    def _header(self, w: _Writer) -> None:
        header = dict(self.t[0])
        header["startTime"] = header["lastUpdated"] = self.now()
        w.write(_dump(header))
        context = json.loads(json.dumps(self.t[1]))
        context["$set"]["lastUpdated"] = header["startTime"]
        w.write(_dump(context))

    def _message(self, w: _Writer, record: dict[str, Any], final: bool = True) -> None:
        data = _dump(record)
        at = w.write(data)
        if final:
            self.history.append((at, len(data) - 1))
        w.write(_dump({"$set": {"lastUpdated": record["timestamp"]}}))

    def _checkpoint(self, w: _Writer) -> None:
        """``{"$set":{"messages":[...]}}`` restating every message so far, copied back from the file."""
        w.f.flush()
        w.write(b'{"$set":{"messages":[')
        with open(self.native, "rb") as r:
            context = self.t[1]["$set"]["messages"][0]
            w.write(json.dumps(context, ensure_ascii=False, separators=(",", ":")).encode())
            for at, length in self.history:
                r.seek(at)
                w.write(b"," + r.read(length))
        w.write(b'],"lastUpdated":' + json.dumps(self.now()).encode() + b"}}\n")

    def steps(self) -> Iterator[Step]:
        w = _Writer(self.native)
        self._header(w)
        w.close()
        yield Step("session-start", self._hook("SessionStart", source="startup"), 0)
        turn = 0
        while not self.done():
            turn += 1
            self.turns = turn
            if turn > 1 and turn % self.resume_every == 0:
                yield Step("session-end", self._hook("SessionEnd", reason="exit"), turn)
                w = _Writer(self.native)
                self._header(w)
                w.write(_dump({"$set": {"sessionId": self.id}}))
                self._checkpoint(w)
                w.close()
                yield Step("session-start", self._hook("SessionStart", source="resume"), turn)
            prompt = self.prompt(turn)
            yield Step("before-agent", self._hook("BeforeAgent", prompt=prompt), turn)
            w = _Writer(self.native)
            files, summary = self._turn(w, turn, prompt)
            w.close()
            yield Step("after-agent", self._hook("AfterAgent", prompt=prompt, prompt_response=summary,
                                                 stop_hook_active=False), turn, files)  # fmt: skip
        yield Step("session-end", self._hook("SessionEnd", reason="exit"), turn)

    def _turn(self, w: _Writer, turn: int, prompt: str) -> tuple[dict[str, str], str]:
        content: list[dict[str, Any]] = [{"text": prompt}]
        budget = self.turn_bytes
        if self.image_every and turn % self.image_every == 0:
            image = self.b64(min(budget // 3, 600 << 10))
            content.append({"inlineData": {"mimeType": "image/png", "data": image}})
            budget -= len(image)
        self._message(
            w, {"id": self.uuid("user", turn), "timestamp": self.now(), "type": "user", "content": content}
        )
        files: dict[str, str] = {}
        calls = 2 + self.rng.randrange(4)
        sizes = self.split(max(0, budget), calls)
        for j in range(calls):
            gemini = json.loads(json.dumps(self.t[4]))
            gemini.update(id=self.uuid("gemini", turn, j), timestamp=self.now())
            gemini["tokens"] = {"input": 200 + 40 * turn, "output": 25 + j, "cached": 128, "thoughts": 11, "tool": 0,
                                "total": 364 + 40 * turn + j}  # fmt: skip
            self._message(w, gemini, final=False)
            call = json.loads(json.dumps(self.t[6]))
            call.update(id=gemini["id"], timestamp=gemini["timestamp"], tokens=gemini["tokens"])
            tool = call["toolCalls"][0]
            call_id = f"{j}__{turn}_{j}"
            if j % 2 == 0:
                name, text, new = self.edit(turn, j)
                files[name] = text
                path = str(self.repo / name)
                tool_name = "write_file" if new else "replace"
                output = (
                    f"Successfully {'created and wrote to new file' if new else 'modified file'}: {path}."
                )
                tool.update(id=call_id, name=tool_name, args={"file_path": path, "content": text} if new else
                            {"file_path": path, "old_string": "# edited", "new_string": text})  # fmt: skip
                tool["resultDisplay"].update(fileName=os.path.basename(name), filePath=path, newContent=text,
                                             isNewFile=new)  # fmt: skip
            else:
                size = sizes[j]
                if turn == self.big_turn and j == 1:
                    size = self.big_output
                tool_name = "run_shell_command"
                tool.update(id=call_id, name=tool_name, args={"command": f"pytest -q tests/test_{j}.py"},
                            resultDisplay=None, description="Running tests", displayName="Shell")  # fmt: skip
                output = f"Command: pytest -q tests/test_{j}.py\nDirectory: (root)\nOutput: {self.text(size)}"
            response = {
                "functionResponse": {"id": call_id, "name": tool_name, "response": {"output": output}}
            }
            tool["result"] = [response]
            tool["timestamp"] = self.now()
            self._message(w, call)
            self._message(w, {"id": self.uuid("result", turn, j), "timestamp": self.now(), "type": "user",
                              "content": [response]})  # fmt: skip
        summary = f"Turn {turn} done: updated {', '.join(sorted(files)) or 'nothing'}."
        final = json.loads(json.dumps(self.t[9]))
        final.update(id=self.uuid("final", turn), timestamp=self.now(), content=summary)
        self._message(w, final)
        self.expected[turn] = {"files": sorted(files)}
        return files, summary


def codex_session(root: Path, repo: Path, target_bytes: int, **kw: Any) -> CodexSynth:
    """A Codex rollout of about ``target_bytes`` (see ``Synth`` for the knobs)."""
    return CodexSynth(root, repo, target_bytes, **kw)


def gemini_session(root: Path, repo: Path, target_bytes: int, **kw: Any) -> GeminiSynth:
    """A Gemini chat recording of about ``target_bytes``."""
    return GeminiSynth(root, repo, target_bytes, **kw)


# -- Aider ------------------------------------------------------------------------------------------------


class AiderSynth(Synth):
    """Aider 0.86 sessions appended to one chat-history markdown file, run under the plugin's launcher.

    Every session is an ``entire-agent-aider run -- aider ...``: the launcher's SessionStart (with the
    history file's size as ``start_offset``) before Aider writes its header, the launcher's tail
    TurnStart when a ``####`` block appears, the notification command's TurnEnd at the first prompt
    after the model call (edits applied and committed by then), and the launcher's exit call. A
    resume is a new launch with ``--restore-chat-history``: the history file holds many sessions.
    Turns are the bundled capture's records: the prompt, a long reply with search/replace blocks, the
    ``Tokens:``, ``Applied edit to`` and ``Commit`` tool lines and a test run's output (one turn's a
    single ``> `` line of ``big_output`` bytes). Replay every step with ``deliver``, which calls again
    while the plugin has events queued, as ``notify.deliver`` does.
    """

    agent = "aider"
    hook_turn_start = "turn-start"
    hook_turn_end = "turn-end"

    def __init__(self, root: Path, repo: Path, target_bytes: int, **kw: Any) -> None:
        kw.setdefault("resume_every", 6)
        super().__init__(root, repo, target_bytes, **kw)
        # Outside the repository (``--chat-history-file``), as a user keeping Aider's files apart would.
        self.native = root / "aider-history" / ".aider.chat.history.md"
        self.env = {}
        lines = AIDER_HISTORY.read_text(encoding="utf-8").split("\n")
        starts = [i for i, line in enumerate(lines) if line.startswith(AIDER_HEADER)]
        first, second = (lines[starts[i] + 1 : starts[i + 1]] for i in (0, 1))
        self.preamble = [line for line in first if line.startswith("> ") and "#### " not in line]
        self.preamble = self.preamble[
            : next(i for i, x in enumerate(self.preamble) if "Added hello" in x) + 1
        ]
        self.restored = next(line for line in second if line.startswith("> Restored previous"))
        turn = first[first.index(AIDER_PROMPT) :]
        self.intro = turn[2]
        self.tokens_line = next(line for line in turn if line.startswith("> Tokens: "))
        self.applied = next(line for line in turn if line.startswith("> Applied edit to "))
        self.commit = next(line for line in turn if line.startswith("> Commit "))
        self.session = ""
        self.sessions = 0
        self.in_session = 0
        self.cost = 0.0

    def steady_point(self) -> bool:
        """Only a session's first turn: a view is one session's slice, so its size depends on how far
        into its session a turn is; starting there makes every native size replay alike turns."""
        return self.in_session == 1

    def _payload(self, hook: str, source: str, **extra: Any) -> dict[str, Any]:
        """``notify.payload``: what the launcher and the notification command send."""
        body: dict[str, Any] = {"hook": hook, "source": source, "history_file": str(self.native),
                                "cwd": str(self.repo), "time": self.now(0.05), "session": self.session}  # fmt: skip
        body.update(extra)
        return body

    def _command_line(self, resumed: bool) -> str:
        line = next(x for x in self.preamble if x.startswith("> /srv/aider-live/venv/bin/aider "))
        args = line[2:].rstrip().split(" --notifications ", 1)[0].split(" ")
        args = [a for a in args if a not in ("--analytics-log", "/srv/aider-live/out/analytics.jsonl")]
        args += ["--no-pretty", "--yes-always", "--chat-history-file", str(self.native)]
        args += ["--restore-chat-history"] if resumed else []
        args += ["src/mod_00.py", "--notifications", "--notifications-command", AIDER_NOTIFY]
        return "> " + " ".join(args).replace("/srv/aider-live/repo", str(self.repo)) + "  "

    def _launch(self, w: _Writer, resumed: bool) -> None:
        """Aider's start-up: the session header and its tool lines (written before any prompt)."""
        moment = START + datetime.timedelta(seconds=self._clock)
        w.write(f"\n{AIDER_HEADER}{moment.strftime('%Y-%m-%d %H:%M:%S')}\n\n".encode())
        for line in self.preamble:
            if line.startswith("> /srv/aider-live/venv/bin/aider "):
                line = self._command_line(resumed)
            elif line.startswith("> Added hello.py"):
                line = "> Added src/mod_00.py to the chat.  "
            elif "gitignore" in line.lower() and self.sessions > 1:
                continue  # only the first run asks to ignore .aider*
            w.write(line.encode() + b"\n")
        if resumed:
            w.write(self.restored.encode() + b"\n")

    def steps(self) -> Iterator[Step]:
        turn = 0
        while not self.done() or turn == 0:
            self.sessions += 1
            self.session = (
                "aider-run-"
                + (START + datetime.timedelta(seconds=self._clock)).strftime("%Y%m%d-%H%M%S")
                + "-"
                + self.uuid("run", self.sessions)[:8]
            )
            yield Step(
                "session-start", self._payload("session-start", "launcher", start_offset=self.size()), turn
            )
            w = _Writer(self.native)
            self._launch(w, resumed=self.sessions > 1)
            w.close()
            self.in_session = 0
            while not self.done() or turn == 0:
                if self.in_session and self.in_session % self.resume_every == 0:
                    break
                turn += 1
                self.in_session += 1
                self.turns = turn
                w = _Writer(self.native)
                prompt = self.prompt(turn)
                w.write(f"\n#### {prompt}  \n".encode())
                w.close()
                yield Step("turn-start", self._payload("turn-start", "launcher"), turn)
                w = _Writer(self.native)
                files = self._turn(w, turn)
                w.close()
                yield Step("turn-end", self._payload("turn-end", "notification", aider_pid=4242 + self.sessions),
                           turn, files)  # fmt: skip
            yield Step("turn-end", self._payload("turn-end", "launcher", exited=True, exit_code=0), turn)

    def _turn(self, w: _Writer, turn: int) -> dict[str, str]:
        """A model call's reply and what Aider logs after it, about ``turn_bytes`` in all."""
        files: dict[str, str] = {}
        blocks: list[str] = []
        for j in range(1 + self.rng.randrange(3)):
            name, text, _new = self.edit(turn, j * 2)
            files[name] = text
            blocks.append(f"{name}\n```python\n<<<<<<< SEARCH\n=======\n{text}>>>>>>> REPLACE\n```")
        reply_size, output_size = self.split(self.turn_bytes, 2)
        prose = self.text(reply_size).partition("\n")[2].strip("\n").replace("\n\n", "\n")
        reply = "\n\n".join([self.intro, *blocks, prose])
        w.write(b"\n" + reply.encode() + b"\n\n")
        sent, received = 2.6 + turn % 50 / 10, 40 + self.rng.randrange(900)
        message = 0.0025 * sent + received / 100000
        self.cost += message
        tokens = self.tokens_line.split("Tokens: ", 1)[0]
        tokens += f"Tokens: {sent:.1f}k sent, {received} received. Cost: ${message:.4f} message, ${self.cost:.4f} session.  "
        w.write(tokens.encode() + b"\n")
        for name in files:
            w.write(f"> Applied edit to {name}  \n".encode())
        sha = hashlib.sha256(f"{self.seed}:{turn}".encode()).hexdigest()[:7]
        message_text = self.commit.rstrip().split(" ", 3)[3]
        w.write(f"> Commit {sha} {message_text}  \n".encode())
        if turn == self.big_turn:
            # One line of test output the size of a minified log: a single ``> `` record.
            w.write(b"> " + self.text(self.big_output).replace("\n", " ").encode() + b"  \n")
        else:
            output = self.text(output_size).partition("\n")[2].strip("\n").replace("\n\n", "\n").split("\n")
            # A multi-line tool message: the first line quoted, the last one ending in two spaces.
            w.write(("> " + "\n".join(output) + "  \n").encode())
        self.expected[turn] = {"files": sorted(files)}
        return files


def aider_state_path(repo: Path, agent: str, history: str) -> Path:
    """The Aider plugin's lifecycle state for ``history`` (``entire_agent_aider.state.state_path``)."""
    from entire_core.scratch import Scratch, path_key

    return Path(Scratch(str(repo), agent).file("state", path_key(history)))


def _aider_progress(path: Path) -> tuple[int, int | None]:
    try:
        state = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return 0, None
    queue = state.get("queue") or []
    return int(state.get("delivered") or 0), (int(queue[0]["type"]) if queue else None)


AIDER_HOOK_OF_TYPE = {1: "session-start", 2: "turn-start", 3: "turn-end", 5: "session-end"}
AIDER_MAX_CALLS = 64


def deliver(sim: Any, agent: str, hook: str, payload: bytes) -> list[dict[str, Any]]:
    """Fire ``hook`` through ``sim`` as the agent does; the hook records of every call.

    Aider's notify and launcher (``notify.deliver``) call ``entire hooks aider`` again, named after
    the next queued event, while the plugin still has events queued and the last call made progress.
    """
    if agent != "aider":
        return [sim.hook(agent, hook, payload)]
    body = json.loads(payload)
    path = aider_state_path(Path(sim.repo), agent, body["history_file"])
    records: list[dict[str, Any]] = []
    for _ in range(AIDER_MAX_CALLS):
        before, _head = _aider_progress(path)
        records.append(sim.hook(agent, hook, payload))
        delivered, head = _aider_progress(path)
        if delivered == before or head is None:
            break
        hook = AIDER_HOOK_OF_TYPE.get(head, "turn-end")
        body = {**body, "hook": hook, "exited": False}
        payload = json.dumps(body, separators=(",", ":")).encode()
    return records


def aider_session(root: Path, repo: Path, target_bytes: int, **kw: Any) -> AiderSynth:
    """Aider sessions in one chat-history file of about ``target_bytes``."""
    return AiderSynth(root, repo, target_bytes, **kw)


SYNTHS: dict[str, type[Synth]] = {
    "openai-codex": CodexSynth,
    "google-gemini": GeminiSynth,
    "aider": AiderSynth,
}
