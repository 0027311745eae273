"""The bounded view of Qwen's chat, differentially: what the CLI reads through the view equals the analyzer
on the raw chat; the CLI's compactor finds each turn's prompt and reply; write-session gives Qwen's file back.

Each real capture is replayed turn by turn as the Entire CLI drives the plugin (parse-hook, position,
prepare, read, prompts, files, tokens, summary) while the chat grows as Qwen writes it; synthetic
sessions of many turns with large tool outputs and a rewind are re-based under a small budget.
"""

from __future__ import annotations

import base64
import copy
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from entire_agent_qwen_code import transcript
from entire_agent_qwen_code.agent import QwenCodeAgent
from entire_agent_qwen_code.view import QwenView
from entire_core import views
from entire_core.testing import compactor
from entire_core.testing.runner import InProcessRunner, Sandbox
from qwen_fixtures import CAPTURES, PROMPTS

BUDGET = 32768


class Driver:
    """The CLI's side: one sandbox, the plugin in process, a chat in Qwen's chats directory that grows."""

    def __init__(self, root: Path, session_id: str, budget: int = BUDGET) -> None:
        self.sandbox = Sandbox(root, extra_env={views.BUDGET_ENV: str(budget)})
        self.run = InProcessRunner(QwenCodeAgent, self.sandbox)
        self.agent = QwenCodeAgent(env=self.sandbox.env, cwd=str(self.sandbox.repo))
        self.session_id = session_id
        self.native = Path(self.agent.native_session_file(session_id))
        self.native.parent.mkdir(parents=True)
        self.budget = budget

    def call(self, *args: str, stdin: bytes = b"") -> Any:
        result = self.run(*args, stdin=stdin)
        assert result.code == 0, (args, result)
        return result

    def hook(self, hook: str, **fields: object) -> dict[str, Any]:
        payload = {"session_id": self.session_id, "transcript_path": str(self.native), "cwd": str(self.sandbox.repo),
                   "hook_event_name": hook, "timestamp": "2026-12-02T21:17:39.691Z", **fields}  # fmt: skip
        answer: dict[str, Any] = self.call(
            "parse-hook", "--hook", hook, stdin=json.dumps(payload).encode()
        ).json()
        return answer

    def turn(self, lines: list[bytes], prompt: str) -> dict[str, Any]:
        """One turn; the CLI's results through the view, checked against the analyzer on the native chat."""
        view = self.hook("user-prompt-submit", prompt=prompt)["session_ref"]
        assert view != str(self.native) and not view.startswith(str(self.sandbox.repo))
        start = self.call("get-transcript-position", "--path", view).json()["position"]
        native_start = len(transcript.lines_of(self.native.read_bytes())) if self.native.exists() else 0
        with self.native.open("ab") as f:
            f.write(b"".join(line + b"\n" for line in lines))
        assert self.hook("stop")["session_ref"] == view
        self.call("prepare-transcript", "--session-ref", view)
        data = self.call("read-transcript", "--session-ref", view).stdout
        assert len(data) <= self.budget and compactor.host_line_count(data) == start + len(lines)
        at = ("--offset", str(start))
        prompts = self.call("extract-prompts", "--session-ref", view, *at).json()["prompts"]
        files = self.call("extract-modified-files", "--path", view, *at).json()["files"]
        tokens = self.call("calculate-tokens", *at, stdin=data).json()
        summary = self.call("extract-summary", "--session-ref", view).json()["summary"]
        seen = {"prompts": prompts, "files": files, "tokens": tokens, "summary": summary}
        raw, native = self.native.read_bytes(), str(self.native)
        expected = {
            "prompts": self.agent.extract_prompts(native, native_start),
            "files": self.agent.extract_modified_files(native, native_start)[0],
            "tokens": self.agent.calculate_tokens(raw, native_start).to_wire(),
            "summary": self.agent.extract_summary(native),
        }
        assert seen == expected
        # The CLI's own compactor, from the turn's start: the prompt, then the replies (calls included).
        entries = compactor.compact(data, start)
        assert [e["text"] for e in entries if e["type"] == "user"] == expected["prompts"]
        replies = [e for e in entries if e["type"] == "assistant"]
        assert replies and replies[-1]["text"] == transcript.summary(transcript.scope(raw, native_start))
        return {"view": view, "data": data, "entries": entries, **seen}


def turns_of(lines: list[bytes], starts: list[int]) -> list[tuple[list[bytes], str]]:
    bounds = [*starts, len(lines)]
    return [(lines[a:b], transcript.prompt_of(json.loads(lines[a]))) for a, b in itertools.pairwise(bounds)]


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda c: c.version)
def test_real_sessions_through_the_view_equal_the_raw_chat(tmp_path: Path, capture: Any) -> None:
    lines = capture.chat.read_bytes().split(b"\n")[:-1]
    driver = Driver(tmp_path, capture.session_id, budget=1 << 20)
    results = [driver.turn(body, prompt) for body, prompt in turns_of(lines, capture.turn_starts)]
    assert [r["prompts"] for r in results] == [[p] for p in PROMPTS]
    assert any("edit" in e.get("tools", []) for r in results for e in r["entries"])
    data = Path(results[-1]["view"]).read_bytes()
    assert views.native_bytes(data, wrapped=True) == capture.chat.read_bytes()
    # write-session: Qwen's own file, byte for byte, where `qwen --resume <id>` looks
    driver.native.unlink()
    session = {"session_id": capture.session_id, "agent_name": "qwen-code", "repo_path": str(driver.sandbox.repo),
               "session_ref": results[-1]["view"], "native_data": base64.b64encode(data).decode()}  # fmt: skip
    driver.call("write-session", stdin=json.dumps(session).encode())
    assert driver.native.read_bytes() == capture.chat.read_bytes()


# -- synthetic sessions from the real records ---------------------------------------------------------------

_LINES = CAPTURES[-1].chat.read_bytes().split(b"\n")[:-1]
_T2 = CAPTURES[-1].turn_starts[1]
TURN2 = [json.loads(line) for line in _LINES[_T2 : CAPTURES[-1].turn_starts[2]]]
"""The 0.24.4 capture's second turn: a prompt, read_file, edit notes.txt, an answer (with telemetry)."""


def synthetic(k: int, parent: str | None, *, big: int = 0) -> list[dict[str, Any]]:
    """Turn 2 again as turn ``k``: fresh uuids chained from ``parent``, its own prompt, ``big`` bytes of read output."""
    out: list[dict[str, Any]] = []
    ids: dict[str, str] = {}
    for r in copy.deepcopy(TURN2):
        ids[r["uuid"]] = f"t{k}-{len(out)}"
        r["uuid"], r["parentUuid"] = ids[r["uuid"]], ids.get(r["parentUuid"], parent)
        parts = r.get("message", {}).get("parts", [])
        if r["type"] == "user" and transcript.prompt_of(r):
            parts[0]["text"] = f"turn {k}: edit notes"
        for p in parts:
            if big and p.get("functionResponse", {}).get("name") == "read_file":
                p["functionResponse"]["response"]["output"] = "x" * big
        out.append(r)
    return out


def test_many_turns_with_large_outputs_are_rebased_and_resume_with_every_prompt(tmp_path: Path) -> None:
    first = json.loads(_LINES[0])
    driver = Driver(tmp_path, first["sessionId"])
    parent = first["uuid"]
    head = [_LINES[0]]  # the session's first prompt, then turn 2's records as turn 1 (the file does not
    # exist at its TurnStart: core rebuilds the view from it at Stop, whole while under half the budget)
    rebased = False
    results: list[dict[str, Any]] = []
    for k in range(1, 13):
        turn = synthetic(k, parent, big=3000 if k > 1 else 0)
        lines = [*head, *(json.dumps(r, separators=(",", ":")).encode() for r in turn)]
        head = []
        result = driver.turn(lines, "turn 1" if k == 1 else f"turn {k}: edit notes")
        results.append(result)
        rebased |= views.MARKER_PREFIX in result["data"]
        parent = turn[-1]["uuid"]
    assert rebased and [r["prompts"] for r in results[1:]] == [
        [f"turn {k}: edit notes"] for k in range(2, 13)
    ]
    assert [r["files"] for r in results[1:]] == [["/tmp/qwen-explore/0.24.4/repo/notes.txt"]] * 11
    # The chat written back from the re-based view: its first line, then a chain Qwen walks from the
    # last record back to every prompt (the snapshot's records re-linked), the outputs cut.
    data = Path(results[-1]["view"]).read_bytes()
    restored = views.native_bytes(data, wrapped=True)
    assert restored.split(b"\n")[0] == _LINES[0] and len(restored) < driver.native.stat().st_size
    items = transcript.scope(restored, 0)
    assert transcript.prompts(items)[-11:] == [f"turn {k}: edit notes" for k in range(2, 13)]
    assert transcript.summary(items) == transcript.summary(transcript.scope(driver.native.read_bytes(), 0))


def test_a_rewind_leaves_the_dead_branch_out_of_the_view_and_its_snapshot(tmp_path: Path) -> None:
    first = json.loads(_LINES[0])
    driver = Driver(tmp_path, first["sessionId"], budget=20000)
    one = synthetic(1, first["uuid"])
    driver.turn([_LINES[0], *(json.dumps(r).encode() for r in one)], "turn 1")
    two = synthetic(2, one[-1]["uuid"], big=1500)
    driver.turn([json.dumps(r).encode() for r in two], "turn 2: edit notes")
    again = synthetic(3, one[-1]["uuid"])  # rewound to the end of turn 1: turn 2 is a dead branch
    result = driver.turn([json.dumps(r).encode() for r in again], "turn 3: edit notes")
    assert result["prompts"] == ["turn 3: edit notes"]
    snapshot = QwenView().snapshot(str(driver.native), driver.native.stat().st_size, 4096)
    texts = b"\n".join(snapshot)
    assert (
        b"turn 2: edit notes" not in texts and b"turn 3: edit notes" in texts and b"ui_telemetry" not in texts
    )
    chain = [json.loads(line) for line in snapshot]
    assert all(r["parentUuid"] == chain[i]["uuid"] for i, r in enumerate(chain[1:]))


def test_shorten_cuts_outputs_and_keeps_prompts_writes_tokens_and_answers() -> None:
    fmt = QwenView()
    for r in synthetic(1, None, big=20000):
        r.setdefault("message", {}).setdefault("parts", []).append(
            {"inlineData": {"mimeType": "image/png", "data": "A" * 9000}}
        )
        raw = json.dumps(r, separators=(",", ":")).encode()
        short = fmt.shorten(raw, 2048)
        assert short is not None and len(short) < len(raw)
        value = json.loads(short)
        assert value["uuid"] == r["uuid"] and value.get("usageMetadata") == r.get("usageMetadata")
        assert transcript.prompt_of(value) == transcript.prompt_of(r)
        assert transcript.modified_files([value]) == transcript.modified_files([r])
    assert fmt.shorten(b"not json", 10) is None and fmt.shorten(b'{"type":"x"}', 10) is None


def test_a_snapshot_over_its_limit_keeps_every_prompt_and_no_result_without_its_call(tmp_path: Path) -> None:
    first = json.loads(_LINES[0])
    chat, parent, records = tmp_path / "chat.jsonl", first["uuid"], [_LINES[0]]
    for k in range(1, 9):
        turn = synthetic(k, parent, big=2000)
        records += [json.dumps(r).encode() for r in turn]
        parent = turn[-1]["uuid"]
    chat.write_bytes(b"".join(line + b"\n" for line in records))
    snapshot = QwenView().snapshot(str(chat), chat.stat().st_size, 6000)
    kept = [json.loads(line) for line in snapshot]
    assert kept[0] == first and sum(len(line) for line in snapshot) < chat.stat().st_size // 3
    assert [transcript.prompt_of(r) for r in kept[1:] if transcript.prompt_of(r)] == [
        f"turn {k}: edit notes" for k in range(1, 9)
    ]
    calls = {c["id"] for c in transcript.calls(kept)}
    results = [r["toolCallResult"]["callId"] for r in kept if r["type"] == "tool_result"]
    assert set(results) <= calls and kept[-1]["uuid"] == parent
    (tmp_path / "empty").touch()
    assert QwenView().snapshot(str(tmp_path / "empty"), 0, 6000) == []


def test_a_compression_record_and_tool_displays_are_cut_and_a_record_without_usage_has_its_id() -> None:
    history = [{"role": "user", "parts": [{"text": "the first prompt " * 50}]},
               {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "read_file", "response": {"output": "y" * 9000}}}]}]  # fmt: skip
    record = {"uuid": "s1", "parentUuid": "p", "type": "system", "subtype": "chat_compression",
              "systemPayload": {"compressedHistory": history, "info": {"newTokenCount": 5}},
              "toolCallResult": {"callId": "c1", "status": "success", "resultDisplay": "z" * 9000}}  # fmt: skip
    raw = json.dumps(record).encode()
    short = QwenView().shorten(raw, 2048)
    assert short is not None and len(short) < 2048 + 1024
    value = json.loads(short)
    assert value["systemPayload"]["compressedHistory"][0] == history[0]
    assert value["toolCallResult"]["callId"] == "c1" and "y" * 9000 not in short.decode()
    assert QwenView().message_extra({"uuid": "a1"}) == {"id": "a1"}
    assert QwenView().record({"type": "system"}) is None
