"""Bounded views: what the CLI reads stays within budget, turns stay whole, positions are lines that keep their place.

Driven through the dispatcher with the viewed sample agent, as the Entire CLI calls a plugin: the
native transcript grows turn by turn, hooks name it, and every later call gets the view.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from entire_core import views
from entire_core.testing.checks import Env
from entire_core.testing.runner import InProcessRunner, Sandbox
from entire_core.testing.sample_agent import SampleView, ViewedSampleAgent

SESSION = "s-1"
FIRST = b'{"type": "meta", "session": "s-1"}\n'


def _env(tmp_path: Path, budget: int = 0, record: int = 0) -> Env:
    extra = {}
    if budget:
        extra[views.BUDGET_ENV] = str(budget)
    if record:
        extra[views.RECORD_BUDGET_ENV] = str(record)
    sandbox = Sandbox(tmp_path, extra_env=extra)
    return Env(sandbox, InProcessRunner(ViewedSampleAgent, sandbox))


def _turn(n: int, pad: int = 0, output: int = 0) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = [
        {"type": "user", "text": f"prompt {n}"},
        {"type": "tool", "name": "write", "path": f"f{n}.txt", "output": "o" * output},
        {
            "type": "assistant",
            "text": f"answer {n} " + "x" * pad,
            "usage": {"input": 10 + n, "cached": 1, "output": n},
        },
    ]
    return records


def _lines(records: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


class Session:
    """A native transcript and the CLI's calls on it, as ``entire_sim`` makes them."""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.native = env.repo / "native.jsonl"
        self.native.write_bytes(FIRST)
        self.ref = ""

    def hook(self, hook: str) -> dict[str, Any]:
        payload = {"session_id": SESSION, "transcript_path": str(self.native), "prompt": "p"}
        event = self.env.call("parse-hook", "--hook", hook, stdin=json.dumps(payload).encode())
        self.ref = event["session_ref"]
        return event

    def position(self) -> int:
        return self.env.call("get-transcript-position", "--path", self.ref)["position"]

    def turn(self, records: list[dict[str, Any]]) -> dict[str, Any]:
        """One turn: TurnStart's position, the records written, then TurnEnd's calls."""
        self.hook("prompt")
        start = self.position()
        with self.native.open("ab") as f:
            f.write(_lines(records))
        self.hook("stop")
        self.env.call("prepare-transcript", "--session-ref", self.ref)
        data = self.env.raw("read-transcript", "--session-ref", self.ref).stdout
        files = self.env.call("extract-modified-files", "--path", self.ref, "--offset", str(start))
        prompts = self.env.call("extract-prompts", "--session-ref", self.ref, "--offset", str(start))
        tokens = self.env.call("calculate-tokens", "--offset", str(start), stdin=data)
        return {"start": start, "data": data, "files": files["files"], "end": files["current_position"],
                "prompts": prompts["prompts"], "tokens": tokens}  # fmt: skip


def test_a_small_session_is_viewed_as_it_is(tmp_path: Path) -> None:
    env = _env(tmp_path)
    session = Session(env)
    first = session.turn(_turn(1))
    second = session.turn(_turn(2))
    assert first["data"] == FIRST + _lines(_turn(1))
    assert second["data"] == session.native.read_bytes()
    assert (first["start"], second["start"]) == (1, 4)  # lines, as the CLI counts them
    assert second["files"] == ["f2.txt"] and second["prompts"] == ["prompt 2"]
    assert second["tokens"]["input_tokens"] == 11 and second["tokens"]["api_call_count"] == 1
    # The view lives in the plugin's state directory, outside the repository.
    assert session.ref.startswith(str(env.sandbox.home / ".local" / "state" / "entire-agent-viewed-sample"))
    assert Path(session.ref).read_bytes() == session.native.read_bytes()


def test_turns_stay_whole_and_within_budget_as_the_session_grows(tmp_path: Path) -> None:
    budget = 8192
    env = _env(tmp_path, budget=budget)
    session = Session(env)
    positions: list[int] = []
    for n in range(1, 40):
        turn = session.turn(_turn(n, pad=700))
        assert len(turn["data"]) <= budget
        assert turn["files"] == [f"f{n}.txt"] and turn["prompts"] == [f"prompt {n}"]
        assert turn["tokens"]["input_tokens"] == 9 + n and turn["tokens"]["output_tokens"] == n
        positions += [turn["start"], turn["end"]]
        # Line numbering is kept across re-bases: the turn's start is its prompt's line, as the CLI counts.
        lines = turn["data"].split(b"\n")
        assert json.loads(lines[turn["start"]]) == {"type": "user", "text": f"prompt {n}"}
        assert views.host_lines(turn["data"]) == turn["end"] == 1 + 3 * n
    # Each turn starts where the one before ended, across every re-base: positions only grow.
    assert positions == sorted(positions)
    assert all(positions[i] < positions[i + 1] for i in range(0, len(positions), 2))
    assert all(positions[i] == positions[i + 1] for i in range(1, len(positions) - 1, 2))
    stored = session.turn(_turn(40))["data"]
    frame = views.frame_of(stored)
    assert frame.body > 2 and stored.startswith(FIRST)  # re-based: the header restates the session
    lines = stored.split(b"\n")
    marker = next(i for i, line in enumerate(lines) if line.startswith(views.MARKER_PREFIX))
    assert all(line == b"" for line in lines[1:marker]) and json.loads(lines[marker])["body"] == frame.body
    snapshot = json.loads(lines[frame.body - 1])
    first_in_body = json.loads(lines[frame.body])["text"]
    assert first_in_body.startswith("prompt ")
    before = f"prompt {int(first_in_body.split()[1]) - 1}"
    assert snapshot["type"] == "snapshot" and {"type": "user", "text": before} in snapshot["history"]
    # An offset inside the header means the body's start; one past the end the end.
    assert session.env.call("calculate-tokens", "--offset", "1", stdin=stored)["api_call_count"] > 1
    assert session.env.call("calculate-tokens", "--offset", "99999", stdin=stored)["api_call_count"] == 0


def test_sync_reads_only_what_was_appended(tmp_path: Path) -> None:
    env = _env(tmp_path)
    session = Session(env)
    session.turn(_turn(1, pad=20_000))
    # Overwrite the middle of the native file in place (same file, same size, the same first and
    # last bytes): a sync that read the whole file again would copy this.
    with session.native.open("r+b") as f:
        f.seek(10_000)
        f.write(b"XXXX")
    turn = session.turn(_turn(2))
    assert b"XXXX" not in turn["data"] and turn["data"].endswith(_lines(_turn(2)))


def test_an_oversized_record_is_shortened_with_a_visible_marker(tmp_path: Path) -> None:
    env = _env(tmp_path, budget=1 << 20, record=8192)
    session = Session(env)
    turn = session.turn(_turn(1, output=200_000))
    [tool] = [json.loads(line) for line in turn["data"].splitlines() if b'"tool"' in line]
    assert len(tool["output"]) < 9000 and tool["path"] == "f1.txt"
    assert "bytes cut here to keep the transcript within the Entire CLI's 10 MiB limit" in tool["output"]
    assert turn["files"] == ["f1.txt"] and turn["prompts"] == ["prompt 1"]


def test_a_turn_larger_than_the_budget_has_its_largest_records_shortened(tmp_path: Path) -> None:
    env = _env(tmp_path, budget=16384, record=1 << 20)
    session = Session(env)
    records = [r for n in (1, 2, 3) for r in _turn(n, output=10_000)]
    turn = session.turn(records)
    assert len(turn["data"]) <= 16384
    assert turn["files"] == ["f1.txt", "f2.txt", "f3.txt"]
    assert turn["prompts"] == ["prompt 1", "prompt 2", "prompt 3"]
    assert turn["data"].count(b"bytes cut here") >= 1


def test_a_view_killed_mid_update_is_repaired(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = _env(tmp_path, budget=8192)
    session = Session(env)
    session.turn(_turn(1))
    # An append that was never committed (killed before the metadata was written): cut off again.
    with open(session.ref, "ab") as f:
        f.write(b'{"type": "user", "text": "half"')
    turn = session.turn(_turn(2))
    assert b"half" not in turn["data"]
    assert turn["data"] == session.native.read_bytes()
    # A rewrite killed between naming <view>.next in the metadata and renaming it into place.
    real_replace = os.replace

    def killed(src: str, dst: str) -> None:
        if src.endswith(".next"):
            raise KeyboardInterrupt
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(AssertionError, match="code=130"):  # the dispatcher's exit on an interrupt
        for n in range(3, 40):
            session.turn(_turn(n, pad=700))
    monkeypatch.undo()
    assert os.path.exists(session.ref + ".next")
    turn = session.turn(_turn(99))
    assert not os.path.exists(session.ref + ".next")
    assert turn["files"] == ["f99.txt"] and len(turn["data"]) <= 8192


def test_a_replaced_native_file_is_viewed_anew_with_positions_still_growing(tmp_path: Path) -> None:
    env = _env(tmp_path)
    session = Session(env)
    before = session.turn(_turn(1, pad=500))
    os.remove(session.native)
    session.native.write_bytes(FIRST)  # the agent started the file again
    after = session.turn(_turn(2))
    assert after["start"] >= before["end"]
    assert after["files"] == ["f2.txt"] and after["prompts"] == ["prompt 2"]
    assert views.frame_of(after["data"]).body >= before["end"]


def test_a_rewritten_native_file_with_the_same_bytes_is_followed_on(tmp_path: Path) -> None:
    env = _env(tmp_path)
    session = Session(env)
    first = session.turn(_turn(1))
    data = session.native.read_bytes()
    replacement = session.native.with_suffix(".new")
    replacement.write_bytes(data)
    os.replace(replacement, session.native)  # an atomic rewrite: a new inode, the same bytes
    second = session.turn(_turn(2))
    assert second["start"] == first["end"] and second["data"] == session.native.read_bytes()
    # Same inode, same size, other bytes: not the file the view followed.
    with session.native.open("r+b") as f:
        f.seek(len(FIRST) + 2)
        f.write(b"Z")
    third = session.turn(_turn(3))
    assert views.frame_of(third["data"]).body >= second["end"]
    assert third["files"] == ["f3.txt"]


def _crc_mark(native: Path, start: int, end: int) -> str:
    """The native mark as views of 0.1 stored it: CRC-32s of the first and the last 4 KiB."""
    import zlib

    data = native.read_bytes()[:end]
    head, tail = data[start : start + 4096], data[max(start, end - 4096) :]
    return f"{end}:{zlib.crc32(head):08x}:{zlib.crc32(tail):08x}"


def test_a_view_marked_by_0_1_is_followed_on_and_its_mark_renewed(tmp_path: Path) -> None:
    env = _env(tmp_path)
    session = Session(env)
    first = session.turn(_turn(1))
    meta_path = Path(session.ref).parent / ".meta" / (Path(session.ref).stem + ".json")
    meta = json.loads(meta_path.read_bytes())
    meta["native_mark"] = _crc_mark(session.native, meta["native_start"], meta["native_end"])
    meta_path.write_text(json.dumps(meta))
    second = session.turn(_turn(2))
    assert second["start"] == first["end"] and second["data"] == session.native.read_bytes()
    renewed = json.loads(meta_path.read_bytes())["native_mark"]
    assert [len(part) for part in renewed.split(":")[1:]] == [16, 16]
    # An old mark still tells other bytes apart: the view is made anew, positions still growing.
    meta = json.loads(meta_path.read_bytes())
    meta["native_mark"] = _crc_mark(session.native, meta["native_start"], meta["native_end"])
    meta_path.write_text(json.dumps(meta))
    with session.native.open("r+b") as f:
        f.seek(len(FIRST) + 2)
        f.write(b"Z")
    third = session.turn(_turn(3))
    assert views.frame_of(third["data"]).body >= second["end"]


def test_a_native_file_the_format_does_not_view_is_mirrored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SampleView, "accepts", lambda self, native: False)  # pyright: ignore[reportUnknownLambdaType]
    env = _env(tmp_path, budget=4096)
    session = Session(env)
    turn = session.turn(_turn(1, pad=5000))
    assert turn["data"] == session.native.read_bytes() and len(turn["data"]) > 4096
    assert turn["files"] == ["f1.txt"] and turn["start"] == 1
    second = session.turn(_turn(2, pad=5000))  # over the budget at its start: never re-based
    assert second["data"] == session.native.read_bytes() and second["start"] == turn["end"]
    assert second["files"] == ["f2.txt"] and views.MARKER_PREFIX not in second["data"]
    assert (
        os.path.dirname(session.ref)
        == env.call("get-session-dir", "--repo-path", str(env.repo))["session_dir"]
    )


@pytest.mark.parametrize("padding", [b"", b"     "])
def test_write_session_restores_the_agent_file_and_the_view(tmp_path: Path, padding: bytes) -> None:
    # ``padding``: a checkpoint of a view ``View.turn_ended`` left spaces after (none of the session's).
    env = _env(tmp_path, budget=8192)
    session = Session(env)
    for n in range(1, 20):
        stored = session.turn(_turn(n, pad=700))["data"]
    end = stored and session.position()
    view_dir = env.call("get-session-dir", "--repo-path", str(env.repo))["session_dir"]
    assert os.path.dirname(session.ref) == view_dir
    other = _env(tmp_path / "elsewhere")  # another machine: no view, no native file
    request = {"session_id": SESSION, "agent_name": "viewed-sample", "repo_path": str(other.repo),
               "session_ref": os.path.join(other.call("get-session-dir", "--repo-path", str(other.repo))["session_dir"], SESSION + ".jsonl"),
               "start_time": "0001-01-01T00:00:00Z", "native_data": base64.b64encode(stored + padding).decode(),
               "modified_files": None, "new_files": None, "deleted_files": None}  # fmt: skip
    other.call("write-session", stdin=json.dumps(request).encode())
    native = other.repo / ".entire/tmp/entire-agent-viewed-sample/native" / (SESSION + ".jsonl")
    # The agent's own file has no header padding and no marker; the view is what the CLI stored.
    assert native.read_bytes() == views.native_bytes(stored, wrapped=False)
    assert b"\n\n" not in native.read_bytes() and views.MARKER_PREFIX not in native.read_bytes()
    assert native.read_bytes().startswith(FIRST) and len(native.read_bytes()) < len(stored)
    assert Path(request["session_ref"]).read_bytes() == stored
    assert other.call("get-transcript-position", "--path", request["session_ref"])["position"] == end
    with native.open("ab") as f:  # the agent goes on in the restored file
        f.write(_lines(_turn(50)))
    files = other.call("extract-modified-files", "--path", request["session_ref"], "--offset", str(end))
    assert files["files"] == ["f50.txt"] and files["current_position"] > end


def test_frames_clamp_offsets_in_the_header_to_the_body_and_past_the_end_to_the_end() -> None:
    data = b"first\n\n\n" + views.marker(5) + b"\nsnapshot\nbody\nmore\n\n"
    frame = views.frame_of(data)
    assert (frame.body, frame.end) == (5, 7)  # trailing blank lines are not counted, as the CLI does
    assert [frame.line(n) for n in (0, 4, 5, 6, 7, 8, 10**9)] == [5, 5, 5, 6, 7, 7, 7]
    assert views.frame_of(data, views.BYTES).local(0) == data.index(b"\nbody\n") + 1
    # A marker that is not right after the padding is no header; nor is the first line one.
    assert views.frame_of(b"first\nx\n" + views.marker(5) + b"\nbody\n").body == 0
    assert views.frame_of(views.marker(5) + b"\nbody\n").body == 0
    resumed = views.frame_of(b"first\n" + views.marker(2, resume=3) + b"\nbody\nprompt\nreply\n")
    assert resumed.line(10**6) == 3 and resumed.line(4) == 4


@pytest.mark.parametrize("piece", [1, 7, 4096])
def test_string_cutter_keeps_json_valid_whatever_the_pieces(piece: int) -> None:
    texts = ["a" * 5000, 'q"uo\\te' * 900, "é☃𝄞" * 2000, "\\u00e9" * 700, "short"]
    for ensure_ascii in (True, False):
        record = json.dumps(
            {"k": texts, "n": list(range(300)), "long key " * 80: 1}, ensure_ascii=ensure_ascii
        )
        cutter = views.StringCutter(512)
        data = record.encode()
        for at in range(0, len(data), piece):
            cutter.feed(data[at : at + piece])
        value = json.loads(cutter.result())
        assert value["n"] == list(range(300)) and value["k"][4] == "short"
        assert all(len(t.encode()) < 700 and "bytes cut here" in t for t in value["k"][:4])


def test_text_cutter_keeps_both_ends_of_a_line() -> None:
    cutter = views.TextCutter(1024)
    cutter.feed(b"> " + "é".encode() * 10_000)
    cutter.feed(b"end  ")
    line = cutter.result()
    assert line.startswith(b"> ") and line.endswith(b"end  ") and len(line) < 1300
    line.decode()  # still UTF-8


def test_cut_text_keeps_both_ends_and_says_what_it_cut() -> None:
    text = "a" * 1000 + "é" * 1000 + "z" * 1000
    short = views.cut_text(text, 400)
    assert short.startswith("a" * 300) and short.endswith("z" * 100)
    assert "[entire: 3600 of 4000 bytes cut here" in short.replace("\n", "")
    assert views.cut_text("short", 400) == "short"


SYNC_MANY = """
import sys
from pathlib import Path
from entire_core import views
from entire_core.testing.runner import Sandbox
from entire_core.testing.sample_agent import ViewedSampleAgent
sandbox = Sandbox(Path(sys.argv[2]))
agent = ViewedSampleAgent(env=sandbox.env, cwd=str(sandbox.repo))
for _ in range(int(sys.argv[3])):
    views.refreshed(agent, sys.argv[1])
"""


def test_concurrent_hooks_leave_a_consistent_view(tmp_path: Path) -> None:
    env = _env(tmp_path)
    session = Session(env)
    session.turn(_turn(0))
    argv = [sys.executable, "-c", SYNC_MANY, session.ref, str(tmp_path), "40"]
    workers = [subprocess.Popen(argv) for _ in range(3)]
    for n in range(1, 30):
        with session.native.open("ab") as f:
            f.write(_lines(_turn(n)))
    assert [worker.wait(60) for worker in workers] == [0, 0, 0]
    assert session.turn(_turn(30))["data"] == session.native.read_bytes()


def test_old_views_are_swept(tmp_path: Path) -> None:
    env = _env(tmp_path)
    session = Session(env)
    session.turn(_turn(1))
    old_view = session.ref
    meta = Path(old_view).parent / ".meta" / (SESSION + ".json")
    os.utime(meta, (0, 0))
    other = Session.__new__(Session)
    other.env, other.native, other.ref = env, env.repo / "native2.jsonl", ""
    other.native.write_bytes(FIRST)
    payload = {"session_id": "s-2", "transcript_path": str(other.native)}
    env.call("parse-hook", "--hook", "prompt", stdin=json.dumps(payload).encode())
    assert not os.path.exists(old_view) and not meta.exists()


def test_memory_stays_bounded_on_a_large_native_file(tmp_path: Path) -> None:
    """A 128 MB native file: the first call views its tail, in bounded memory."""
    native = tmp_path / "big.jsonl"
    record = _lines(_turn(1, pad=100_000))
    with native.open("wb") as f:
        f.write(FIRST)
        block = record * (8 * (1 << 20) // len(record))
        for _ in range(14):
            f.write(block)
        # The last turn's tool output: one 48 MB record, cut as it is read, never held whole.
        f.write(
            b'{"type": "user", "text": "last"}\n{"type": "tool", "name": "write", "path": "big.txt", "output": "'
        )
        for _ in range(48):
            f.write(b"0123456789abcd\\\\" * (1 << 16))
        f.write(b'"}\n')
    script = f"""
import json, sys
from entire_core import views
from entire_core.testing.runner import Sandbox
from entire_core.testing.sample_agent import ViewedSampleAgent
from pathlib import Path
sandbox = Sandbox(Path({str(tmp_path)!r}))
agent = ViewedSampleAgent(env=sandbox.env, cwd=str(sandbox.repo))
ref = views.attach(agent, "big", {str(native)!r}, 2)
hwm = int([l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0].split()[1])  # KiB, this process only
print(json.dumps({{"rss": hwm, "size": Path(ref).stat().st_size, "view": ref}}))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    tail = Path(result["view"]).read_bytes().splitlines()[-1]
    assert json.loads(tail)["path"] == "big.txt" and b"bytes cut here" in tail
    assert result["size"] <= views.DEFAULT_BUDGET
    assert result["rss"] < 64 * 1024  # KiB: a fraction of the file
    assert SampleView().unit == views.BYTES
