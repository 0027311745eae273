"""The chat-recording replay on the real captures and on the record kinds the captures do not show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from entire_agent_google_gemini import transcript
from entire_agent_google_gemini.agent import GeminiAgent
from entire_agent_google_gemini.transcript import JSONL, LEGACY, parse
from gemini_fixtures import LEGACY_CHAT, RUN1_CHAT, RUN3_FINAL_MAIN, RUN3_SUBAGENT_MAIN, usage


def jsonl(*records: object, tail: bytes = b"") -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records) + tail


def user(mid: str, text: object) -> dict[str, object]:
    return {"id": mid, "type": "user", "content": text}


def gemini(mid: str, text: str = "", **extra: object) -> dict[str, object]:
    return {"id": mid, "type": "gemini", "content": text, **extra}


def write(path: str, mid: str = "c1", status: str = "success", name: str = "write_file") -> dict[str, object]:
    return {"id": mid, "name": name, "args": {"file_path": path}, "status": status}


HEADER = {"sessionId": "s-1", "projectHash": "h", "startTime": "t", "lastUpdated": "t", "kind": "main"}


def test_real_chat_replays_each_message_once_in_first_write_order() -> None:
    chat = parse(RUN1_CHAT.read_bytes())
    assert chat.kind == JSONL
    assert chat.position == 24
    ids = [m["id"] for m in chat.messages()]
    # the gemini message written at lines 4 and 6 counts once; checkpoint copies (the "_response" ids
    # and the <session_context> message) are not activity
    assert ids == [
        "e7db7e64-3b45-4255-9ad2-45bd8f318f03",
        "9b96561a-ebd0-4c97-8cd3-8a7fd2242be1",
        "956eaddd-9b08-4f9c-964e-2ab5db645db4",
        "c68150e8-fea1-4d6a-b083-8cd3eddcb43d",
        "9871ea5a-7bd9-4e1d-9737-5195831319df",
        "21a5eff7-a9e9-475b-b816-cb317413a8ce",
        "70cd2b50-a3ea-4cdd-8e81-b24d5b91f11c",
        "7b84d0f5-edc1-4c24-b9cf-f8996806f926",
    ]
    # the last write wins: the second copy of the first gemini message carries its tool call
    assert transcript.tool_calls(chat.messages()[1])[0]["name"] == "write_file"


def test_offsets_count_complete_lines_and_ignore_a_line_being_written() -> None:
    data = jsonl(HEADER, user("u1", "first"), tail=b'{"id": "g1", "type": "gem')
    chat = parse(data)
    assert chat.position == 2
    assert [m["id"] for m in chat.messages()] == ["u1"]
    assert parse(data + b'ini", "content": "ok"}\n').position == 3


def test_offset_past_the_end_starts_again() -> None:
    chat = parse(jsonl(HEADER, user("u1", "only prompt")))
    assert transcript.prompts(chat.messages(2)) == []
    assert transcript.prompts(chat.messages(3)) == ["only prompt"]


def test_rewind_drops_the_target_and_everything_after_it() -> None:
    chat = parse(jsonl(HEADER, user("u1", "keep"), gemini("g1", "a"), user("u2", "drop"), gemini("g2", "b"),
                       {"$rewindTo": "u2"}, user("u3", "again"), gemini("g3", "c")))  # fmt: skip
    assert transcript.prompts(chat.messages()) == ["keep", "again"]
    assert transcript.summary(chat.messages()) == "c"


def test_rewind_to_before_the_range_empties_what_the_range_had() -> None:
    chat = parse(
        jsonl(HEADER, user("u1", "old"), user("u2", "new"), {"$rewindTo": "u1"}, user("u3", "after"))
    )
    assert transcript.prompts(chat.messages(3)) == ["after"]


def test_checkpoints_restate_history_and_are_not_activity() -> None:
    restated = {"$set": {"messages": [user("u1", "first"), gemini("g1", "restated answer")]}}
    chat = parse(jsonl(HEADER, user("u1", "first"), gemini("g1", "answer"), restated, user("u2", "second")))
    assert transcript.prompts(chat.messages(3)) == ["second"]
    assert transcript.summary(chat.messages()) == "answer"


def test_a_one_line_legacy_record_is_read_like_a_document() -> None:
    record = {
        **HEADER,
        "messages": [user("u1", "hi"), gemini("g1", "hello", tokens={"input": 5, "output": 1})],
    }
    chat = parse(json.dumps(record).encode() + b"\n")
    assert chat.kind == LEGACY
    assert chat.position == 2
    assert transcript.usage(chat.messages()) == transcript.usage(
        [gemini("g", tokens={"input": 5, "output": 1})]
    )


def test_a_jsonl_header_that_carries_messages_adds_them() -> None:
    migrated = {**HEADER, "messages": [user("u1", "migrated prompt")]}
    chat = parse(jsonl(migrated, user("u2", "new prompt")))
    assert chat.kind == JSONL
    assert transcript.prompts(chat.messages()) == ["migrated prompt", "new prompt"]


def test_legacy_pretty_printed_document() -> None:
    chat = parse(LEGACY_CHAT.read_bytes())
    assert chat.kind == LEGACY
    assert chat.position == 7
    assert [m["id"] for m in chat.messages(5)] == ["m6", "m7"]


def test_utf8_bom_and_crlf_are_tolerated() -> None:
    data = b"\xef\xbb\xbf" + jsonl(HEADER, user("u1", "caf\u00e9")).replace(b"\n", b"\r\n")
    assert transcript.prompts(parse(data).messages()) == ["caf\u00e9"]


def test_garbage_lines_are_skipped_but_counted() -> None:
    chat = parse(b"not json\n" + jsonl(user("u1", "ok")) + b"[1, 2]\n")
    assert chat.position == 3
    assert transcript.prompts(chat.messages()) == ["ok"]


def test_prompts_are_what_the_user_typed() -> None:
    messages = [
        user("a", [{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}]),
        user("b", [{"functionResponse": {"name": "write_file", "response": {"output": "ok"}}}]),
        user("c", [{"text": "Explain @a.py"}, {"text": "<hook_context>extra</hook_context>"}]),
        {
            **user("d", [{"text": "Explain @b.py"}, {"text": "--- Content from referenced files ---\n..."}]),
            "displayContent": [{"text": "Explain @b.py"}],
        },
        user("e", "  plain string prompt  "),
        user("f", [{"text": "<state_snapshot>summary</state_snapshot>"}]),
        gemini("g", "not a prompt"),
    ]
    assert transcript.prompts(messages) == ["Explain @a.py", "Explain @b.py", "plain string prompt"]


def test_summary_is_the_last_model_text_without_thoughts() -> None:
    messages = [
        gemini("g1", "first answer"),
        {"id": "g2", "type": "gemini", "content": [{"text": "thinking", "thought": True}, {"text": "final"}]},
        gemini("g3", "", toolCalls=[write("/r/x.txt")]),
        {"id": "g4", "type": "gemini", "content": [{"text": "only a thought", "thought": True}]},
    ]
    assert transcript.summary(messages) == "final"
    assert transcript.summary([]) == ""


def test_modified_files_come_from_successful_writing_tools_only() -> None:
    calls = [
        write("/r/a.txt"),
        write("/r/b.txt", status="error"),
        write("/r/c.txt", status="cancelled"),
        write("/r/d.txt", name="replace"),
        write("/r/e.txt", name="edit"),
        write("/r/f.txt", name="read_file"),
        {"id": "x", "name": "save_file", "args": {"filename": "g.txt"}},  # no status in old builds
        {
            "id": "y",
            "name": "edit_file",
            "args": {},
            "resultDisplay": {"filePath": "/r/h.txt"},
            "status": "success",
        },
        write("/r/a.txt", mid="again"),
    ]
    messages = [gemini("g1", toolCalls=calls), user("u1", "write /r/z.txt")]
    assert transcript.modified_files(messages) == ["/r/a.txt", "/r/d.txt", "/r/e.txt", "g.txt", "/r/h.txt"]


def test_tokens_follow_entires_formula_and_skip_missing_blocks() -> None:
    messages = [
        gemini(
            "g1", tokens={"input": 100, "output": 10, "cached": 40, "thoughts": 3, "tool": 7, "total": 120}
        ),
        gemini("g2", tokens=None),
        gemini("g3", tokens={"input": 50, "output": 5, "cached": 0}),
        gemini("g4", tokens={"input": "many", "output": 2.0, "cached": True}),
        user("u1", "prompts carry no tokens"),
    ]
    got = transcript.usage(messages)
    assert got.to_wire() == usage(100 - 40 + 7 + 50, 40, 13 + 5 + 2, 3)


def test_subagent_ids_are_the_agent_ids_of_invoke_agent_calls() -> None:
    chat = parse(RUN3_SUBAGENT_MAIN.read_bytes())
    assert transcript.subagent_ids(chat.messages()) == ["5a2688cd-e48c-4868-9748-e3fc82329408"]
    odd = [
        gemini("g", toolCalls=[{"name": "invoke_agent", "agentId": "../../etc"}, {"name": "invoke_agent"}])
    ]
    assert transcript.subagent_ids(odd) == []


def test_snapshot_ids_find_each_compression_once() -> None:
    snapshot = user("snap-1", [{"text": "<state_snapshot>the story so far</state_snapshot>"}])
    records = [
        HEADER,
        {"$set": {"sessionId": "s-1"}},
        {
            "$set": {
                "messages": [
                    user("ctx", "<session_context>x</session_context>"),
                    snapshot,
                    gemini("ok", "Got it."),
                ]
            }
        },
        {"$set": {"messages": [snapshot, user("u9", "later")]}},  # a later checkpoint repeats it
        user("u10", "mentions <state_snapshot> in a prompt"),  # a user may type the tag
    ]
    assert transcript.snapshot_ids(records) == ["snap-1"]
    assert transcript.snapshot_ids(parse(RUN1_CHAT.read_bytes()).records()) == []


def test_metadata_merges_headers_and_set_records() -> None:
    chat = parse(RUN3_FINAL_MAIN.read_bytes())
    meta = chat.metadata()
    assert meta["sessionId"] == "eb665009-e156-4391-8b2e-3c44a320f795"
    assert meta["summary"] == "Mock session summary"  # the title --list-sessions added at the end
    assert meta["lastUpdated"] == "2026-11-30T03:05:08.091Z"
    assert "messages" not in meta
    rewritten = parse(jsonl(HEADER, {"$set": {"sessionId": "s-2", "messages": []}}))
    assert rewritten.metadata()["sessionId"] == "s-2"
    legacy = parse(LEGACY_CHAT.read_bytes()).metadata()
    assert legacy["sessionId"] == "abcd1234-0000-4000-8000-00000000cafe" and "messages" not in legacy


def test_a_turn_end_reads_only_the_bytes_after_the_turn_start(
    agent: GeminiAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat = tmp_path / "session-2026-11-30T03-02-s1.jsonl"
    chat.write_bytes(jsonl(HEADER, user("u1", "first"), gemini("g1", "ok", toolCalls=[write("/r/a.txt")])))
    start = agent.get_transcript_position(str(chat))  # TurnStart: a count, written nowhere (issue 37)
    assert start == 3
    with chat.open("ab") as f:
        f.write(jsonl(user("u2", "second"), gemini("g2", "done", toolCalls=[write("b.txt")])))
    full = agent.extract_modified_files(str(chat), start)

    def whole_file_read(*args: object) -> None:
        raise AssertionError("the whole chat was read")

    monkeypatch.setattr(GeminiAgent, "_chat", whole_file_read)
    assert agent.extract_modified_files(str(chat), start) == full == (["b.txt"], 5)
    assert agent.extract_prompts(str(chat), start) == ["second"]
    chat.write_bytes(jsonl(HEADER, user("u9", "replaced")))  # fewer lines than the start: the whole chat
    monkeypatch.undo()
    assert agent.extract_prompts(str(chat), start) == ["replaced"]  # offset past the end: from 0


def test_a_turn_end_counts_from_where_the_last_prepare_left_the_chat(
    agent: GeminiAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """prepare-transcript (it writes) leaves where the chat ends; the next turn's reads (they do not)
    count the turn start's line from there, not from the first byte, and write nothing (issue 37)."""
    from entire_core import offsets

    chat = tmp_path / "session-2026-11-30T03-02-s1.jsonl"
    chat.write_bytes(jsonl(HEADER, user("u1", "first"), gemini("g1", "ok", toolCalls=[write("/r/a.txt")])))
    agent.prepare_transcript(str(chat))  # turn 1 ends
    store = agent.scratch().path("positions.json")
    assert offsets.LinePositions(store).byte_of(str(chat), 3) == chat.stat().st_size
    kept = Path(store).read_bytes(), Path(store).stat().st_mtime_ns
    with chat.open("ab") as f:
        f.write(jsonl({"$set": {"summary": "a title"}}))
    start = agent.get_transcript_position(str(chat))  # turn 2 starts
    with chat.open("ab") as f:
        f.write(jsonl(user("u2", "second"), gemini("g2", "done", toolCalls=[write("b.txt")])))
    counted: list[tuple[int, int]] = []
    after_lines = offsets._after_lines  # pyright: ignore[reportPrivateUsage]

    def spy(f: Any, begin: int, lines: int) -> int | None:
        counted.append((begin, lines))
        return after_lines(f, begin, lines)

    monkeypatch.setattr(offsets, "_after_lines", spy)
    assert agent.extract_modified_files(str(chat), start) == (["b.txt"], 6)
    assert agent.extract_prompts(str(chat), start) == ["second"]
    mark = len(jsonl(HEADER, user("u1", "first"), gemini("g1", "ok", toolCalls=[write("/r/a.txt")])))
    assert counted == [(mark, 1), (mark, 1)]  # the title's line only
    assert (Path(store).read_bytes(), Path(store).stat().st_mtime_ns) == kept
