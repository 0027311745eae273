"""Core's scripted OpenAI API (``entire_core.testing.openai_api``), on 127.0.0.1: what an agent reads of it."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from entire_core.testing import openai_api


def script(body: dict[str, Any], workdir: str, prompt: str, results: int) -> openai_api.Move:
    return openai_api.call("editor", path=f"{workdir}/a.txt") if results == 0 else f"done: {prompt}"


def _post(port: int, body: dict[str, Any]) -> bytes:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})  # fmt: skip
    with urllib.request.urlopen(request, timeout=10) as answer:
        return answer.read()


def test_a_tool_call_streamed_then_a_text_answer_whole_each_with_its_usage(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    server = openai_api.serve(0, "/w", str(log), script, model="m")
    port = server.server_address[1]
    try:
        prompt = [{"role": "user", "content": [{"type": "text", "text": "<system-reminder>x</system-reminder>"},
                                               {"type": "text", "text": "Write A"}]}]  # fmt: skip
        tools = [{"type": "function", "function": {"name": "editor"}}]
        streamed = _post(port, {"stream": True, "messages": prompt, "tools": tools}).decode()
        chunks = [json.loads(line[6:]) for line in streamed.splitlines() if line.startswith("data: {")]
        call = chunks[0]["choices"][0]["delta"]["tool_calls"][0]["function"]
        assert (call["name"], json.loads(call["arguments"])) == ("editor", {"path": "/w/a.txt"})
        assert chunks[-1]["usage"] == openai_api.USAGE and streamed.endswith("data: [DONE]\n\n")
        answered = [*prompt, {"role": "assistant", "content": None}, {"role": "tool", "content": "ok"}]
        whole = json.loads(_post(port, {"model": "asked", "messages": answered}))
        assert whole["choices"][0]["message"]["content"] == "done: write a"
        assert (whole["model"], whole["usage"]) == ("asked", openai_api.REASONED)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=10) as listed:
            assert json.loads(listed.read())["data"][0]["id"] == "m"
    finally:
        server.shutdown()
        server.server_close()
    logged = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["n"], r["prompt"], r["results"], r["tools"]) for r in logged] == [
        (1, "write a", 0, ["editor"]), (2, "write a", 1, [])]  # fmt: skip
