"""A small but complete agent, used to exercise the core, the contract kit and the benchmarks.

Its "native" world is deliberately simple: hooks live in ``.sample/hooks.json`` (JSON with comments
allowed), transcripts are JSONL lines such as ``{"type": "user", "text": "..."}``,
``{"type": "assistant", "text": "...", "usage": {"input": 10, "cached": 2, "output": 3}}`` and
``{"type": "tool", "name": "write", "path": "a.txt"}``, and offsets are byte offsets. Run it with
``python -m entire_core.testing.sample_agent <subcommand>``.
"""

from __future__ import annotations

import os

from entire_core import jsonvalues
from entire_core.agent import (
    Agent,
    Command,
    HookResponseWriter,
    HookSupport,
    SubagentAwareExtractor,
    TextGenerator,
    TokenCalculator,
    TranscriptAnalyzer,
    TranscriptCompactor,
    TranscriptPreparer,
)
from entire_core.types import CompactTranscript, Event, EventType, TokenUsage
from entire_core.views import BYTES, ViewFormat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from entire_core.cli_flags import Flags
    from entire_core.hookfile import HookGroupsFile

HOOK_EVENTS = {
    "session-start": EventType.SESSION_START,
    "prompt": EventType.TURN_START,
    "stop": EventType.TURN_END,
    "compact": EventType.COMPACTION,
    "session-end": EventType.SESSION_END,
    "task-start": EventType.SUBAGENT_START,
    "task-end": EventType.SUBAGENT_END,
}
HOOKS_FILE = os.path.join(".sample", "hooks.json")


def _records(data: bytes) -> Iterator[dict[str, Any]]:
    import json

    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            record = jsonvalues.obj(json.loads(line))
        except ValueError:
            continue
        if record:
            yield record


def _after(data: bytes, offset: int) -> bytes:
    end = data.rfind(b"\n") + 1
    return data[offset:end] if offset < end else b""


def _usage(records: Iterator[dict[str, Any]]) -> TokenUsage:
    total = TokenUsage()
    for record in records:
        usage = record.get("usage")
        if record.get("type") == "assistant" and isinstance(usage, dict):
            u: dict[str, Any] = usage  # pyright: ignore[reportUnknownVariableType]
            cached = int(u.get("cached", 0))
            total += TokenUsage(int(u.get("input", 0)) - cached, 0, cached, int(u.get("output", 0)), 1)
    return total


class SampleAgent(
    HookSupport,
    TranscriptAnalyzer,
    TranscriptPreparer,
    TokenCalculator,
    TranscriptCompactor,
    TextGenerator,
    HookResponseWriter,
    SubagentAwareExtractor,
    Agent,
):
    """A test agent with every capability."""

    name = "sample"
    type = "Sample Agent"
    description = "Sample agent of entire-core's tests"
    version = "0.0.0"
    protected_dirs = (".sample",)
    protected_files = ("sample.lock",)
    caller_env_vars = ("SAMPLE_AGENT",)
    session_file_suffix = ".jsonl"
    hook_names = tuple(HOOK_EVENTS)
    commands = {"doctor": Command("entire_core.testing.sample_agent:doctor", "check the hooks here")}

    def detect(self) -> bool:
        return os.path.isdir(os.path.join(self.repo_root, ".sample"))

    # -- hooks --------------------------------------------------------------------------------------------

    def parse_hook(self, hook: str, payload: Any) -> Event | None:
        if not isinstance(payload, dict):
            return None
        p: dict[str, Any] = payload  # pyright: ignore[reportUnknownVariableType]
        session_id = p.get("session_id")
        if not isinstance(session_id, str) or not session_id:
            return None
        ref = p.get("transcript_path") or p.get("session_ref") or ""
        return Event(
            HOOK_EVENTS[hook],
            session_id,
            session_ref=str(ref),
            prompt=str(p.get("prompt") or p.get("user_prompt") or ""),
            timestamp=str(p.get("timestamp") or ""),
            subagent_id=str(p.get("agent_id") or ""),
            tool_use_id=str(p.get("tool_use_id") or ""),
        )

    def _wanted(self) -> dict[str, Any]:
        from entire_core import hooks

        return {
            hook: {"hooks": [{"type": "command", "command": hooks.posix_guarded(self.name, hook)}]}
            for hook in self.hook_names
        }

    def _hooks_file(self) -> HookGroupsFile:
        from entire_core import hooks
        from entire_core.hookfile import HookGroupsFile

        return HookGroupsFile(
            os.path.join(self.repo_root, HOOKS_FILE),
            agent_name=self.name,
            env=self.env,
            wanted=self._wanted,
            is_ours=lambda handler: hooks.is_ours(jsonvalues.obj(handler).get("command"), self.name),
            comments=True,
        )

    def install_hooks(self, *, force: bool = False) -> int:
        return self._hooks_file().install(force=force)

    def uninstall_hooks(self) -> None:
        self._hooks_file().uninstall()

    def are_hooks_installed(self) -> bool:
        return bool(self._hooks_file().installed())

    # -- transcripts --------------------------------------------------------------------------------------

    def get_transcript_position(self, path: str) -> int:
        from entire_core import offsets

        return offsets.complete_end(path)

    def extract_modified_files(self, path: str, offset: int) -> tuple[list[str], int]:
        from entire_core import offsets

        lines, position = offsets.read_lines(path, offset)
        files = [
            str(r["path"]) for r in _records(b"\n".join(lines)) if r.get("type") == "tool" and r.get("path")
        ]
        return list(dict.fromkeys(files)), position

    def extract_prompts(self, session_ref: str, offset: int) -> list[str]:
        from entire_core import offsets

        lines, _ = offsets.read_lines(session_ref, offset)
        return [str(r.get("text", "")) for r in _records(b"\n".join(lines)) if r.get("type") == "user"]

    def extract_summary(self, session_ref: str) -> str | None:
        with open(session_ref, "rb") as f:
            texts = [str(r.get("text", "")) for r in _records(f.read()) if r.get("type") == "assistant"]
        return texts[-1] if texts else None

    def prepare_transcript(self, session_ref: str) -> None:
        if not os.path.exists(session_ref):
            from entire_core.errors import AgentError

            raise AgentError(f"transcript {session_ref} does not exist")

    def calculate_tokens(self, transcript: bytes, offset: int) -> TokenUsage:
        return _usage(_records(_after(transcript, offset)))

    def _subagent_files(self, subagents_dir: str) -> list[str]:
        if not subagents_dir or not os.path.isdir(subagents_dir):
            return []
        return sorted(
            os.path.join(subagents_dir, n) for n in os.listdir(subagents_dir) if n.endswith(".jsonl")
        )

    def extract_all_modified_files(self, transcript: bytes, offset: int, subagents_dir: str) -> list[str]:
        files = [str(r["path"]) for r in _records(_after(transcript, offset)) if r.get("type") == "tool"]
        for path in self._subagent_files(subagents_dir):
            with open(path, "rb") as f:
                files += [str(r["path"]) for r in _records(f.read()) if r.get("type") == "tool"]
        return list(dict.fromkeys(files))

    def calculate_total_tokens(self, transcript: bytes, offset: int, subagents_dir: str) -> TokenUsage:
        usage = self.calculate_tokens(transcript, offset)
        sub = TokenUsage()
        for path in self._subagent_files(subagents_dir):
            with open(path, "rb") as f:
                sub += _usage(_records(f.read()))
        if not sub.is_zero():
            usage.subagent_tokens = sub
        return usage

    def compact_transcript(self, session_ref: str) -> CompactTranscript:
        import json

        with open(session_ref, "rb") as f:
            records = [r for r in _records(f.read()) if r.get("type") in ("user", "assistant")]
        lines = [
            json.dumps({"v": 1, "agent": self.name, "type": r["type"], "text": r.get("text", "")})
            for r in records
        ]
        return CompactTranscript("".join(line + "\n" for line in lines).encode("utf-8"))

    def generate_text(self, prompt: str, model: str) -> str:
        return f"sample answer ({model or 'default'}): {prompt.strip()[:40]}"

    def write_hook_response(self, message: str) -> bytes:
        import json

        return (json.dumps({"systemMessage": message}) + "\n").encode("utf-8")

    def format_resume_command(self, session_id: str) -> str:
        return f"sample resume {session_id}"


class SampleView(ViewFormat):
    """The sample format's view (``entire_core.views``): a ``snapshot`` record restating the conversation."""

    unit = BYTES

    def snapshot(self, path: str, end: int, limit: int) -> list[bytes]:
        import json

        with open(path, "rb") as f:
            first = f.readline()
            start = max(f.tell(), end - limit)  # a bounded look back: the newest history
            f.seek(start)
            rest = f.read(end - start)
        if start > len(first):
            rest = rest.partition(b"\n")[2]
        first = first.rstrip(b"\r\n")
        history: list[Any] = []
        for record in _records(rest):
            if record.get("type") == "snapshot":
                history = list(jsonvalues.array(record.get("history")))
            elif record.get("type") in ("user", "assistant"):
                history.append({"type": record["type"], "text": record.get("text", "")})
        while history and len(json.dumps(history)) > limit:
            history.pop(0)
        return [first, json.dumps({"type": "snapshot", "history": history}).encode()]

    def shorten(self, record: bytes, limit: int) -> bytes | None:
        from entire_core import views

        kind = b'"type": "tool"' in record or b'"type":"tool"' in record
        return views.shorten_json(record, limit, lambda path: not kind or path[:1] in (("path",), ("name",)))


class ViewedSampleAgent(SampleAgent):
    """The sample agent, handing the CLI bounded views of its transcripts."""

    name = "viewed-sample"

    def view_format(self) -> ViewFormat:
        return SampleView()

    def restore_native(self, session: Any) -> str:
        from entire_core import fsutil, sessions, validate

        directory = sessions.default_session_dir(self.repo_root, self.name)
        target = os.path.join(directory, "native", validate.session_id(session.session_id) + ".jsonl")
        fsutil.atomic_write(target, session.native_data or b"")
        return target


def doctor(agent: Agent, flags: Flags) -> int:
    """The sample's doctor, on core's report model: the chain every agent shares, then its hooks."""
    from entire_core.chain import check_host
    from entire_core.doctor import Report

    assert isinstance(agent, SampleAgent)
    report = Report.for_agent(agent)
    if not check_host(report, agent).in_git:
        report.skip("Entire's hooks", "not a git repository")
        return report.print()
    path = os.path.join(agent.repo_root, HOOKS_FILE)
    if agent.are_hooks_installed():
        report.ok(f"hooks installed in {path}")
    else:
        report.fail(f"hooks are not installed in {path}", f"`entire enable --agent {agent.name}`")
    return report.print()


def main() -> int:
    """Console entry point."""
    from entire_core.cli import run

    return run(SampleAgent)


if __name__ == "__main__":
    raise SystemExit(main())
