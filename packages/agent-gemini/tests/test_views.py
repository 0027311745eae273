"""The bounded view, differentially: what the CLI gets through the view equals today's analyzer on the raw chat.

Every session is replayed turn by turn as the Entire CLI drives the plugin (parse-hook, positions,
prepare, read, prompts, files, tokens, summary) with a 64 KiB view budget, while the chat file grows
as Gemini writes it. The oracle is ``transcript`` on the raw native file at the same moment. Sessions:
the bundled real captures, and synthetic ones built from their records (many turns, several resumes
with ``$set.messages`` checkpoints, a 20 MB tool output, inline images).
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from entire_agent_google_gemini import transcript
from entire_agent_google_gemini.agent import GeminiAgent
from entire_agent_google_gemini.view import GeminiView, replay_messages
from entire_core import views
from entire_core.paths import repo_files
from entire_core.testing.runner import InProcessRunner, Result, Sandbox
from gemini_fixtures import RUN1_CHAT, RUN3_FINAL_MAIN, RUN3_RESUMED_CHAT

BUDGET = 65536
SHARED = Path(__file__).resolve().parents[4] / "shared" / "fixtures" / "gemini"
"""The team's captures, beside the checkout (``../shared``) here and in CI."""


class Driver:
    """The CLI's side: one sandbox, the plugin in process, a native chat that grows."""

    def __init__(self, root: Path, session_id: str, name: str = "") -> None:
        self.sandbox = Sandbox(root, extra_env={"ENTIRE_VIEW_BUDGET": str(BUDGET)})
        self.run = InProcessRunner(GeminiAgent, self.sandbox)
        self.session_id = session_id
        chats = self.sandbox.home / ".gemini/tmp/repo/chats"
        chats.mkdir(parents=True)
        self.native = chats / (name or f"session-2026-11-30T03-02-{session_id[:8]}.jsonl")
        self.native.touch()
        self.reads: list[int] = []
        self.rebased = False
        self.lines_are_positions = True
        """A view position is the native line number, until the chat is restored from a re-based view."""

    def call(self, *args: str, stdin: bytes = b"") -> Result:
        result = self.run(*args, stdin=stdin)
        assert result.code == 0, result
        return result

    def hook(self, hook: str, **fields: object) -> dict[str, Any]:
        payload = {"session_id": self.session_id, "transcript_path": str(self.native), "cwd": str(self.sandbox.repo),
                   "hook_event_name": hook, "timestamp": "2026-11-30T03:02:23.666Z", **fields}  # fmt: skip
        event: dict[str, Any] = self.call(
            "parse-hook", "--hook", hook, stdin=json.dumps(payload).encode()
        ).json()
        return event

    def append(self, lines: list[bytes]) -> None:
        with self.native.open("ab") as f:
            f.write(b"".join(line + b"\n" for line in lines))

    def turn(
        self, before: list[bytes], lines: list[bytes], prompt: str, *, start: str = ""
    ) -> dict[str, Any]:
        """One turn as Gemini runs it; the CLI's results through the view and the oracle's on the native file."""
        self.append(before)
        if start:
            self.hook("session-start", source=start)
        view = self.hook("before-agent", prompt=prompt)["session_ref"]  # may put a deleted chat back
        native_start = transcript.parse(self.native.read_bytes()).position
        assert not view.startswith(str(self.sandbox.repo)) and view != str(self.native)
        position = self.call("get-transcript-position", "--path", view).json()["position"]
        assert position == native_start or not self.lines_are_positions
        self.append(lines)
        assert self.hook("after-agent", prompt=prompt)["session_ref"] == view
        self.call("prepare-transcript", "--session-ref", view)
        data = self.call("read-transcript", "--session-ref", view).stdout
        self.reads.append(len(data))
        self.rebased |= views.MARKER_PREFIX in data
        # One wrapped line per chat line, each carrying its record: the chat comes back out of the view.
        assert views.host_lines(data) == position + len(lines) or not self.lines_are_positions
        offset = str(position)
        seen = {
            "prompts": self.call("extract-prompts", "--session-ref", view, "--offset", offset).json()[
                "prompts"
            ],
            "files": self.call("extract-modified-files", "--path", view, "--offset", offset).json()["files"],
            "tokens": self.call("calculate-tokens", "--offset", offset, stdin=data).json(),
            "summary": self.call("extract-summary", "--session-ref", view).json()["summary"],
        }
        chat = transcript.parse(self.native.read_bytes())
        messages = chat.messages(native_start)
        usage = transcript.usage(messages).to_wire()
        expected = {
            "prompts": transcript.prompts(messages),
            "files": repo_files(transcript.modified_files(messages), str(self.sandbox.repo)),
            "tokens": usage,
            "summary": transcript.summary(chat.messages()),
        }
        assert seen == expected
        assert max(self.reads) <= BUDGET
        return {"view": view, "data": data, **seen}


def records(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def _is_prompt_line(line: bytes) -> bool:
    message = transcript.decode(line)
    return isinstance(message, dict) and bool(transcript.prompt_of(message))  # pyright: ignore[reportUnknownArgumentType]


def _is_start_line(line: bytes) -> bool:
    """A line a (re)start writes before the turn: a header, a session id, a checkpoint."""
    value = transcript.decode(line)
    if not isinstance(value, dict):
        return False
    record: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
    update = record.get("$set")
    return "projectHash" in record or (
        isinstance(update, dict) and ("messages" in update or "sessionId" in update)
    )


def split_turns(lines: list[bytes]) -> tuple[list[bytes], list[tuple[list[bytes], list[bytes]]]]:
    """A captured chat as (what comes before the first turn, [(a restart's lines, the turn's lines)])."""
    prompts = [i for i, line in enumerate(lines) if _is_prompt_line(line)]
    turns: list[tuple[list[bytes], list[bytes]]] = []
    before: list[bytes] = []
    for k, at in enumerate(prompts):
        body = lines[at : prompts[k + 1] if k + 1 < len(prompts) else len(lines)]
        cut = len(body)
        while k + 1 < len(prompts) and cut > 1 and _is_start_line(body[cut - 1]):
            cut -= 1
        turns.append((before, body[:cut]))
        before = body[cut:]
    return lines[: prompts[0]], turns


def replay_session(driver: Driver, lines: list[bytes]) -> list[dict[str, Any]]:
    head, turns = split_turns(lines)
    driver.append(head)
    results: list[dict[str, Any]] = []
    for k, (before, body) in enumerate(turns):
        message: dict[str, Any] = json.loads(body[0])
        prompt = transcript.prompt_of(message)
        start = "startup" if k == 0 else ("resume" if before else "")
        results.append(driver.turn(before, body, prompt, start=start))
    return results


# -- the real captures -------------------------------------------------------------------------------------


def captured_chats() -> list[Path]:
    chats = [RUN1_CHAT, RUN3_RESUMED_CHAT, RUN3_FINAL_MAIN]
    if SHARED.is_dir():
        chats += sorted(p for p in SHARED.glob("*/final.gemini-tmp/*/chats/session-*.jsonl"))
    return chats


@pytest.mark.parametrize(
    "chat", captured_chats(), ids=lambda p: f"{p.parent.parent.parent.parent.name}/{p.name}"
)
def test_real_sessions_through_the_view_equal_the_raw_chat(tmp_path: Path, chat: Path) -> None:
    lines = records(chat)
    session_id = json.loads(lines[0])["sessionId"]
    driver = Driver(tmp_path, session_id, chat.name)
    results = replay_session(driver, lines)
    assert results and all(r["prompts"] for r in results)
    # small sessions: the view wraps the chat line for line, and gives it back byte for byte
    data = Path(results[-1]["view"]).read_bytes()
    assert views.native_bytes(data, wrapped=True) == chat.read_bytes()
    assert views.host_lines(data) == len(lines) and views.head_lines_of(data) == 0


# -- synthetic sessions from real records -------------------------------------------------------------------

_RUN3 = records(RUN3_RESUMED_CHAT)
HEADER, CONTEXT, USER, SET, GEMINI_THINKING, GEMINI_WRITE, TOOL_RESULT, GEMINI_TEXT, GEMINI_REPLACE = (
    json.loads(_RUN3[i]) for i in (0, 1, 2, 3, 4, 6, 7, 9, 17)
)
SESSION = HEADER["sessionId"]


def dump(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def synthetic_turn(k: int, repo: Path, *, big: int = 0, image: int = 0) -> tuple[str, list[bytes]]:
    """Turn ``k`` from real records: a prompt, a write_file (or replace) call, its result and an answer."""
    prompt = f"Turn {k}: write f{k}.txt" + " with care" * (k % 7)
    user = copy.deepcopy(USER) | {"id": f"user-{k}", "content": [{"text": prompt}]}
    if image:
        user["content"].append({"inlineData": {"mimeType": "image/png", "data": "iVBORw0K" * (image // 8)}})
    tokens = {
        "input": 200 + k,
        "output": 20 + k % 5,
        "cached": 64 * (k % 3),
        "thoughts": k % 4,
        "tool": 0,
        "total": 0,
    }
    thinking = copy.deepcopy(GEMINI_THINKING) | {"id": f"gemini-{k}", "tokens": tokens}
    model = copy.deepcopy(GEMINI_REPLACE if k % 4 == 3 else GEMINI_WRITE) | {
        "id": f"gemini-{k}",
        "tokens": tokens,
    }
    call = model["toolCalls"][0]
    target = str(repo / f"f{k}.txt")
    call["args"]["file_path"] = target
    call["resultDisplay"]["filePath"] = target
    if "content" in call["args"]:
        call["args"]["content"] = f"content of turn {k}\n" * 50
    result = copy.deepcopy(TOOL_RESULT) | {"id": f"result-{k}"}
    if big:
        output = "".join(f"line {i} of a very long build log\n" for i in range(big // 32))
        shell = {"id": f"run_shell_command_{k}", "name": "run_shell_command", "args": {"command": "make"},
                 "result": [{"functionResponse": {"id": f"run_shell_command_{k}", "name": "run_shell_command",
                                                  "response": {"output": output}}}],
                 "status": "success", "resultDisplay": output}  # fmt: skip
        model["toolCalls"].append(shell)
        result["content"].append(copy.deepcopy(shell["result"][0]))
    if image:
        result["content"].append({"inlineData": {"mimeType": "image/png", "data": "iVBORw0K" * (image // 8)}})
    answer = copy.deepcopy(GEMINI_TEXT) | {"id": f"answer-{k}", "content": f"Done with turn {k}.",
                                           "tokens": tokens | {"input": 300 + k}}  # fmt: skip
    lines = [dump(user), dump(SET), dump(thinking), dump(SET), dump(model), dump(result), dump(SET), dump(answer),
             dump(SET)]  # fmt: skip
    return prompt, lines


def effective_history(path: Path) -> list[dict[str, Any]]:
    """What Gemini's loadConversationRecord keeps (for a resume's checkpoint), without shortening."""
    messages, _ = replay_messages(iter(path.read_bytes().splitlines()), 1 << 40)
    return messages


def resume_lines(path: Path) -> list[bytes]:
    """What a same-minute resume appends (Gemini 0.61's order): the header again, a context-only
    checkpoint, the session id and a checkpoint restating the history."""
    return [
        dump(HEADER),
        dump(CONTEXT),
        dump({"$set": {"sessionId": SESSION}}),
        dump({"$set": {"messages": effective_history(path)}}),
    ]


def run_synthetic(driver: Driver, plan: list[dict[str, int]]) -> list[dict[str, Any]]:
    driver.append([dump(HEADER), dump(CONTEXT)])
    results: list[dict[str, Any]] = []
    for k, step in enumerate(plan):
        prompt, lines = synthetic_turn(
            k, driver.sandbox.repo, big=step.get("big", 0), image=step.get("image", 0)
        )
        resumed = bool(step.get("resume"))
        before = resume_lines(driver.native) if resumed else []
        start = "startup" if k == 0 else ("resume" if resumed else "")
        results.append(driver.turn(before, lines, prompt, start=start))
    return results


def test_many_turns_and_resumes_stay_within_the_budget(tmp_path: Path) -> None:
    driver = Driver(tmp_path, SESSION)
    plan = [{"resume": int(k % 9 == 8)} for k in range(60)]
    results = run_synthetic(driver, plan)
    assert driver.rebased and len(driver.native.read_bytes()) > 4 * BUDGET
    assert [r["prompts"] for r in results] == [[f"Turn {k}: write f{k}.txt" + " with care" * (k % 7)]
                                               for k in range(60)]  # fmt: skip
    assert [r["files"] for r in results] == [[f"f{k}.txt"] for k in range(60)]
    # the view is a Gemini chat whose checkpoint still holds the conversation's thread
    view = Path(results[-1]["view"])
    messages, _ = replay_messages(views.native_lines(view.read_bytes().splitlines(), wrapped=True), 1 << 40)
    prompts = [transcript.prompt_of(m) for m in messages]
    assert "Turn 59: write f59.txt" + " with care" * 3 in prompts and sum(1 for p in prompts if p) > 10


def test_a_20_mb_tool_output_and_inline_images(tmp_path: Path) -> None:
    driver = Driver(tmp_path, SESSION)
    plan = [
        {},
        {"image": 200_000},
        {},
        {"big": 20 << 20},
        {"resume": 1},
        {"image": 50_000, "big": 100_000},
        {},
    ]
    results = run_synthetic(driver, plan)
    assert driver.native.stat().st_size > 40 << 20
    assert max(driver.reads) <= BUDGET
    big = results[3]["data"]
    assert b"bytes cut here to keep the transcript within the Entire CLI's 10 MiB limit" in big
    assert b"(inline image/png)" not in big  # images of turn 1 were re-based away or cut
    assert [r["files"] for r in results] == [[f"f{k}.txt"] for k in range(7)]


def test_write_session_from_a_rebased_view_resumes_with_the_history(tmp_path: Path) -> None:
    """entire resume: the stored view goes back where Gemini looks, and later turns go on from it."""
    driver = Driver(tmp_path, SESSION)
    results = run_synthetic(driver, [{} for _ in range(30)])
    stored = results[-1]["data"]
    assert views.head_lines_of(stored) > 2
    driver.native.unlink()  # Gemini's clean-up, or another machine
    views_dir = driver.call("get-session-dir", "--repo-path", str(driver.sandbox.repo)).json()["session_dir"]
    ref = driver.call("resolve-session-file", "--session-dir", views_dir, "--session-id", SESSION).json()[
        "session_file"
    ]
    assert ref == results[-1]["view"]
    import base64

    session = {"session_id": SESSION, "agent_name": "google-gemini", "repo_path": str(driver.sandbox.repo),
               "session_ref": ref, "native_data": base64.b64encode(stored).decode()}  # fmt: skip
    driver.call("write-session", stdin=json.dumps(session).encode())
    [restored] = sorted(driver.native.parent.glob(f"session-*-{SESSION[:8]}*.jsonl"))
    # Gemini's own chat comes back (the header's padding and marker dropped, each record unwrapped).
    assert (
        restored.read_bytes() == views.native_bytes(stored, wrapped=True) and stored == Path(ref).read_bytes()
    )
    assert (
        restored.read_bytes().startswith(b'{"sessionId"') and b'"type":"native"' not in restored.read_bytes()
    )
    # what `gemini --resume` loads: every prompt of the session's thread still there
    prompts = [transcript.prompt_of(m) for m in effective_history(restored)]
    assert "Turn 0: write f0.txt" in prompts and "Turn 29: write f29.txt with care" in prompts
    driver.native = restored
    driver.lines_are_positions = False
    later = [driver.turn(resume_lines(restored) if k == 0 else [], synthetic_turn(30 + k, driver.sandbox.repo)[1],
                         synthetic_turn(30 + k, driver.sandbox.repo)[0], start="resume" if k == 0 else "")
             for k in range(3)]  # fmt: skip
    assert [r["files"] for r in later] == [["f30.txt"], ["f31.txt"], ["f32.txt"]]


def test_a_chat_gemini_deleted_or_recreated_headless_is_put_back_from_the_view(tmp_path: Path) -> None:
    """Pitfall 3: start-up clean-up deletes the running session's chat; appendFileSync recreates it headless."""
    driver = Driver(tmp_path, SESSION)
    results = run_synthetic(driver, [{} for _ in range(20)])
    view = Path(results[-1]["view"])
    header = views.unwrap(view.read_bytes().splitlines()[0])
    assert header is not None and header.startswith(b'{"sessionId"')
    # deleted between turns: the next TurnStart puts the chat back from the view, Gemini appends to it
    driver.native.unlink()
    driver.lines_are_positions = False
    prompt, lines = synthetic_turn(20, driver.sandbox.repo)
    result = driver.turn([], lines, prompt)
    assert result["files"] == ["f20.txt"] and result["prompts"] == [prompt]
    assert driver.native.read_bytes().startswith(header + b"\n")
    # deleted mid-turn: Gemini recreates the file with only the lines written since, no header
    prompt, lines = synthetic_turn(21, driver.sandbox.repo)
    assert driver.hook("before-agent", prompt=prompt)["session_ref"] == str(view)
    position = driver.call("get-transcript-position", "--path", str(view)).json()["position"]
    driver.native.unlink()
    driver.append(lines)
    assert not driver.native.read_bytes().startswith(header)
    assert driver.hook("after-agent", prompt=prompt)["session_ref"] == str(view)
    driver.call("prepare-transcript", "--session-ref", str(view))
    data = driver.call("read-transcript", "--session-ref", str(view)).stdout
    assert views.unwrap(data.split(b"\n")[0]) == header and len(data) <= BUDGET
    native = driver.native.read_bytes()
    assert native.startswith(header + b"\n") and native.endswith(lines[-1] + b"\n")
    offset = str(position)
    assert driver.call("extract-prompts", "--session-ref", str(view), "--offset", offset).json()[
        "prompts"
    ] == [prompt]
    files = driver.call("extract-modified-files", "--path", str(view), "--offset", offset).json()["files"]
    assert files == ["f21.txt"]
    # and the next turn goes on incrementally from the chat put back
    prompt, lines = synthetic_turn(22, driver.sandbox.repo)
    assert driver.turn([], lines, prompt)["files"] == ["f22.txt"]


def test_legacy_json_chats_are_not_viewed(tmp_path: Path) -> None:
    from gemini_fixtures import LEGACY_CHAT

    assert not GeminiView().accepts(str(LEGACY_CHAT))
    assert GeminiView().accepts(str(RUN1_CHAT)) and GeminiView().accepts(str(tmp_path / "not-yet.jsonl"))
    driver = Driver(tmp_path, "abcd1234-0000-4000-8000-000000000000", LEGACY_CHAT.name)
    driver.native.write_bytes(LEGACY_CHAT.read_bytes())
    # A legacy chat is mirrored whole (its positions are Gemini's message counts), in the views
    # directory, so that the CLI can restore it there.
    ref = driver.hook("after-agent")["session_ref"]
    assert ref != str(driver.native) and Path(ref).read_bytes() == LEGACY_CHAT.read_bytes()


def test_shorten_keeps_prompts_file_writes_tokens_and_answers() -> None:
    fmt = GeminiView()
    huge = "z" * 100_000
    user = dump({"id": "u", "type": "user", "content": [{"text": huge}]})
    assert fmt.shorten(user, 4096) is None
    write = copy.deepcopy(GEMINI_WRITE)
    write["toolCalls"][0]["args"]["content"] = huge
    write["toolCalls"][0]["result"][0]["functionResponse"]["response"]["output"] = huge
    write["thoughts"][0]["description"] = huge
    short = fmt.shorten(dump(write), 4096)
    assert short is not None
    value = json.loads(short)
    assert value["toolCalls"][0]["args"]["content"] == huge and value["tokens"] == write["tokens"]
    assert len(value["toolCalls"][0]["result"][0]["functionResponse"]["response"]["output"]) < 2000
    assert len(value["thoughts"][0]["description"]) < 2000
    answer = copy.deepcopy(GEMINI_TEXT) | {"content": [{"text": huge, "thought": True}, {"text": huge}]}
    value = json.loads(fmt.shorten(dump(answer), 4096) or b"{}")
    assert value["content"][1]["text"] == huge and len(value["content"][0]["text"]) < 2000
    image = {"id": "i", "type": "user", "content": [{"text": "look"}, {"inlineData": {"mimeType": "image/png",
                                                                                    "data": "A" * 50_000}}]}  # fmt: skip
    value = json.loads(fmt.shorten(dump(image), 4096) or b"{}")
    assert (
        value["content"][0] == {"text": "look"}
        and value["content"][1]["inlineData"]["mimeType"] == "text/plain"
    )
    assert fmt.shorten(dump(HEADER), 10) is None and fmt.shorten(b'{"$rewindTo":"x"}', 1) is None


def test_snapshot_replays_rewinds_and_checkpoints(tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    lines = [dump(HEADER), dump(CONTEXT)]
    for k in range(3):
        lines += synthetic_turn(k, tmp_path)[1]
    lines.append(dump({"$rewindTo": "user-2"}))
    chat.write_bytes(b"".join(line + b"\n" for line in lines))
    header = GeminiView().snapshot(str(chat), os.path.getsize(chat), 1 << 20)
    assert header[0] == lines[0] and b"entireView" in header[1]
    messages = json.loads(header[1])["$set"]["messages"]
    assert [m["id"] for m in messages] == [CONTEXT["$set"]["messages"][0]["id"], "user-0", "gemini-0", "result-0",
                                           "answer-0", "user-1", "gemini-1", "result-1", "answer-1"]  # fmt: skip
    small = GeminiView().snapshot(str(chat), os.path.getsize(chat), 4096)
    assert len(small[1]) < 4096 + 1024
    kept = [transcript.prompt_of(m) for m in json.loads(small[1])["$set"]["messages"]]
    assert "Turn 0: write f0.txt" in kept and "Turn 1: write f1.txt with care" in kept
    assert not any(p.startswith("Turn 2") for p in kept)  # rewound
