"""The view's snapshot and cuts, and the events answered in process, on the captured sessions."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cline_fixtures import CAPTURES
from entire_agent_cline_cli import events, transcript
from entire_agent_cline_cli.agent import ClineCliAgent
from entire_agent_cline_cli.view import ClineView
from entire_core import views

CAPTURE = CAPTURES[-1]


def test_a_snapshot_keeps_the_header_the_prompts_and_the_last_message(tmp_path: Path) -> None:
    journal = CAPTURE.journal(CAPTURE.session_of["use a subagent please"])
    data = journal.read_bytes()
    big = tmp_path / "j.jsonl"
    result = {
        "id": "r",
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "x", "content": "y" * 20000}],
    }
    big.write_bytes(data + json.dumps(result).encode() + b"\n" + data.splitlines(keepends=True)[-1])
    lines = big.read_bytes().splitlines()
    snapshot = ClineView().snapshot(str(big), len(big.read_bytes()), 16000)
    assert snapshot[0] == lines[0]
    kept = transcript.messages(snapshot[1:])
    assert transcript.prompts(kept) == ["use a subagent please"]
    assert kept[-1] == transcript.messages(lines[-1:])[0]
    assert sum(len(s) + 1 for s in snapshot[1:]) < 16000
    whole = ClineView().snapshot(str(journal), len(data), 1 << 20)
    assert whole == data.splitlines()


def test_shorten_cuts_tool_output_and_keeps_what_was_written() -> None:
    message = {
        "id": "m",
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "c", "content": "z" * 9000}],
    }
    short = ClineView().shorten(json.dumps(message).encode(), 2000)
    assert short is not None and len(short) < 3000 and "bytes cut here" in short.decode()
    write = {"id": "w", "role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "editor",
             "input": {"path": "/r/a.txt", "new_text": "x" * 9000}}]}  # fmt: skip
    assert ClineView().shorten(json.dumps(write).encode(), 2000) is None
    assert ClineView().shorten(b'{"cline_session": {}}', 10) is None
    assert ClineView().shorten(b"not json", 10) is None


def test_the_wrapped_lines_are_what_the_hosts_compactor_reads() -> None:
    fmt = ClineView()
    lines = CAPTURE.journal(CAPTURE.session_of["write hello please"]).read_bytes().splitlines()
    wrapped = [json.loads(views.wrap(fmt, line)) for line in lines]
    assert [w["type"] for w in wrapped] == ["native", "user", "assistant", "user", "assistant"]
    assert wrapped[1]["message"]["content"] == [{"type": "text", "text": "write hello please"}]
    assert wrapped[2]["message"]["usage"]["input_tokens"] == 60
    assert wrapped[3]["message"]["content"][0]["type"] == "tool_result"
    assert [views.record_of(views.wrap(fmt, line)) for line in lines] == [
        views.record_of(line) for line in lines
    ]


def test_events_in_process_a_late_start_and_a_subagents_hooks(tmp_path: Path, agent: ClineCliAgent) -> None:
    data = tmp_path / "cline-data"
    shutil.copytree(CAPTURE.sessions, data / "sessions")
    agent.env["CLINE_DATA_DIR"] = str(data)  # pyright: ignore[reportIndexIssue]
    session = CAPTURE.session_of["use a subagent please"]
    hooks = [(p.stem.split("-", 1)[1], json.loads(p.read_bytes())) for p in CAPTURE.hooks]
    mine = [
        (e, p) for e, p in hooks if p["sessionContext"]["rootSessionId"] == session and e.startswith("Task")
    ]
    name = {"TaskStart": "task-start", "TaskComplete": "task-complete"}
    order = [m for m in mine if m[1]["parent_agent_id"]] + [m for m in mine if not m[1]["parent_agent_id"]][
        ::-1
    ]
    got = [events.parse(agent, name[e], p) for e, p in order]
    kinds = [(e.type, e.prompt) for e in got if e is not None]
    assert kinds == [(2, "use a subagent please"), (3, "")]
    assert events.parse(agent, "task-start", {"sessionContext": {"rootSessionId": "a/b"}}) is None
    assert events.parse(agent, "pre-tool-use", {"sessionContext": {"rootSessionId": session}}) is None
    assert events._time("not a time").startswith("20")  # now, then
