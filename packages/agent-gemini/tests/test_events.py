"""Hook payloads -> events where the captures' own paths matter: resume, compression, subagents."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from entire_agent_google_gemini import events
from entire_agent_google_gemini.agent import GeminiAgent
from gemini_fixtures import RUN1, RUN3, local_ref, payload

ALL_HOOKS = (
    "session-start",
    "before-agent",
    "after-agent",
    "pre-compress",
    "session-end",
    "before-tool",
    "after-tool",
)


def _payloads(run: Path, event: str) -> list[Path]:
    return sorted((run / "hook-payloads").glob(f"*-{event}.json"))


@pytest.fixture
def run3_after_turn2(tmp_path: Path) -> Path:
    """The capture's ~/.gemini/tmp right after the cross-minute resume, where the payloads expect it."""
    target = tmp_path / "gemini-tmp"
    shutil.copytree(RUN3 / "after_turn2.gemini-tmp", target)
    return target


def test_resume_across_a_minute_names_the_real_file_not_the_stray(
    run3_after_turn2: Path, agent: GeminiAgent
) -> None:
    start = payload(RUN3 / "hook-payloads/014-7cd6fc3e-SessionStart.json")
    stray = local_ref(RUN3, str(start["transcript_path"]), run3_after_turn2)
    assert os.path.basename(stray) == "session-2026-11-30T03-05-7cd6fc3e.jsonl" and os.path.exists(stray)
    event = agent.parse_hook("session-start", {**start, "transcript_path": stray})
    assert event is not None
    real = run3_after_turn2 / "repo/chats/session-2026-11-30T03-04-7cd6fc3e.jsonl"
    assert event.to_wire() == {"type": 1, "session_id": start["session_id"], "session_ref": str(real),
                               "timestamp": "2026-11-30T03:05:02.797Z"}  # fmt: skip
    # the turn events already name the real file; a fresh start keeps its own file
    turn = payload(RUN3 / "hook-payloads/015-7cd6fc3e-BeforeAgent.json")
    event = agent.parse_hook("before-agent", {**turn, "transcript_path": str(real)})
    assert event is not None and event.session_ref == str(real)
    fresh = {**start, "source": "startup", "transcript_path": stray}
    event = agent.parse_hook("session-start", fresh)
    assert event is not None and event.session_ref == stray


def test_precompress_before_every_model_call_is_no_compaction(tmp_path: Path, agent: GeminiAgent) -> None:
    chats = tmp_path / "gemini-tmp"
    shutil.copytree(RUN1 / "final.gemini-tmp", chats)
    for path in _payloads(RUN1, "PreCompress"):
        p = payload(path)
        assert p["trigger"] == "auto"
        p["transcript_path"] = local_ref(RUN1, str(p["transcript_path"]), chats)
        assert agent.parse_hook("pre-compress", p) is None


def _chat_lines(*records: object) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def test_pre_compress_without_writable_scratch_is_no_event_not_an_error(
    tmp_path: Path, agent: GeminiAgent
) -> None:
    """What a check saw is a hint (core writes it best effort): unwritable, no check has a baseline."""
    blocked = Path(agent.repo_root, ".entire", "tmp")
    blocked.parent.mkdir(parents=True, exist_ok=True)
    blocked.write_text("not a directory")
    chat = tmp_path / "session-2026-11-30T10-00-aaaa1111.jsonl"
    sid = "aaaa1111-0000-4000-8000-000000000001"
    header = {"sessionId": sid, "projectHash": "h", "startTime": "t", "lastUpdated": "t", "kind": "main"}
    snapshot = {
        "id": "snap",
        "type": "user",
        "content": [{"text": "<state_snapshot>so far</state_snapshot>"}],
    }
    chat.write_text(_chat_lines(header, {"$set": {"messages": [snapshot]}}))
    hook = {
        "session_id": sid,
        "transcript_path": str(chat),
        "hook_event_name": "PreCompress",
        "trigger": "auto",
    }
    assert agent.parse_hook("pre-compress", hook) is None
    assert agent.parse_hook("pre-compress", hook) is None


def test_a_real_compression_is_one_compaction(tmp_path: Path, agent: GeminiAgent) -> None:
    chat = tmp_path / "session-2026-11-30T10-00-aaaa1111.jsonl"
    sid = "aaaa1111-0000-4000-8000-000000000001"
    header = {"sessionId": sid, "projectHash": "h", "startTime": "t", "lastUpdated": "t", "kind": "main"}
    chat.write_text(_chat_lines(header, {"id": "u1", "type": "user", "content": [{"text": "go"}]}))
    hook = {"session_id": sid, "transcript_path": str(chat), "hook_event_name": "PreCompress", "trigger": "auto",
            "timestamp": "2026-11-30T10:00:01.000Z"}  # fmt: skip
    assert agent.parse_hook("pre-compress", hook) is None  # the first check sets the baseline
    with chat.open("a") as f:
        f.write(_chat_lines({"id": "g1", "type": "gemini", "content": "", "tokens": {"input": 900000}}))
    assert agent.parse_hook("pre-compress", hook) is None
    snapshot = {
        "id": "snap",
        "type": "user",
        "content": [{"text": "<state_snapshot>so far</state_snapshot>"}],
    }
    with chat.open("a") as f:  # what Gemini writes when it compresses after that hook
        f.write(_chat_lines({"$set": {"sessionId": sid}}, {"$set": {"messages": [snapshot]}}))
    event = agent.parse_hook("pre-compress", hook)
    assert event is not None
    assert event.to_wire() == {"type": 4, "session_id": sid, "session_ref": str(chat),
                               "timestamp": "2026-11-30T10:00:01.000Z"}  # fmt: skip
    with chat.open("a") as f:  # a resume repeats the snapshot: not a new compression
        f.write(
            _chat_lines({"$set": {"messages": [snapshot, {"id": "u2", "type": "user", "content": "next"}]}})
        )
    assert agent.parse_hook("pre-compress", hook) is None
    assert agent.parse_hook("pre-compress", {**hook, "trigger": "manual"}) is not None  # /compress
    assert agent.parse_hook("pre-compress", {**hook, "transcript_path": str(tmp_path / "gone.jsonl")}) is None


def test_compaction_state_of_a_hostile_session_id_stays_in_scratch(
    tmp_path: Path, agent: GeminiAgent
) -> None:
    chat = tmp_path / "chat.jsonl"
    chat.write_text("{}\n")
    hook = {"session_id": "../../x", "transcript_path": str(chat), "trigger": "auto"}
    before = {p for p in tmp_path.rglob("*") if p.is_file()}
    # The first PreCompress only sets the baseline (no event, so nothing for the dispatcher to refuse);
    # what it writes is keyed by a hash of the id, inside the scratch directory.
    assert agent.parse_hook("pre-compress", hook) is None
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p not in before]
    assert written and all(p.parent == Path(agent.scratch().directory) for p in written), written


def test_subagent_end_points_at_the_subagents_own_chat(tmp_path: Path, agent: GeminiAgent) -> None:
    gemini_tmp = tmp_path / "gemini-tmp"
    shutil.copytree(RUN3 / "after_turn3.gemini-tmp", gemini_tmp)
    start = payload(RUN3 / "hook-payloads/034-eb665009-BeforeTool.json")
    end = payload(RUN3 / "hook-payloads/046-eb665009-AfterTool.json")
    for p in (start, end):
        p["transcript_path"] = local_ref(RUN3, str(p["transcript_path"]), gemini_tmp)
    began = agent.parse_hook("before-tool", start)
    ended = agent.parse_hook("after-tool", end)
    assert began is not None and ended is not None
    assert (began.type, ended.type) == (6, 7)
    assert began.tool_use_id == ended.tool_use_id == "gemini-a8c8c6b1add952dc839c9910"
    sub_chat = (
        gemini_tmp
        / "repo/chats/eb665009-e156-4391-8b2e-3c44a320f795/5a2688cd-e48c-4868-9748-e3fc82329408.jsonl"
    )
    assert ended.subagent_id == "5a2688cd-e48c-4868-9748-e3fc82329408"
    assert ended.session_ref == str(sub_chat)
    # a subagent that made no tool calls leaves no activity ids: found by its prompt instead
    quiet = {**end, "tool_response": {"llmContent": [], "returnDisplay": {"recentActivity": []}}}
    found = agent.parse_hook("after-tool", quiet)
    assert found is not None and found.subagent_id == ended.subagent_id and found.session_ref == str(sub_chat)
    # a different task under the same session is not confused with it
    other = {**quiet, "tool_input": {"agent_name": "generalist", "prompt": "Something else"}}
    unknown = agent.parse_hook("after-tool", other)
    assert unknown is not None and unknown.subagent_id == "" and unknown.session_ref == ""
    assert unknown.tool_use_id != ended.tool_use_id


def test_only_invoke_agent_tools_are_subagents(agent: GeminiAgent) -> None:
    for path in [*_payloads(RUN3, "BeforeTool"), *_payloads(RUN3, "AfterTool")]:
        p = payload(path)
        event = agent.parse_hook("before-tool" if "Before" in path.name else "after-tool", p)
        assert (event is not None) == (p["tool_name"] == "invoke_agent"), path.name
    legacy = {
        "session_id": "s",
        "tool_name": "delegate_to_agent",
        "tool_input": {"agent_name": "a", "objective": "o"},
    }
    event = agent.parse_hook("before-tool", legacy)
    assert event is not None and event.task_description == "o" and event.subagent_type == "a"


@pytest.mark.parametrize("event", ["BeforeModel", "AfterModel", "BeforeToolSelection"])
def test_events_we_do_not_install_mean_nothing_under_any_hook(agent: GeminiAgent, event: str) -> None:
    for path in _payloads(RUN1, event) + _payloads(RUN3, event):
        for hook in ("pre-compress", "before-tool", "after-tool"):
            assert agent.parse_hook(hook, payload(path)) is None, (path.name, hook)


def test_unusable_payloads_are_no_event(agent: GeminiAgent) -> None:
    for hook in ALL_HOOKS:
        for bad in (None, [], "text", {}, {"session_id": ""}, {"session_id": 7}):
            assert agent.parse_hook(hook, bad) is None


def test_task_id_is_stable_and_safe() -> None:
    one = events.task_id("s", {"prompt": "p", "agent_name": "a"})
    assert one == events.task_id("s", {"agent_name": "a", "prompt": "p"})
    assert one != events.task_id("t", {"agent_name": "a", "prompt": "p"})
    assert one.replace("-", "").isalnum()


def test_subagent_id_ignores_malformed_activity() -> None:
    assert (
        events.subagent_id({"returnDisplay": {"recentActivity": [{"id": "../x#0-0"}, {"id": "ok-1#1-0"}]}})
        == "ok-1"
    )
    assert events.subagent_id({"returnDisplay": "Output submitted"}) == ""
    assert events.subagent_id(None) == ""
