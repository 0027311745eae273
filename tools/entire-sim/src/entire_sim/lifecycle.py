"""What ``entire hooks <agent> <hook>`` does after reading the payload: parse-hook, then the call
sequence of the event type, as Entire CLI v0.10.3 makes it (``cmd/entire/cli/lifecycle.go``, and
``strategy/manual_commit_hooks.go`` for commits; tools/entire-sim/README.md, "What the host does").
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from entire_sim import gitrefs, godecode
from entire_sim.compact import transcript
from entire_sim.plugin import CallFailed, Plugin, Violation
from entire_sim.state import State

EVENT_NAMES = {1: "SessionStart", 2: "TurnStart", 3: "TurnEnd", 4: "Compaction", 5: "SessionEnd",
               6: "SubagentStart", 7: "SubagentEnd", 8: "ModelUpdate", 9: "ToolUse"}  # fmt: skip
BANNER = "\n\nEntire CLI will link this conversation to your next commit."
BUILTIN_PROTECTED_DIRS = (".claude", ".gemini", ".codex", ".cursor", ".opencode", ".factory", ".pi")
INFRASTRUCTURE_DIRS = (".entire", ".git")
PROMPT_SEPARATOR = "\n\n---\n\n"


class HookError(Exception):
    """The hook fails: the CLI exits non-zero and the agent sees a failed hook."""


def now() -> str:
    """The current time, RFC 3339 UTC."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class HookRun:
    """One ``entire hooks <agent> <hook>`` invocation."""

    def __init__(self, plugin: Plugin, state: State, repo_root: str) -> None:
        self.plugin = plugin
        self.state = state
        self.repo_root = repo_root
        self.record: dict[str, Any] = {}

    @property
    def violations(self) -> list[Violation]:
        return self.plugin.violations

    def handle(self, hook: str, payload: bytes) -> dict[str, Any]:
        """Run the hook and return its record (also appended to ``hook-calls.jsonl``)."""
        self.record = {"agent": self.plugin.name, "hook": hook, "time": now(), "payload": _json_or_text(payload),
                       "event": None, "event_name": None, "error": None, "checkpoint": None}  # fmt: skip
        try:
            event = self._parse(hook, payload)
            if event is not None:
                self.record["event"] = event
                self.record["event_name"] = EVENT_NAMES.get(event["type"], str(event["type"]))
                self._dispatch(event)
        except (HookError, CallFailed) as exc:
            self.record["error"] = str(exc)
        self.record["calls"] = [c.to_json() for c in self.plugin.calls]
        self.record["violations"] = [v.to_json() for v in self.violations]
        self.state.append("hook-calls", self.record)
        for violation in self.violations:
            self.state.append("violations", {"agent": self.plugin.name, "hook": hook, **violation.to_json()})
        return self.record

    def replay(self, hook: str, event: dict[str, Any]) -> dict[str, Any]:
        """Run only what follows parse-hook for an event parsed before (benchmarks time this part)."""
        self.record = {"agent": self.plugin.name, "hook": hook, "time": now(), "event": event,
                       "event_name": EVENT_NAMES.get(event["type"]), "error": None, "checkpoint": None}  # fmt: skip
        try:
            self._dispatch(event)
        except (HookError, CallFailed) as exc:
            self.record["error"] = str(exc)
        self.record["calls"] = [c.to_json() for c in self.plugin.calls]
        return self.record

    # -- parse-hook and the dispatcher's checks --------------------------------------------------------

    def _parse(self, hook: str, payload: bytes) -> dict[str, Any] | None:
        call = self.plugin.run("parse-hook", "--hook", hook, stdin=payload)
        if call.stdout.strip() == b"null":
            return None
        try:
            event = godecode.decode("parse-hook", call.stdout)
        except godecode.GoDecodeError as exc:
            self.violations.append(Violation("parse-hook", f"invalid JSON: {exc}", call.stdout))
            raise HookError(f"parse-hook: invalid JSON: {exc}") from None
        problems: list[str] = []
        if event["type"] not in EVENT_NAMES:
            problems.append(f"unknown lifecycle event type: {event['type']}")
        if event["timestamp"]:
            try:
                godecode.parse_rfc3339(event["timestamp"])
            except godecode.GoDecodeError as exc:
                problems.append(f"invalid timestamp: {exc}")
        try:
            if event["session_id"]:
                godecode.validate_session_id(event["session_id"])
            godecode.validate_tool_id(event["tool_use_id"], "tool_use_id")
            godecode.validate_tool_id(event["subagent_id"], "subagent_id")
        except godecode.GoDecodeError as exc:
            problems.append(str(exc))
        if problems:
            for problem in problems:
                self.violations.append(Violation("parse-hook", problem, call.stdout))
            raise HookError("; ".join(problems))
        return event

    def _dispatch(self, event: dict[str, Any]) -> None:
        session_id: str = event["session_id"]
        kind: int = event["type"]
        owner_dir = builtin_owner(event["session_ref"], self.repo_root, self.plugin.base_env)
        if owner_dir:
            self.record["ignored"] = f"session_ref belongs to the built-in agent {owner_dir}"
            return
        session = self.state.session(session_id) if session_id else None
        if (
            session
            and session["phase"] == "active"
            and session.get("head") not in (None, _head(self.repo_root))
        ):
            # The agent committed during its turn: the simulator has no git hooks, so the post-commit
            # condensation (of the session then active) runs now, before this hook is handled. A commit
            # without the trailer moved the head it watches (commit_without_trailer).
            self.post_commit(session_id)
            session = self.state.session(session_id)
        owner = (session or {}).get("agent_type")
        if owner and owner != self.plugin.info.get("type") and kind not in (1, 2):
            self.record["ignored"] = f"session is owned by agent type {owner!r}"
            return
        handler = {1: self._session_start, 2: self._turn_start, 3: self._turn_end, 4: self._compaction,
                   5: self._session_end, 6: self._subagent_start, 7: self._subagent_end, 8: self._model_update,
                   9: lambda event, session: None}[kind]  # fmt: skip
        handler(event, session)

    def _new_session(self, event: dict[str, Any]) -> dict[str, Any]:
        return {"session_id": event["session_id"], "agent_name": self.plugin.name,
                "agent_type": self.plugin.info.get("type", ""), "transcript_path": "", "phase": "active",
                "model": "", "checkpoint_transcript_start": 0, "turns": 0, "compactions": 0,
                "started_at": event["timestamp"] or now(), "banner_written": False, "in_flight_tasks": {},
                "files_touched": [], "shadow": False, "turn_commits": 0}  # fmt: skip

    def _require_session_id(self, event: dict[str, Any]) -> str:
        if not event["session_id"]:
            self.violations.append(
                Violation("parse-hook", f"{EVENT_NAMES[event['type']]} without a session_id")
            )
            raise HookError("session ID is required")
        return event["session_id"]

    # -- the event types ----------------------------------------------------------------------------------

    def _session_start(self, event: dict[str, Any], session: dict[str, Any] | None) -> None:
        session_id = self._require_session_id(event)
        session = session or self._new_session(event)
        if event["model"]:
            session["model"] = event["model"]
        if self.plugin.capability("hook_response_writer") and not session["banner_written"]:
            message = event["response_message"] or BANNER
            self.plugin.run("write-hook-response", "--message", message)
            session["banner_written"] = True
        if event["session_ref"]:
            session["transcript_path"] = event["session_ref"]
        session["phase"] = "active"
        self.state.save_session(session_id, session)

    def _turn_start(self, event: dict[str, Any], session: dict[str, Any] | None) -> None:
        session_id = self._require_session_id(event)
        session = session or self._new_session(event)
        offset = 0
        ref: str = event["session_ref"]
        if self.plugin.capability("transcript_analyzer") and ref:
            try:
                offset = self.plugin.json("get-transcript-position", "--path", ref)["position"]
            except CallFailed:
                offset = 0  # the CLI logs and carries on from 0
        self.state.save_tmp(
            f"pre-prompt-{session_id}",
            {"transcript_offset": offset, "prompt": event["prompt"], "untracked": _untracked(self.repo_root)},
        )
        if event["prompt"]:
            prompt_file = self.state.metadata(session_id) / "prompt.txt"
            existing = prompt_file.read_text(encoding="utf-8") if prompt_file.exists() else ""
            prompt_file.write_text(
                existing + (PROMPT_SEPARATOR if existing else "") + event["prompt"], encoding="utf-8"
            )
        if ref:
            session["transcript_path"] = ref
        if event["model"]:
            session["model"] = event["model"]
        session["phase"] = "active"
        session["head"] = _head(self.repo_root)
        self.record["turn_offset"] = offset
        self.state.save_session(session_id, session)

    def _turn_end(self, event: dict[str, Any], session: dict[str, Any] | None) -> None:
        session_id = event["session_id"] or "unknown"
        session = session or self._new_session({**event, "session_id": session_id})
        ref: str = event["session_ref"]
        if not ref:
            self.violations.append(Violation("parse-hook", "TurnEnd without session_ref"))
            raise HookError("transcript file not specified")
        if self.plugin.capability("transcript_preparer"):
            with contextlib.suppress(CallFailed):  # only logged by the CLI; the violation is recorded
                self.plugin.run("prepare-transcript", "--session-ref", ref)
        if not os.path.isfile(ref):
            self.violations.append(Violation("parse-hook", f"TurnEnd session_ref does not exist: {ref}"))
            raise HookError(f"transcript file not found: {ref}")
        if not _has_commits(self.repo_root):
            self.record["skipped"] = "repository has no commits yet"
            return
        transcript = self.plugin.run("read-transcript", "--session-ref", ref).stdout
        pre_prompt = self.state.tmp(f"pre-prompt-{session_id}")
        pre_offset = int((pre_prompt or {}).get("transcript_offset", 0))
        offset = resolve_transcript_offset(pre_offset, session)
        prompt_file = self.state.metadata(session_id) / "prompt.txt"
        prompt = prompt_file.read_text(encoding="utf-8") if prompt_file.exists() else ""
        turn_prompt = (pre_prompt or {}).get("prompt", "")
        extracted: list[str] | None = None
        analyzer = self.plugin.capability("transcript_analyzer")
        if not prompt and analyzer:
            extracted = (
                self.plugin.json("extract-prompts", "--session-ref", ref, "--offset", str(offset))["prompts"]
                or []
            )
            if extracted:
                prompt = PROMPT_SEPARATOR.join(extracted)
                prompt_file.write_text(prompt, encoding="utf-8")
        transcript_files: list[str] = []
        subagents_dir = os.path.join(os.path.dirname(ref), session_id, "subagents")
        if analyzer and self.plugin.capability("subagent_aware_extractor"):
            transcript_files = (
                self.plugin.json(
                    "extract-all-modified-files",
                    "--offset",
                    str(offset),
                    "--subagents-dir",
                    subagents_dir,
                    stdin=transcript,
                )["files"]
                or []
            )
        elif analyzer:
            transcript_files = (
                self.plugin.json("extract-modified-files", "--path", ref, "--offset", str(offset))["files"]
                or []
            )
        files, dropped = self._relevant(transcript_files)
        # a file untracked already at TurnStart is not this turn's new file (DetectFileChanges, preUntrackedFiles)
        before = set((pre_prompt or {}).get("untracked") or [])
        git_files, _ = self._relevant([f for f in _git_changes(self.repo_root) if f not in before])
        # files committed during the turn were condensed with that commit: they do not count here
        changes = sorted(set(_uncommitted(self.repo_root, files)) | set(git_files))
        tokens: dict[str, Any] | None = None
        if changes:  # SaveStep: the shadow branch holds this step, its files are the session's
            tokens = self._tokens(transcript, pre_offset, subagents_dir)
            count_step(session, stored_usage(tokens))
            session["files_touched"] = sorted(set(session.get("files_touched") or []) | set(changes))
            session["shadow"] = True
        session["turns"] += 1
        session["transcript_path"] = ref
        session["phase"] = "idle"
        session.pop("head", None)  # the turn's commits are watched from TurnStart to here
        self._finalize_turn_checkpoints(session_id, session, ref)
        self._after_mid_turn_commits(session, ref)
        self.state.save_session(session_id, session)
        self.state.delete_tmp(f"pre-prompt-{session_id}")
        (self.state.metadata(session_id) / "full.jsonl").write_bytes(transcript)
        checkpoint = {
            "kind": "turn", "agent": self.plugin.name, "session_id": session_id, "turn": session["turns"],
            "time": now(), "prompt": turn_prompt or (PROMPT_SEPARATOR.join(extracted) if extracted else ""),
            "prompt_txt": prompt, "extracted_prompts": extracted, "files": changes,
            "transcript_files": files, "git_files": git_files, "dropped_files": dropped, "tokens": tokens,
            "transcript_bytes": len(transcript), "transcript_lines": count_lines(transcript),
            "transcript_sha256": hashlib.sha256(transcript).hexdigest(), "turn_offset": offset, "token_offset": pre_offset, "session_ref": ref, "model": session["model"],
            "saved": bool(changes),
        }  # fmt: skip
        self.record["checkpoint"] = checkpoint
        self.state.append("checkpoints", checkpoint)

    def _after_mid_turn_commits(self, session: dict[str, Any], ref: str) -> None:
        """The host's HandleTurnEnd (``manual_commit_hooks.go:2900``): after commits during the turn, with
        nothing left uncommitted, the next checkpoint starts where the plugin says the turn ended."""
        if session.get("turn_commits") and not session.get("files_touched"):
            position = self._position(ref)
            if position > int(session["checkpoint_transcript_start"]):
                session["checkpoint_transcript_start"] = position
        session["turn_commits"] = 0

    def _tokens(self, transcript: bytes, offset: int, subagents_dir: str) -> dict[str, Any] | None:
        try:
            if self.plugin.capability("subagent_aware_extractor"):
                return self.plugin.json(
                    "calculate-total-tokens",
                    "--offset",
                    str(offset),
                    "--subagents-dir",
                    subagents_dir,
                    stdin=transcript,
                )
            if self.plugin.capability("token_calculator"):
                return self.plugin.json("calculate-tokens", "--offset", str(offset), stdin=transcript)
        except CallFailed:
            return None  # the CLI treats usage as unknown
        return None

    def _compaction(self, event: dict[str, Any], session: dict[str, Any] | None) -> None:
        if session is not None:
            session["compactions"] += 1
            self.state.save_session(event["session_id"], session)

    def _session_end(self, event: dict[str, Any], session: dict[str, Any] | None) -> None:
        session_id: str = event["session_id"]
        if not session_id:
            return
        session = session or self._new_session(event)
        for tool_use_id, task in list(session["in_flight_tasks"].items()):
            self._finish_task(session_id, session, tool_use_id, task)
        session["in_flight_tasks"] = {}
        session["phase"] = "ended"
        session.pop("head", None)
        self.state.save_session(session_id, session)
        ref = session.get("transcript_path") or event["session_ref"]
        if self.plugin.capability("compact_transcript") and ref and os.path.isfile(ref):
            compact = self.plugin.json("compact-transcript", "--session-ref", ref)
            if not compact["transcript"]:
                self.violations.append(Violation("compact-transcript", "missing transcript"))
            else:
                self.record["compact_lines"] = len(compact["transcript"].splitlines())

    def _subagent_start(self, event: dict[str, Any], session: dict[str, Any] | None) -> None:
        key = event["tool_use_id"] or event["subagent_id"] or "unknown"
        self.state.save_tmp(f"pre-task-{key}", {"untracked": _git_changes(self.repo_root)})

    def _subagent_end(self, event: dict[str, Any], session: dict[str, Any] | None) -> None:
        session_id: str = event["session_id"]
        session = session or self._new_session(event)
        key = event["tool_use_id"] or event["subagent_id"] or "unknown"
        task = {"subagent_id": event["subagent_id"], "session_ref": event["session_ref"],
                "subagent_type": event["subagent_type"], "task_description": event["task_description"]}  # fmt: skip
        tool_input = event["tool_input"]
        if isinstance(tool_input, dict) and tool_input.get("run_in_background") is True:
            session["in_flight_tasks"][key] = task
            self.state.save_session(session_id, session)
            self.record["in_flight"] = key
            return
        self._finish_task(session_id, session, key, task)
        self.state.save_session(session_id, session)

    def _finish_task(self, session_id: str, session: dict[str, Any], key: str, task: dict[str, Any]) -> None:
        ref: str = task["session_ref"] or session.get("transcript_path", "")
        subagent_path = ""
        if task["subagent_id"] and ref:
            base = os.path.dirname(ref)
            for path in (os.path.join(base, session_id, "subagents", f"agent-{task['subagent_id']}.jsonl"),
                         os.path.join(base, f"agent-{task['subagent_id']}.jsonl")):  # fmt: skip
                if os.path.isfile(path):
                    subagent_path = path
                    break
        files: list[str] = []
        target = subagent_path or ref
        if self.plugin.capability("transcript_analyzer") and target:
            files = (
                self.plugin.json("extract-modified-files", "--path", target, "--offset", "0")["files"] or []
            )
        tokens = None
        if subagent_path:
            data = self.plugin.run("read-transcript", "--session-ref", subagent_path).stdout
            if data:
                tokens = self._tokens(data, 0, "") if self.plugin.capability("subagent_aware_extractor") else (
                    self.plugin.json("calculate-tokens", "--offset", "0", stdin=data)
                    if self.plugin.capability("token_calculator") else None
                )  # fmt: skip
        before = set((self.state.tmp(f"pre-task-{key}") or {}).get("untracked", []))
        relevant, dropped = self._relevant(files)
        git_new = [f for f in self._relevant(_git_changes(self.repo_root))[0] if f not in before]
        checkpoint = {"kind": "task", "agent": self.plugin.name, "session_id": session_id, "time": now(),
                      "tool_use_id": key, **task, "subagent_transcript": subagent_path,
                      "files": sorted(set(relevant) | set(git_new)), "transcript_files": relevant,
                      "dropped_files": dropped, "tokens": tokens}  # fmt: skip
        self.record["checkpoint"] = checkpoint
        self.state.append("checkpoints", checkpoint)
        self.state.delete_tmp(f"pre-task-{key}")

    def _model_update(self, event: dict[str, Any], session: dict[str, Any] | None) -> None:
        if session is not None and event["model"]:
            session["model"] = event["model"]
            self.state.save_session(event["session_id"], session)

    # -- condensation (git post-commit) ------------------------------------------------------------------------

    def post_commit(self, session_id: str) -> dict[str, Any] | None:
        """The CLI's post-commit hook for a commit carrying the trailer of ``session_id``; its checkpoint.

        As v0.10.3 (PostCommit, ``findSessionsForCommitLinking``, ``StateStore.List``): every session of
        the worktree is processed, in the order of their ids (``os.ReadDir``). The commit's own session
        is condensed (``condense``); another session of this agent that is idle, with neither a shadow
        branch, files nor a task in flight, is asked whether its transcript grew (``sessionHasNewContent`` ->
        ``hasNewTranscriptWork``: ``get-transcript-position``, no prepare for a session not active) and,
        if it did, which files the growth names. Other sessions are left alone: an ended one (the CLI's
        session end condenses it, FullyCondensed, skipped), another agent's, an active one, one with a
        shadow branch or files (their overlap with the commit is not modelled).
        """
        checkpoint = None
        others = {s.get("session_id", ""): s for s in self.state.sessions()}
        for sid in sorted({*others, session_id} - {""}):
            if sid == session_id:
                checkpoint = self.condense(session_id)
                continue
            other = others[sid]
            ref = other.get("transcript_path") or ""
            if (
                other.get("agent_type") != self.plugin.info.get("type", "")
                or other.get("phase") != "idle"
                or other.get("shadow")
                or other.get("files_touched")
                or other.get("in_flight_tasks")
                or not ref
                or not os.path.isfile(ref)
            ):
                continue
            start = int(other.get("checkpoint_transcript_start") or 0)
            if self._position(ref) > start:
                self._live_files(ref, start, prepare=False)
        return checkpoint

    def condense(self, session_id: str) -> dict[str, Any] | None:
        """What the CLI's post-commit hook does for one session whose commit carries its trailer.

        As v0.10.3 (``strategy/manual_commit_hooks.go`` PostCommit, ``manual_commit_condensation.go``): the
        transcript is the recorded ``session_ref`` file read directly (no ``read-transcript``), and tokens
        are asked from ``checkpoint_transcript_start``. A session that ended its turn with changes has a
        shadow branch and its files in state, so that is the only call. A session in a turn (the agent
        commits) has neither yet: its files come from the live transcript, prepared first, once to decide
        and once more to condense (``resolveFilesTouched``, ``extractSessionDataFromLiveTranscript``). An
        idle session without either shows no overlap with the (already committed) staged files and is not
        condensed. Afterwards the CLI stores its own count of the file's lines as the next
        ``checkpoint_transcript_start``; the checkpoint's scope is the file cut by line at the old one.
        """
        session = self.state.session(session_id)
        ref = (session or {}).get("transcript_path", "")
        if session is None or not ref or not os.path.isfile(ref):
            return None
        start = int(session["checkpoint_transcript_start"])
        active = session["phase"] == "active"
        touched: list[str] = list(session.get("files_touched") or [])
        shadow = bool(session.get("shadow"))
        if not (active or shadow or touched):
            if self._position(ref) > start:  # hasNewTranscriptWork, then the files it would condense
                self._live_files(ref, start, prepare=False)
            return None
        before = touched or (self._live_files(ref, start, prepare=True) if active else [])
        if active:
            self._prepare(ref)
        with open(ref, "rb") as f:
            data = f.read()
        if not data and not shadow:
            return None  # the live transcript is empty: the CLI's condensation fails
        files = touched if shadow else (touched or self._live_files(ref, start, prepare=active))
        tokens = self._tokens(data, start, "") if data else None
        lines = count_lines(data)
        (self.state.metadata(session_id) / "full.jsonl").write_bytes(data)
        files = sorted(set(self._relevant(files)[0]))
        checkpoint_id = self._store(
            session_id, data, start, files, condensed_usage(session, stored_usage(tokens))
        )
        checkpoint = {
            "kind": "commit", "agent": self.plugin.name, "session_id": session_id, "time": now(),
            "checkpoint_id": checkpoint_id,
            "checkpoint_transcript_start": start, "transcript_lines": lines, "transcript_bytes": len(data),
            "scoped_bytes": len(slice_from_line(data, start)), "files": files, "tokens": tokens,
            "session_ref": ref, "mid_turn": active,
        }  # fmt: skip
        changed = set(_git_changes(self.repo_root))
        remaining = [f for f in before if f in changed]  # carried forward to a new shadow branch
        session.update(checkpoint_transcript_start=lines, files_touched=remaining, shadow=bool(remaining),
                       window_usage=None, subagent_baseline=session.get("subagent_total"))  # fmt: skip
        if not remaining:
            (self.state.metadata(session_id) / "prompt.txt").unlink(missing_ok=True)  # clearFilesystemPrompt
        if active:
            session["turn_commits"] = int(session.get("turn_commits") or 0) + 1
            session["turn_checkpoints"] = [*session.get("turn_checkpoints", []), checkpoint_id]
            session["head"] = _head(self.repo_root)
        self.state.save_session(session_id, session)
        self.record["checkpoint"] = checkpoint
        self.state.append("checkpoints", checkpoint)
        return checkpoint

    def _store(
        self, session_id: str, data: bytes, start: int, files: list[str], tokens: dict[str, Any] | None
    ) -> str:
        """Keep the condensation as the host does (``gitrefs``), with the prompts of the turns it covers
        (``prompt.txt`` as it stands); its checkpoint id, made from the commit and the session."""
        checkpoint_id = hashlib.sha256(f"{_head(self.repo_root)}\0{session_id}".encode()).hexdigest()[:12]
        prompt_file = self.state.metadata(session_id) / "prompt.txt"
        session: dict[str, Any] = {
            "checkpoint_id": checkpoint_id, "session_id": session_id, "agent": self.plugin.info.get("type", ""),
            "files_touched": files, "token_usage": tokens, "checkpoint_transcript_start": start,
        }  # fmt: skip
        top = {
            "checkpoint_id": checkpoint_id,
            "sessions": [{"metadata": "0/metadata.json"}],
            "files_touched": files,
        }
        stored = {"metadata.json": json.dumps(top, indent=2).encode(),
                  "0/prompt.txt": prompt_file.read_bytes() if prompt_file.exists() else b""}  # fmt: skip
        gitrefs.write(self.repo_root, checkpoint_id, self._with_transcript(stored, session, data))
        return checkpoint_id

    def _with_transcript(
        self, stored: dict[str, bytes], session: dict[str, Any], data: bytes
    ) -> dict[str, bytes]:
        """``stored`` with ``data`` as the session's ``full.jsonl``, its ``content_hash.txt``, and the
        ``transcript.jsonl`` and ``compact_transcript_start`` made of it (none where nothing compacts)."""
        compact, compact_start = transcript(
            self.plugin.name, data, int(session["checkpoint_transcript_start"])
        )
        session.pop("compact_transcript_start", None)
        stored.pop("0/transcript.jsonl", None)
        if compact_start is not None:
            session["compact_transcript_start"] = compact_start
            stored["0/transcript.jsonl"] = compact
        stored.update({"0/full.jsonl": data, "0/content_hash.txt": f"sha256:{hashlib.sha256(data).hexdigest()}".encode(),
                       "0/metadata.json": json.dumps(session, indent=2).encode()})  # fmt: skip
        return stored

    def _finalize_turn_checkpoints(self, session_id: str, session: dict[str, Any], ref: str) -> None:
        """The host's HandleTurnEnd (``finalizeAllTurnCheckpoints``, ``manual_commit_hooks.go:3021``): the
        checkpoints of commits made during the turn were stored with the transcript as it stood at the
        commit; they get the whole turn's now (``full.jsonl``, ``transcript.jsonl``), and ``prompt.txt``."""
        ids = session.pop("turn_checkpoints", None) or []
        data = Path(ref).read_bytes() if ids and os.path.isfile(ref) else b""
        if not data:
            return
        prompt_file = self.state.metadata(session_id) / "prompt.txt"
        prompt = prompt_file.read_bytes() if prompt_file.exists() else b""
        for checkpoint_id in ids:
            stored = gitrefs.files(self.repo_root, checkpoint_id)
            if prompt:
                stored["0/prompt.txt"] = prompt
            meta = json.loads(stored["0/metadata.json"])
            gitrefs.write(self.repo_root, checkpoint_id, self._with_transcript(stored, meta, data))

    def _prepare(self, ref: str) -> None:
        if self.plugin.capability("transcript_preparer"):
            with contextlib.suppress(CallFailed):  # best-effort in the CLI's commit hooks
                self.plugin.run("prepare-transcript", "--session-ref", ref)

    def _position(self, ref: str) -> int:
        if not self.plugin.capability("transcript_analyzer"):
            return 0
        try:
            return int(self.plugin.json("get-transcript-position", "--path", ref)["position"])
        except CallFailed:
            return 0  # the CLI reads a failure as "no new work"

    def _live_files(self, ref: str, start: int, *, prepare: bool) -> list[str]:
        """Files the live transcript names from ``start`` on, repo-relative (``resolveFilesTouched``)."""
        if prepare:
            self._prepare(ref)
        if not self.plugin.capability("transcript_analyzer"):
            return []
        try:
            files = self.plugin.json("extract-modified-files", "--path", ref, "--offset", str(start))["files"]
        except CallFailed:
            return []
        return self._relevant(files or [])[0]

    # -- paths -----------------------------------------------------------------------------------------------

    def _relevant(self, files: list[str]) -> tuple[list[str], list[str]]:
        """Repo-relative paths the CLI keeps, and the ones it drops (outside, infrastructure, protected)."""
        protected_dirs = set(BUILTIN_PROTECTED_DIRS) | set(INFRASTRUCTURE_DIRS)
        protected_dirs |= set(self.plugin.info.get("protected_dirs") or [])
        protected_files = set(self.plugin.info.get("protected_files") or [])
        kept: list[str] = []
        dropped: list[str] = []
        root = os.path.realpath(self.repo_root)
        for name in files:
            path = name
            if os.path.isabs(path):
                real = os.path.realpath(path)
                if not (real == root or real.startswith(root + os.sep)):
                    dropped.append(name)
                    continue
                path = os.path.relpath(real, root)
            path = os.path.normpath(path).replace(os.sep, "/")
            if path.startswith("../") or path == ".." or path in protected_files:
                dropped.append(name)
                continue
            if any(path == d or path.startswith(d.rstrip("/") + "/") for d in protected_dirs):
                dropped.append(name)
                continue
            if path not in kept:
                kept.append(path)
        return kept, dropped


TOKEN_FIELDS = (
    "input_tokens",
    "cache_creation_tokens",
    "cache_read_tokens",
    "output_tokens",
    "api_call_count",
)


def stored_usage(tokens: dict[str, Any] | None) -> dict[str, Any] | None:
    """A plugin's token usage as the host keeps it (v0.10.3's ``types.TokenUsage``): its five counts, and
    ``subagent_tokens`` only where there are some (``omitempty``); other keys of the answer are dropped."""
    if tokens is None:
        return None
    usage: dict[str, Any] = {k: tokens.get(k, 0) for k in TOKEN_FIELDS}
    if tokens.get("subagent_tokens"):
        usage["subagent_tokens"] = stored_usage(tokens["subagent_tokens"])
    return usage


def _subtract(a: dict[str, Any] | None, b: dict[str, Any] | None) -> dict[str, Any] | None:
    """``types.SubtractTokenUsage``: ``a`` less ``b`` field by field, floored at 0; None when ``a`` is."""
    if a is None:
        return None
    diff: dict[str, Any] = {k: max(a.get(k, 0) - (b or {}).get(k, 0), 0) for k in TOKEN_FIELDS}
    sub = _subtract(a.get("subagent_tokens"), (b or {}).get("subagent_tokens"))
    return {**diff, "subagent_tokens": sub} if sub is not None else diff


def count_step(session: dict[str, Any], usage: dict[str, Any] | None) -> None:
    """SaveStep's token bookkeeping (``manual_commit_git.go:124``): the window since the last
    condensation adds the step's counts; a step's ``subagent_tokens`` is the session's running total
    (it replaces the last one), and the window's is that total less the one at the last condensation."""
    if usage is None:
        return
    window = session.get("window_usage") or dict.fromkeys(TOKEN_FIELDS, 0)
    window = {k: window.get(k, 0) + usage[k] for k in TOKEN_FIELDS}
    if usage.get("subagent_tokens"):
        session["subagent_total"] = usage["subagent_tokens"]
    sub = _subtract(session.get("subagent_total"), session.get("subagent_baseline"))
    session["window_usage"] = {**window, "subagent_tokens": sub} if sub is not None else window


def condensed_usage(session: dict[str, Any], usage: dict[str, Any] | None) -> dict[str, Any] | None:
    """The usage a condensation stores (``manual_commit_condensation.go:563``): the commit's own
    answer (asked without a subagents directory), its ``subagent_tokens`` filled from the window's; the
    window's whole usage where the answer has no counts."""
    window = session.get("window_usage")
    if window is None:
        return usage
    if usage is None or not any(usage[k] for k in TOKEN_FIELDS):
        return window if any(window[k] for k in TOKEN_FIELDS) else usage
    if "subagent_tokens" not in usage and window.get("subagent_tokens") is not None:
        return {**usage, "subagent_tokens": window["subagent_tokens"]}
    return usage


def resolve_transcript_offset(turn_start: int, session: dict[str, Any]) -> int:
    """Where TurnEnd reads prompts and files from, as v0.10.3's ``resolveTranscriptOffset``
    (``cmd/entire/cli/lifecycle.go``): the position TurnStart got (the pre-prompt state's
    ``TranscriptOffset``) only when it is ``> 0``, else the session's ``checkpoint_transcript_start`` when
    that is ``> 0``, else 0. A turn that started at line 0 is read from where the last condensation left
    the session, past the turn's prompt when the agent committed during the turn. (Its tokens are counted
    from the TurnStart position as it is: ``transcriptLinesAtStart`` has no such fallback.)"""
    if turn_start > 0:
        return turn_start
    start = int(session.get("checkpoint_transcript_start") or 0)
    return start if start > 0 else 0


def count_lines(data: bytes) -> int:
    """The CLI's count of a transcript it does not know: lines split on newline, trailing blank lines left out."""
    lines = data.decode("utf-8", errors="surrogateescape").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return len(lines)


def slice_from_line(data: bytes, start: int) -> bytes:
    """The CLI's line cut: ``data`` from line ``start`` (0-based); empty when it has fewer lines than that."""
    if not data or start <= 0:
        return data
    seen = 0
    for i, byte in enumerate(data):
        if byte == 0x0A:
            seen += 1
            if seen == start:
                return data[i + 1 :]
    return b""


def builtin_owner(session_ref: str, repo: str, env: dict[str, str]) -> str:
    """The built-in agent whose session directory holds ``session_ref``, or "".

    The host skips such a hook as forwarded from another agent (``hook_guard.go``, through
    ``AgentForTranscriptPath``): a Codex subagent's own rollout under ``$CODEX_HOME/sessions`` belongs to
    the built-in ``codex``. Modelled for the built-ins whose directories our agents share: Codex and
    Gemini (``~/.gemini/tmp/<sha256 of the repository path>/chats``; Gemini 0.39+ names it ``tmp/<project>``).
    """
    if not session_ref:
        return ""
    home = env.get("HOME") or os.path.expanduser("~")
    dirs = {
        "codex": os.path.join(env.get("CODEX_HOME") or os.path.join(home, ".codex"), "sessions"),
        "gemini": os.path.join(home, ".gemini", "tmp", hashlib.sha256(repo.encode()).hexdigest(), "chats"),
    }
    path = os.path.abspath(session_ref)
    for name, directory in dirs.items():
        if path.startswith(os.path.abspath(directory) + os.sep):
            return name
    return ""


def commit_without_trailer(state: State, repo: str) -> None:
    """A commit that names no session: its message carries no ``Entire-Checkpoint:`` trailer, because
    prepare-commit-msg wrote none or because Entire's git hooks did not run at all (Gemini CLI runs its
    shell's git with ``core.hooksPath`` emptied). v0.10.3's post-commit condenses nothing without the
    trailer and, where it runs, only moves the active sessions' base to the new HEAD
    (``strategy/manual_commit_hooks.go:961``, ``postCommitUpdateBaseCommitOnly``, ``:1618``). So the
    sessions in a turn watch for their agent's commits from the new HEAD on, and their next hook
    condenses nothing; what the commit holds counts where the host reads HEAD (``_uncommitted``)."""
    for session in state.sessions():
        if session.get("head"):
            session["head"] = _head(repo)
            state.save_session(session["session_id"], session)


def _uncommitted(repo: str, files: list[str]) -> list[str]:
    """``files`` less those whose working copy is what HEAD holds (``filterToUncommittedFiles``)."""
    kept: list[str] = []
    for name in files:
        head = subprocess.run(["git", "show", f"HEAD:{name}"], cwd=repo, capture_output=True, check=False)
        try:
            with open(os.path.join(repo, name), "rb") as f:
                same = head.returncode == 0 and f.read() == head.stdout
        except OSError:
            same = False  # deleted or unreadable: kept
        if not same:
            kept.append(name)
    return kept


def _head(repo: str) -> str:
    """HEAD's commit id, or "" before the first commit."""
    proc = subprocess.run(
        ["git", "rev-parse", "-q", "--verify", "HEAD"], cwd=repo, capture_output=True, check=False
    )
    return proc.stdout.decode().strip()


def _has_commits(repo: str) -> bool:
    return subprocess.run(["git", "rev-parse", "--verify", "-q", "HEAD"], cwd=repo, capture_output=True,
                          check=False).returncode == 0  # fmt: skip


def _untracked(repo: str) -> list[str]:
    """The untracked files git does not ignore."""
    proc = subprocess.run(["git", "ls-files", "-z", "--others", "--exclude-standard"], cwd=repo,
                          capture_output=True, check=False)  # fmt: skip
    return [f for f in proc.stdout.decode("utf-8", errors="surrogateescape").split("\0") if f]


def _git_changes(repo: str) -> list[str]:
    """Modified, added, deleted and untracked files, as ``git status`` reports them."""
    proc = subprocess.run(["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"], cwd=repo,
                          capture_output=True, check=False)  # fmt: skip
    if proc.returncode != 0:
        return []
    entries = proc.stdout.decode("utf-8", errors="surrogateescape").split("\0")
    files: list[str] = []
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if len(entry) < 4:
            continue
        status, path = entry[:2], entry[3:]
        if "R" in status or "C" in status:
            i += 1  # the original name follows a rename or copy
        files.append(path)
    return files


def _json_or_text(payload: bytes) -> Any:
    try:
        return json.loads(payload)
    except ValueError:
        return payload.decode("utf-8", errors="replace")


def read_one_json_value(stream: Any, limit: int = 10 * 1024 * 1024) -> bytes:
    """Read exactly one JSON value from a binary stream, as the CLI reads a hook's stdin.

    It does not wait for end of file: agents may keep the pipe open. A terminal, nothing, or text
    that is not JSON is an error, and then the plugin is never called.
    """
    fd = stream.fileno()
    if os.isatty(fd):
        raise HookError("empty hook input (stdin is a terminal)")
    decoder = json.JSONDecoder()
    data = b""
    while len(data) <= limit:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
        text = data.removeprefix(b"\xef\xbb\xbf").lstrip()
        try:
            decoded = text.decode("utf-8")
            _, end = decoder.raw_decode(decoded)
        except (UnicodeDecodeError, ValueError):
            continue
        return decoded[:end].encode("utf-8")
    text = data.removeprefix(b"\xef\xbb\xbf").strip()
    if not text:
        raise HookError("empty hook input")
    raise HookError("failed to parse hook input: not one JSON value")
