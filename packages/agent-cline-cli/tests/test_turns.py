"""Where each turn starts and ends in the transcript, whenever its events are answered (issue 38).

Real payloads and session files (``cline_fixtures``), the plugin run as the host runs it, one process per
call: a turn's start is just before its prompt, its end exactly at its own reply (a late end never takes
the next turn's messages, nor does the host's ``prepare-transcript`` after it), a new session's start
carries its prompt from the manifest at once, and a restored session is Cline's file byte for byte,
``updated_at`` too.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cline_fixtures import CAPTURES
from entire_agent_cline_cli import journal
from entire_agent_cline_cli.view import ClineView
from entire_core.testing.runner import Sandbox

CAPTURE = CAPTURES[-1]
SESSION = CAPTURE.session_of["write hello please"]
SCRIPT = str(Path(sys.executable).parent / "entire-agent-cline-cli")
HOOKS = {path.stem.split("-", 1)[1]: path for path in CAPTURE.hooks if SESSION in path.read_text()}
NEXT_PROMPT = "now edit hello"
NEXT_REPLY = "hello edited"


class Session:
    """The captured session in a sandbox's Cline data directory, and the plugin's calls on it."""

    def __init__(self, root: Path) -> None:
        self.sandbox = Sandbox(root)
        self.sandbox.git_init()
        self.folder = root / "cline-data" / "sessions" / SESSION
        shutil.copytree(CAPTURE.sessions / SESSION, self.folder)
        self.env = {**self.sandbox.env, "CLINE_DATA_DIR": str(root / "cline-data")}
        self.doc = json.loads(CAPTURE.messages(SESSION).read_text())
        self.turn_one = list(self.doc["messages"])
        self.messages_file = self.folder / f"{SESSION}.messages.json"

    def run(self, *args: str, stdin: bytes = b"") -> Any:
        done = subprocess.run([SCRIPT, *args], input=stdin, capture_output=True, cwd=self.sandbox.repo,
                              env=self.env, timeout=60, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout) if done.stdout.strip() else None

    def hook(self, event: str, **changes: Any) -> dict[str, Any]:
        payload = {**json.loads(HOOKS[event].read_text()), **changes}
        hook = {"TaskStart": "task-start", "TaskResume": "task-resume", "TaskComplete": "task-complete"}[
            event
        ]
        return self.run("parse-hook", "--hook", hook, stdin=json.dumps(payload).encode())

    def write(self, messages: list[dict[str, Any]], **fields: Any) -> None:
        """Cline's rewrite of the messages document (``JSON.stringify(doc, null, 2)``)."""
        self.doc = {**self.doc, **fields, "messages": messages}
        self.messages_file.write_text(json.dumps(self.doc, indent=2) + "\n")

    def journal(self) -> list[dict[str, Any]]:
        data = Path(journal.path(str(self.sandbox.repo), "cline-cli", SESSION)).read_bytes()
        return [json.loads(line) for line in data.splitlines()]

    def ids(self) -> list[str]:
        return [m["id"] for m in self.journal() if "role" in m]


def turn_two(at: int) -> list[dict[str, Any]]:
    """A second turn as Cline writes it, ``at`` ms after the first turn's messages."""
    return [
        {"id": "u2", "role": "user", "content": [{"type": "text", "text": f'<user_input mode="act">{NEXT_PROMPT}</user_input>'}], "ts": at},
        {"id": "a2", "role": "assistant", "content": [{"type": "text", "text": NEXT_REPLY}], "ts": at + 500},
    ]  # fmt: skip


def test_a_turn_starts_just_before_its_prompt(tmp_path: Path) -> None:
    """The host reads the turn's prompts from its start (v0.10.3 lifecycle.go backfills prompt.txt so):
    the start's position is before the prompt, the prompt is in the lines after it."""
    s = Session(tmp_path)
    start = s.hook("TaskStart")
    assert start["type"] == 2 and start["prompt"] == "write hello please"
    assert s.ids() == []  # the header only: the prompt is the turn's
    position = s.run("get-transcript-position", "--path", start["session_ref"])["position"]
    end = s.hook("TaskComplete")
    assert end["type"] == 3 and s.ids() == [m["id"] for m in s.turn_one]
    prompts = s.run("extract-prompts", "--session-ref", end["session_ref"], "--offset", str(position))
    assert prompts["prompts"] == ["write hello please"]


@pytest.mark.parametrize("reply", [True, False], ids=["with its reply", "cancelled"])
def test_a_late_turn_end_stops_at_its_own_end(tmp_path: Path, reply: bool) -> None:
    """The turn's end answered after Cline wrote the next turn (the host killed the call that carried it):
    the journal ends at the turn's reply (or, with none, before the next prompt and the messages written
    after the end's time), and neither the host's prepare-transcript nor the next start takes it further
    than the next turn's prompt."""
    s = Session(tmp_path)
    s.hook("TaskStart")
    end_payload = json.loads(HOOKS["TaskComplete"].read_text())
    s.write(s.turn_one + turn_two(s.turn_one[-1]["ts"] + 5000))
    changes = {} if reply else {"turn": {}}
    end = s.hook("TaskComplete", **changes)
    assert end["type"] == 3
    assert s.ids() == [m["id"] for m in s.turn_one]
    s.run("prepare-transcript", "--session-ref", end["session_ref"])
    assert s.ids() == [m["id"] for m in s.turn_one]
    later = end_payload["timestamp"].replace("21:37:11", "21:37:20")
    start = s.hook("TaskStart", timestamp=later)
    assert start["type"] == 2 and start["prompt"] == NEXT_PROMPT
    assert s.ids() == [m["id"] for m in s.turn_one]
    end = s.hook("TaskComplete", timestamp=later.replace(":20.", ":21."), turn={"outputText": NEXT_REPLY})
    assert end["type"] == 3 and s.ids() == [m["id"] for m in s.turn_one] + ["u2", "a2"]


def test_a_turn_end_answered_again_after_a_kill_stops_at_its_own_end(tmp_path: Path) -> None:
    """The turn's end was answered, its state saved, and the call killed before the host had it (the host's
    30 s kill): the next hook, after Cline wrote the next turn, answers that end again, at the same place."""
    s = Session(tmp_path)
    s.hook("TaskStart")
    killed = {**s.env, "ENTIRE_FAULT_AT": "parse-hook:write.renamed@session-"}
    payload = HOOKS["TaskComplete"].read_bytes()
    done = subprocess.run([SCRIPT, "parse-hook", "--hook", "task-complete"], input=payload, capture_output=True,
                          cwd=s.sandbox.repo, env=killed, timeout=60, check=False)  # fmt: skip
    assert done.returncode == -9 and s.ids() == [m["id"] for m in s.turn_one]
    s.write(s.turn_one + turn_two(s.turn_one[-1]["ts"] + 5000))
    later = json.loads(payload)["timestamp"].replace("21:37:11", "21:37:20")
    end = s.hook("TaskStart", timestamp=later)
    assert end["type"] == 3 and s.ids() == [m["id"] for m in s.turn_one]
    s.run("prepare-transcript", "--session-ref", end["session_ref"])
    start = s.hook("TaskComplete", timestamp=later.replace(":20.", ":21."), turn={"outputText": NEXT_REPLY})
    assert start["type"] == 2 and start["prompt"] == NEXT_PROMPT
    assert s.ids() == [m["id"] for m in s.turn_one]


def test_a_new_sessions_start_has_its_prompt_at_once(tmp_path: Path) -> None:
    """Cline writes a turn's messages only after its first model call (and its tools): a new session's
    first prompt is in its manifest from the start, so the start carries it without waiting for them."""
    s = Session(tmp_path)
    s.messages_file.unlink()
    start = s.hook("TaskStart")
    assert start["type"] == 2 and start["prompt"] == "write hello please"
    s.write(s.turn_one)
    end = s.hook("TaskComplete")
    assert end["type"] == 3 and s.ids() == [m["id"] for m in s.turn_one]
    prompts = s.run("extract-prompts", "--session-ref", end["session_ref"], "--offset", "0")
    assert prompts["prompts"] == ["write hello please"]


def test_a_restored_session_has_clines_last_updated_at(tmp_path: Path) -> None:
    """Cline rewrites ``updated_at`` after the last hook; the host's prepare-transcript at the user's commit
    brings it into the journal (a header line of what changed), and the restore writes Cline's file back
    byte for byte, from the journal as from a re-based view's snapshot."""
    s = Session(tmp_path)
    s.hook("TaskStart")
    end = s.hook("TaskComplete")
    s.write(s.turn_one, updated_at="2026-12-07T21:40:00.000Z")
    cline = s.messages_file.read_bytes()
    s.run("prepare-transcript", "--session-ref", end["session_ref"])
    s.run("prepare-transcript", "--session-ref", end["session_ref"])  # nothing changed: nothing added
    lines = s.journal()
    assert lines[-1] == {journal.HEADER: {"document": {"updated_at": "2026-12-07T21:40:00.000Z"}}}
    assert len(lines) == 2 + len(s.turn_one)
    ref = journal.path(str(s.sandbox.repo), "cline-cli", SESSION)
    data = Path(ref).read_bytes()
    restored = journal.restore(data, str(tmp_path / "restored"), SESSION)
    assert Path(restored).read_bytes() == cline
    records = ClineView().snapshot(ref, len(data), 1 << 20)
    assert records[0] == data.splitlines()[0]  # core's rule: a snapshot starts with the session's first line
    snapshot = b"\n".join(records) + b"\n"
    again = journal.restore(snapshot, str(tmp_path / "from-snapshot"), SESSION)
    assert Path(again).read_bytes() == cline


def test_the_trace_keeps_the_files_a_hook_read_that_no_payload_names(tmp_path: Path) -> None:
    """A recording (``ENTIRE_PLUGIN_TRACE``) has Cline's messages document and manifest as the plugin read
    them at the hook (found by the session id, named nowhere), not our own journal, view or state."""
    import hashlib

    s = Session(tmp_path)
    trace = tmp_path / "trace.jsonl"
    s.env["ENTIRE_PLUGIN_TRACE"] = str(trace)
    s.hook("TaskStart")
    reads = json.loads(trace.read_text().splitlines()[-1])["reads"]
    manifest = s.folder / f"{SESSION}.json"
    assert sorted(reads) == sorted([str(s.messages_file), str(manifest)])
    for path, (size, digest) in reads.items():
        data = Path(path).read_bytes()
        assert [size, digest] == [len(data), hashlib.sha256(data).hexdigest()]
        assert (tmp_path / "trace.jsonl.files" / digest).read_bytes() == data
