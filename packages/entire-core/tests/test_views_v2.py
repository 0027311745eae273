"""Views v2: line numbering kept across re-bases, the CLI's stored start respected, wrapped records that
carry the native bytes losslessly, and views written by v1 rebuilt on first touch.

Driven as the CLI drives a plugin (the dispatcher with the viewed sample agent), or through
``entire_core.views`` with a small wrapped format where the wrapping itself is the point.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from entire_core import views
from entire_core.testing import host
from entire_core.types import EventType
from entire_core.views import legacy

from .test_views import SESSION, Session, _env, _lines, _turn


def _host_state(env: Any, view: str, start: int) -> None:
    """The state file the CLI keeps for the session after a commit: its stored line count."""
    host.session_state(env.repo, SESSION, transcript_path=view, checkpoint_transcript_start=start)


def test_a_re_base_keeps_every_line_where_the_cli_counted_it(tmp_path: Path) -> None:
    env = _env(tmp_path, budget=8192)
    session = Session(env)
    seen: dict[int, bytes] = {}
    for n in range(1, 30):
        turn = session.turn(_turn(n, pad=700))
        lines = turn["data"].split(b"\n")
        body = views.frame_of(turn["data"]).body
        for number, line in seen.items():
            if number >= body:
                assert lines[number] == line, "a line the CLI counted moved"
        seen.update({i: lines[i] for i in range(max(body, 1), len(lines) - 1)})
        assert views.host_lines(turn["data"]) == 1 + 3 * n
    assert views.frame_of(turn["data"]).body > 3  # re-based, more than once


def test_a_re_base_never_cuts_below_the_start_the_cli_stored(tmp_path: Path) -> None:
    env = _env(tmp_path, budget=8192)
    session = Session(env)
    session.turn(_turn(1, pad=700))
    stored = views.host_lines(Path(session.ref).read_bytes())  # the CLI's count after a commit
    _host_state(env, session.ref, stored)
    rebased = 0
    for n in range(2, 10):  # under the budget from there on: nothing after the stored start is cut
        turn = session.turn(_turn(n, pad=700))
        assert views.frame_of(turn["data"]).body <= stored
        lines = turn["data"].split(b"\n")
        assert json.loads(lines[stored]) == {"type": "user", "text": "prompt 2"}
        rebased += views.frame_of(turn["data"]).body == stored
    assert rebased == 4  # turns 6 to 9, past half the budget: re-based at each TurnStart, at the stored start
    # Once what follows the stored start no longer fits the budget, the view is bounded anyway.
    for n in range(10, 20):
        turn = session.turn(_turn(n, pad=700))
        assert len(turn["data"]) <= 8192
    assert views.frame_of(turn["data"]).body > stored
    # A state file about another transcript is not this view's.
    _host_state(env, str(tmp_path / "other.jsonl"), 0)
    assert session.turn(_turn(20, pad=700))["prompts"] == ["prompt 20"]


def test_a_v1_view_is_rebuilt_on_first_touch_keeping_the_turn_in_progress(tmp_path: Path) -> None:
    env = _env(tmp_path)
    session = Session(env)
    session.turn(_turn(1))
    # The view as v1 left it, mid-turn: byte positions, a turn mark at the prompt's byte.
    with session.native.open("ab") as f:
        f.write(_lines(_turn(2)[:1]))
    data = session.native.read_bytes()
    view, meta_path = Path(session.ref), Path(session.ref).parent / ".meta" / f"{SESSION}.json"
    view.write_bytes(data)
    turn_byte = data.index(b'{"type": "user", "text": "prompt 2"}')
    st = view.stat()
    meta_path.write_text(json.dumps({
        "v": 1, "native": str(session.native), "native_start": 0, "native_end": len(data),
        "native_id": [0, 0], "native_mark": "", "follow": True, "turn": turn_byte,
        "base": 0, "head_bytes": 0, "head_units": 0, "view_id": [st.st_dev, st.st_ino],
        "view_size": len(data), "view_units": len(data)}))  # fmt: skip
    with session.native.open("ab") as f:
        f.write(_lines(_turn(2)[1:]))
    session.hook("stop")
    # The CLI's offsets for this turn were v1 bytes: past the view's end, they resume at the turn.
    prompts = env.call("extract-prompts", "--session-ref", session.ref, "--offset", str(turn_byte))
    assert prompts["prompts"] == ["prompt 2"]
    files = env.call("extract-modified-files", "--path", session.ref, "--offset", str(turn_byte))
    assert files["files"] == ["f2.txt"] and files["current_position"] == 7
    stored = env.raw("read-transcript", "--session-ref", session.ref).stdout
    assert stored == session.native.read_bytes()
    assert json.loads(meta_path.read_bytes())["v"] == 2
    # Positions handed out from now on are lines, and the next turn is read from its own.
    assert session.turn(_turn(3))["prompts"] == ["prompt 3"]


def _v1(tmp_path: Path, native: list[bytes], view: list[bytes], turn: int) -> tuple[str, dict[str, Any], str]:
    """A v1 view of ``native`` (its lines as v1 left them: records after the turn may be shortened),
    its metadata with the turn in progress at the view's byte ``turn``, and the native file's path."""
    native_path, view_path = tmp_path / "native.jsonl", tmp_path / "view.jsonl"
    native_path.write_bytes(b"".join(line + b"\n" for line in native))
    view_path.write_bytes(b"".join(line + b"\n" for line in view))
    meta = {"v": 1, "native": str(native_path), "native_start": 0, "follow": True,
            "native_end": native_path.stat().st_size, "turn": turn, "view_size": view_path.stat().st_size}  # fmt: skip
    return str(view_path), meta, str(native_path)


FIRST_V1, AGAIN, REPLY = b'{"session":"v1"}', b'{"type":"user","text":"again"}', b'{"type":"assistant"}'
LONG_REPLY = b'{"type":"assistant","text":"' + b"x" * 500 + b'"}'


def test_a_v1_turn_resumes_at_the_last_line_holding_its_prompt(tmp_path: Path) -> None:
    """The turn a v1 view had in progress starts at the native line its view line (at the turn's byte) is:
    the last such line (the same prompt typed twice), however v1 shortened the records after it."""
    native = [FIRST_V1, AGAIN, REPLY, AGAIN, LONG_REPLY]
    view = [FIRST_V1, AGAIN, REPLY, AGAIN, REPLY]
    turn = sum(len(line) + 1 for line in view[:3])
    view_path, v1, native_path = _v1(tmp_path, native, view, turn)
    expected = sum(len(line) + 1 for line in native[:3])
    assert legacy.resume_at(view_path, v1, native_path, 0) == expected


def test_a_v1_turn_whose_line_changed_keeps_its_distance_from_the_end(tmp_path: Path) -> None:
    """When the native file no longer holds the turn's line (it was rewritten), the turn is as far
    before the end of what v1 had read as it was before the view's end, at the start of that line."""
    native = [FIRST_V1, REPLY, b'{"type":"user","text":"AGAIN"}', REPLY, REPLY]
    view = [FIRST_V1, REPLY, AGAIN, REPLY, REPLY]
    turn = sum(len(line) + 1 for line in view[:2])
    view_path, v1, native_path = _v1(tmp_path, native, view, turn)
    assert legacy.resume_at(view_path, v1, native_path, 0) == turn
    # A distance that falls inside a line: the start of that line.
    v1["view_size"] -= 10
    assert legacy.resume_at(view_path, v1, native_path, 0) == turn


def test_a_v1_view_without_a_turn_of_this_file_in_progress_resumes_nowhere(tmp_path: Path) -> None:
    """-1 (none) for metadata with no turn, a turn that is no number, a turn of another native file or
    of a mirror; a turn at the view's first byte (the view was empty when it started) is a turn."""
    view_path, v1, native_path = _v1(tmp_path, [FIRST_V1, AGAIN, REPLY], [FIRST_V1, AGAIN, REPLY], 0)
    assert legacy.resume_at(view_path, v1, native_path, 0) == 0
    for change in ({"turn": None}, {"turn": "0"}, {"turn": -1}, {"native": native_path + ".old"},
                   {"mirror": True}):  # fmt: skip
        assert legacy.resume_at(view_path, {**v1, **change}, native_path, 0) == -1, change
    del v1["turn"]
    assert legacy.resume_at(view_path, v1, native_path, 0) == -1


class Wrapped(views.ViewFormat):
    """A generic wrapping: ``{"who": "me"|"it", "say": ...}`` records become user and assistant turns."""

    wrap = True

    def record(self, value: Any) -> tuple[str, list[dict[str, Any]], str | None] | None:
        if not isinstance(value, dict):
            return None
        kind = {"me": "user", "it": "assistant"}.get(str(value.get("who")), "native")
        return kind, [{"type": "text", "text": str(value.get("say", ""))}], value.get("at")

    def snapshot(self, path: str, end: int, limit: int) -> list[bytes]:
        with open(path, "rb") as f:
            data = f.read(end)
        first, *rest = data.split(b"\n")[:-1]
        said = [json.loads(line).get("say") for line in rest if line.startswith(b'{"who"')]
        return [first, json.dumps({"restated": said[-3:]}).encode()]

    def shorten(self, record: bytes, limit: int) -> bytes | None:
        return None


class Owner:
    name = "wrapped"
    session_file_suffix = ".jsonl"

    def __init__(self, root: Path, budget: int = 0) -> None:
        self.env = {"HOME": str(root / "home"), "XDG_STATE_HOME": str(root / "state")}
        if budget:
            self.env[views.BUDGET_ENV] = str(budget)
        self.repo_root = str(root / "repo")
        self.fmt = Wrapped()

    def view_format(self) -> views.ViewFormat:
        return self.fmt

    def token_counts(self, transcript: bytes, offset: int) -> None:
        return None  # counts no tokens


ODD = [
    b'{"session":"w-1"}',
    b'{"who":"me","say":"hello","at":"2026-01-01T00:00:00Z"}',
    b'{"who": "it", "say": "spaced"}',  # JSON that does not re-serialise to the same bytes
    b"",  # an empty line
    b"not json at all",
    b"\xff\xfe not utf-8",
    b'{"who":"it","say":"crlf"}\r',
    b'{"who":"it","say":"\xc3\xa9t\xc3\xa9 \\u2028","n":1.5e300}',
    b"[1,2,3]",
]


def test_wrapped_lines_carry_the_native_bytes_and_the_compactor_s_shape(tmp_path: Path) -> None:
    owner = Owner(tmp_path)
    native = tmp_path / "native.jsonl"
    native.write_bytes(b"\n".join(ODD) + b"\n")
    path = views.attach(owner, "w-1", str(native), EventType.TURN_END)  # pyright: ignore[reportArgumentType]
    data = Path(path).read_bytes()
    lines = data.split(b"\n")[:-1]
    assert len(lines) == len(ODD) == views.host_lines(data)  # one view line per native line, none blank
    assert all(line.strip() for line in lines)
    assert [views.unwrap(line) for line in lines] == ODD
    assert views.native_bytes(data, wrapped=True) == native.read_bytes()
    records = [json.loads(line) for line in lines]
    assert [r["type"] for r in records] == ["native", "user", "assistant", "native", "native", "native",
                                            "assistant", "assistant", "native"]  # fmt: skip
    assert records[1]["message"] == {"role": "user", "content": [{"type": "text", "text": "hello"}]}
    assert records[1]["timestamp"] == "2026-01-01T00:00:00Z" and records[1]["native"]["say"] == "hello"
    assert "native_text" in records[2] and "native_b64" in records[5] and "native_text" in records[6]


def test_a_wrapped_view_re_bases_with_native_snapshot_records_and_keeps_its_lines(tmp_path: Path) -> None:
    owner = Owner(tmp_path, budget=4096)
    native = tmp_path / "native.jsonl"
    native.write_bytes(b'{"session":"w-1"}\n')
    for n in range(40):
        with native.open("ab") as f:
            f.write(json.dumps({"who": "me", "say": f"p{n}"}).encode() + b"\n")
            f.write(json.dumps({"who": "it", "say": "x" * 150}).encode() + b"\n")
        path = views.attach(owner, "w-1", str(native), EventType.TURN_START)  # pyright: ignore[reportArgumentType]
    data = Path(path).read_bytes()
    lines = data.split(b"\n")[:-1]
    body = views.head_lines_of(data)
    assert body > 2 and len(lines) == 1 + 80 and len(data) <= 4096
    snapshot = json.loads(lines[body - 1])
    restated = json.loads(views.unwrap(lines[body - 1]) or b"")["restated"]
    assert snapshot["type"] == "native" and "message" not in snapshot and restated[-1] == "x" * 150
    assert [views.unwrap(line) for line in lines[body:]] == native.read_bytes().split(b"\n")[body:-1]
    restored = views.native_bytes(data, wrapped=True)
    assert restored.startswith(b'{"session":"w-1"}\n{"restated"') and b'"p39"' in restored


class Cutting(Wrapped):
    def shorten(self, record: bytes, limit: int) -> bytes | None:
        return record[:limit] + b" [cut]"


def test_a_wrapped_turn_past_its_budget_has_its_native_records_cut_to_half_of_2_kib(tmp_path: Path) -> None:
    owner = Owner(tmp_path, budget=4096)
    owner.env[views.RECORD_BUDGET_ENV] = "8192"  # none cut as it is copied: the turn is cut to fit
    owner.fmt = Cutting()
    native = tmp_path / "native.jsonl"
    native.write_bytes(b'{"session":"w-1"}\n')
    path = views.attach(owner, "w-1", str(native), EventType.TURN_START)  # pyright: ignore[reportArgumentType]
    said = [json.dumps({"who": "it", "say": f"{n}" + "x" * 1500}).encode() for n in range(3)]
    with native.open("ab") as f:
        f.write(b"".join(line + b"\n" for line in said))
    views.attach(owner, "w-1", str(native), EventType.TOOL_USE)  # pyright: ignore[reportArgumentType]
    data = Path(path).read_bytes()
    # A wrapped line restates what it maps beside the native record: that record is cut to 1 KiB.
    assert len(data) <= 4096
    assert [views.unwrap(line) for line in data.split(b"\n")[-4:-1]] == [s[:1024] + b" [cut]" for s in said]


class Paragraphs(views.ViewFormat):
    """A text format: ``Q: `` starts a question, ``A: `` an answer, either going on until a blank line.
    A block is restated on the blank line that ends it, so the mapping needs the lines before it."""

    wrap = True
    json_records = False

    def record(self, value: Any) -> tuple[str, list[dict[str, Any]], str | None] | None:
        st = self.state if isinstance(self.state, dict) else {"kind": "", "lines": []}
        line = str(value)
        mapped = None
        if not line.strip():
            if st["kind"]:
                mapped = (st["kind"], [{"type": "text", "text": "\n".join(st["lines"])}], None)
            st = {"kind": "", "lines": []}
        elif line.startswith(("Q: ", "A: ")) and not st["kind"]:
            st = {"kind": "user" if line.startswith("Q") else "assistant", "lines": [line[3:]]}
        elif st["kind"]:
            st = {"kind": st["kind"], "lines": [*st["lines"], line]}
        self.state = st
        return mapped

    def snapshot(self, path: str, end: int, limit: int) -> list[bytes]:
        with open(path, "rb") as f:
            return [f.readline().rstrip(b"\n")]

    def shorten(self, record: bytes, limit: int) -> bytes | None:
        return record[:limit] + b" [cut]" if not record.startswith((b"Q: ", b"A: ")) else None


def test_a_text_format_is_read_line_by_line_across_calls_as_in_one(tmp_path: Path) -> None:
    text = b"session one\n\nQ: two lines\nof question\n\nA: an answer\n" + b"z" * 9000 + b"\nand its end\n\n"
    text += b"after\n"
    native = tmp_path / "native.txt"
    native.write_bytes(text)
    whole = Owner(tmp_path / "a", budget=65536)
    whole.fmt = Paragraphs()  # pyright: ignore[reportAttributeAccessIssue]
    once = Path(views.attach(whole, "t-1", str(native), EventType.TURN_END)).read_bytes()  # pyright: ignore[reportArgumentType]
    stepwise = Owner(tmp_path / "b", budget=65536)
    stepwise.fmt = Paragraphs()  # pyright: ignore[reportAttributeAccessIssue]
    grown = tmp_path / "grown.txt"
    grown.write_bytes(b"")
    # A call after every line: the state goes through the view's metadata.
    for line in text.splitlines(keepends=True):
        with grown.open("ab") as f:
            f.write(line)
        path = views.attach(stepwise, "t-1", str(grown), EventType.TURN_END)  # pyright: ignore[reportArgumentType]
    assert Path(path).read_bytes() == once
    records = [json.loads(line) for line in once.split(b"\n")[:-1]]
    kinds = ["native"] * 4 + ["user"] + ["native"] * 3 + ["assistant", "native"]
    assert [r["type"] for r in records] == kinds
    assert records[4]["message"]["content"][0]["text"] == "two lines\nof question"
    answer = records[8]["message"]["content"][0]["text"]
    assert answer.startswith("an answer\nzzz") and answer.endswith("\nand its end")
    # The long line was cut as it was copied (the record budget is 8 KiB here), its mapping read whole.
    assert records[6]["native_text"].endswith(" [cut]") and len(records[6]["native_text"]) < 9000
    assert views.native_bytes(once, wrapped=True).count(b"\n") == text.count(b"\n")
    assert list(views.lines_as_native(once.split(b"\n")[:-1]))[4] == b""


def test_rewrap_keeps_what_a_line_restates() -> None:
    line = b'{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"x"}]},"native_text":"long"}'
    again = json.loads(views.rewrap(line, b"lo"))
    assert again["type"] == "assistant" and again["message"]["content"][0]["text"] == "x"
    assert again["native_text"] == "lo" and views.unwrap(views.rewrap(line, b"\xff")) == b"\xff"


def test_a_first_turn_larger_than_half_the_budget_stays_whole_when_its_file_appears(tmp_path: Path) -> None:
    # Qwen and Gemini create their chat file after the prompt hook: at TurnStart there is no file yet,
    # the view holds only LEAD and the CLI counts the turn from line 1. A rebuild must not cut into that turn.
    owner = Owner(tmp_path, budget=4096)
    native = tmp_path / "late.jsonl"
    path = views.attach(owner, "w-1", str(native), EventType.TURN_START)  # pyright: ignore[reportArgumentType]
    lines = [b'{"session":"w-1"}', json.dumps({"who": "me", "say": "the first prompt"}).encode()]
    lines += [json.dumps({"who": "it", "say": f"{n}" + "x" * 200}).encode() for n in range(12)]
    native.write_bytes(b"\n".join(lines) + b"\n")
    views.attach(owner, "w-1", str(native), EventType.TURN_END)  # pyright: ignore[reportArgumentType]
    data = Path(path).read_bytes()
    assert len(data) > 4096 // 2 and views.head_lines_of(data) == 0  # past half the budget, not re-based
    assert [views.unwrap(line) for line in data.split(b"\n")[:-1]] == [None, *lines]


def test_a_turn_ends_larger_in_bytes_than_the_cli_last_stored_the_view(tmp_path: Path) -> None:
    # At a commit after a turn has ended, the CLI finds new work only when its TurnEnd copy of the view
    # is larger in bytes than the view it condensed last. Re-bases make the view shorter: it is padded.
    budget = 8192
    env = _env(tmp_path, budget=budget)
    session = Session(env)
    condensed = b""
    padded = 0
    for n in range(1, 60):
        turn = session.turn(_turn(n, pad=700))
        data = turn["data"]
        assert len(data) > len(condensed), f"turn {n}: the CLI would see no new work"
        assert turn["prompts"] == [f"prompt {n}"] and turn["files"] == [f"f{n}.txt"]
        assert views.host_lines(data) == 1 + 3 * n  # line N stays line N
        assert views.native_bytes(data, False).endswith(_lines(_turn(n, pad=700)))
        padded += data.endswith(b" ")
        if n % 5:  # a commit after most turns, none after every fifth: the next one is judged against it
            condensed = data
            host.condensed(env.repo, SESSION, session.ref, data)
    assert padded > 20  # re-based at almost every turn, and padded after it
    # Bounded: the padding only keeps the view a byte past its size at the last commit.
    assert len(data) <= budget + 60
    assert data.rstrip(b" ").endswith(b"\n")  # the padding follows the last line, which it leaves whole
    # No line since the last commit: no padding.
    host.condensed(env.repo, SESSION, session.ref, data)
    session.hook("stop")
    assert Path(session.ref).read_bytes() == data.rstrip(b" ")


def test_a_count_from_the_stored_start_keeps_the_turns_a_re_base_dropped(tmp_path: Path) -> None:
    # A session committed only at its end, past the budget: the CLI counts tokens from the start it
    # stored (0), long cut away. The marker carries what each re-base dropped after that start.
    env = _env(tmp_path, budget=8192)
    session = Session(env)
    session.turn(_turn(1, pad=700))
    _host_state(env, session.ref, 0)  # the CLI's state before any commit
    for n in range(2, 30):
        turn = session.turn(_turn(n, pad=700))
    assert views.frame_of(turn["data"]).body > 20  # re-based many times
    whole = env.call("calculate-tokens", "--offset", "0", stdin=session.native.read_bytes())
    assert whole["input_tokens"] == sum(9 + n for n in range(1, 30))
    assert env.call("calculate-tokens", "--offset", "0", stdin=turn["data"]) == whole
    # From a start the CLI stored later, within the body: only what follows it, nothing carried.
    assert env.call("calculate-tokens", "--offset", str(turn["start"]), stdin=turn["data"]) == turn["tokens"]
    # Once the CLI has stored a start past the carried lines, a re-base carries from there.
    stored = views.host_lines(turn["data"])
    _host_state(env, session.ref, stored)
    for n in range(30, 40):
        turn = session.turn(_turn(n, pad=700))
    since = env.call("calculate-tokens", "--offset", str(stored), stdin=turn["data"])
    assert since["input_tokens"] == sum(9 + n for n in range(30, 40))
