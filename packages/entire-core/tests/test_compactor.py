"""The port of the CLI's compactor detection (``entire_core.testing.compactor``) on small inputs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from entire_core.testing import compactor


def jl(*records: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def test_detection_follows_the_cli_s_order() -> None:
    assert compactor.detect(json.dumps({"sessionId": "s", "messages": []}).encode()) == "gemini"
    assert compactor.detect(json.dumps({"info": {}, "messages": []}).encode()) == "opencode"
    assert compactor.detect(jl({"type": "session", "version": 3})) == "pi"
    assert compactor.detect(b"\n" + jl({"type": "session_meta", "payload": {}})) == "codex"
    assert compactor.detect(jl({"type": "native", "native": {"type": "session_meta"}})) == "jsonl"
    with pytest.raises(compactor.Unported):
        compactor.compact(jl({"type": "user.message", "data": {}}))


def test_generic_jsonl_merges_one_reply_and_folds_tool_results() -> None:
    data = jl(
        {"type": "native", "native": {"x": 1}},
        {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}},
        {"type": "assistant", "message": {"id": "a", "content": [{"type": "text", "text": "one"}]}},
        {"type": "native"},
        {
            "type": "assistant",
            "message": {"id": "a", "content": [{"type": "tool_use", "name": "w", "id": "t"}]},
        },
        {
            "type": "user",
            "message": {"content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]},
        },
        {"role": "user", "message": {"content": "plain"}},
    )
    assert compactor.compact(data) == [
        {"type": "user", "text": "hi", "tools": []},
        {"type": "assistant", "text": "one", "tools": ["w"]},
        {"type": "user", "text": "plain", "tools": []},
    ]
    assert [e["text"] for e in compactor.compact(data, 6)] == ["plain"]
    assert compactor.compact(data, 99) == []


def test_lines_are_counted_and_sliced_as_the_cli_does() -> None:
    assert compactor.host_line_count(b"a\n\nb\n\n\n") == 3
    assert compactor.slice_from_line(b"a\nb\nc\n", 2) == b"c\n"
    assert compactor.slice_from_line(b"a\nb\n", 5) == b""
