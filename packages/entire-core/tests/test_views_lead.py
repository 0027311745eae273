"""A turn never starts at line 0 of a wrapped view: the CLI reads a start of 0 as none.

v0.10.3 ``lifecycle.go`` (``resolveTranscriptOffset``) takes the turn's ``TranscriptOffset`` only when it
is ``> 0``, else the session's ``checkpoint_transcript_start``, which a commit the agent makes during the
turn moves past the turn's prompt. An agent that writes its file after the prompt's hook (Qwen Code)
left the view empty at its session's first TurnStart. Such a view now starts with ``views.LEAD``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from entire_core import views
from entire_core.types import EventType

from .test_views_v2 import Owner

FIRST = b'{"session":"w-1"}'


def _said(n: int, pad: int = 0) -> list[bytes]:
    return [
        json.dumps({"who": "me", "say": f"p{n}"}).encode(),
        json.dumps({"who": "it", "say": "x" * pad}).encode(),
    ]


def _append(native: Path, lines: list[bytes]) -> None:
    with native.open("ab") as f:
        f.write(b"".join(line + b"\n" for line in lines))


def _start(owner: Owner, native: Path) -> str:
    return views.attach(owner, "w-1", str(native), EventType.TURN_START)  # pyright: ignore[reportArgumentType]


def _end(owner: Owner, native: Path) -> str:
    return views.attach(owner, "w-1", str(native), EventType.TURN_END)  # pyright: ignore[reportArgumentType]


def test_a_view_that_holds_nothing_at_a_turn_start_starts_with_lead(tmp_path: Path) -> None:
    owner = Owner(tmp_path)
    native = tmp_path / "late.jsonl"  # not written yet
    path = Path(_start(owner, native))
    assert path.read_bytes() == views.LEAD + b"\n" and views.host_lines(path.read_bytes()) == 1
    _append(native, [FIRST, *_said(1)])
    data = Path(_end(owner, native)).read_bytes()
    lines = data.split(b"\n")[:-1]
    # line N of the view is the session's line N - 1; the turn, from line 1, holds its prompt
    assert lines[0] == views.LEAD and [views.unwrap(line) for line in lines[1:]] == [FIRST, *_said(1)]
    assert views.host_lines(data) == 4 and views.head_lines_of(data) == 0
    assert views.native_bytes(data, wrapped=True) == native.read_bytes()  # write-session: the agent's file
    assert views.frame_of(data).line(0) == 0 and views.frame_of(data).line(1) == 1
    # A later turn does not add another: its start is past the lines before it.
    _start(owner, native)
    assert Path(_end(owner, native)).read_bytes() == data


def test_a_view_whose_file_was_there_keeps_line_n_as_line_n(tmp_path: Path) -> None:
    """As every view of an earlier release, and of an agent that writes its file before the prompt."""
    owner = Owner(tmp_path)
    native = tmp_path / "early.jsonl"
    native.write_bytes(FIRST + b"\n")
    data = Path(_start(owner, native)).read_bytes()
    assert [views.unwrap(line) for line in data.split(b"\n")[:-1]] == [FIRST]


def test_a_native_view_holds_only_the_agents_lines(tmp_path: Path) -> None:
    """A native (unwrapped) view is read by the agent's own parsers as its own file: no line is added."""

    class Native(views.ViewFormat):
        def snapshot(self, path: str, end: int, limit: int) -> list[bytes]:
            with open(path, "rb") as f:
                return [f.readline().rstrip(b"\n")]

    owner = Owner(tmp_path)
    owner.fmt = Native()  # pyright: ignore[reportAttributeAccessIssue]
    assert Path(_start(owner, tmp_path / "late.jsonl")).read_bytes() == b""


def test_a_re_base_keeps_lead_first_and_the_sessions_first_line_next(tmp_path: Path) -> None:
    owner = Owner(tmp_path, budget=4096)
    native = tmp_path / "late.jsonl"
    path = Path(_start(owner, native))
    _append(native, [FIRST])
    for n in range(40):
        _append(native, _said(n, 150))
        _end(owner, native)
        _start(owner, native)
    data = path.read_bytes()
    lines = data.split(b"\n")[:-1]
    body = views.head_lines_of(data)
    assert body > 3 and len(data) <= 4096 and len(lines) == 1 + 1 + 80
    # the header: LEAD, padding, the marker, the session's first line (the snapshot's first record), the rest
    assert lines[0] == views.LEAD and lines[body - 3] == views.marker(body)
    assert views.unwrap(lines[body - 2]) == FIRST and b"restated" in (views.unwrap(lines[body - 1]) or b"")
    # the body keeps its lines: view line N is the session's line N - 1
    assert [views.unwrap(line) for line in lines[body:]] == native.read_bytes().split(b"\n")[body - 1 : -1]
    restored = views.native_bytes(data, wrapped=True)
    assert restored.startswith(FIRST + b"\n" + b'{"restated"') and b'"p39"' in restored
    # and again, from a header that starts with LEAD
    for n in range(40, 60):
        _append(native, _said(n, 150))
        _end(owner, native)
        _start(owner, native)
    again = path.read_bytes().split(b"\n")[:-1]
    body = views.head_lines_of(path.read_bytes())
    assert again[0] == views.LEAD and views.unwrap(again[body - 2]) == FIRST and len(again) == 2 + 120
    assert [views.unwrap(line) for line in again[body:]] == native.read_bytes().split(b"\n")[body - 1 : -1]


def test_a_view_with_lead_rebuilt_after_it_was_lost_keeps_lead(tmp_path: Path) -> None:
    owner = Owner(tmp_path)
    native = tmp_path / "late.jsonl"
    path = Path(_start(owner, native))
    _append(native, [FIRST, *_said(1)])
    before = Path(_end(owner, native)).read_bytes()
    os.remove(path)
    _start(owner, native)  # the view is rebuilt from the agent's file
    assert path.read_bytes() == before


def test_a_checkpoint_of_a_view_with_lead_restores_the_agents_file_and_the_view(tmp_path: Path) -> None:
    """``write-session``: the agent's file without LEAD; the view adopted as stored goes on from it."""
    owner = Owner(tmp_path)
    native = tmp_path / "late.jsonl"
    path = Path(_start(owner, native))
    _append(native, [FIRST, *_said(1)])
    stored = Path(_end(owner, native)).read_bytes()
    restored = tmp_path / "restored.jsonl"
    restored.write_bytes(views.native_bytes(stored, wrapped=True))
    assert restored.read_bytes() == native.read_bytes()
    os.remove(path)
    with views.View(owner, owner.fmt, str(path)) as view:  # pyright: ignore[reportArgumentType]
        view.adopt(str(restored), stored)
    _append(restored, _said(2))
    data = Path(views.attach(owner, "w-1", str(restored), EventType.TURN_END)).read_bytes()  # pyright: ignore[reportArgumentType]
    assert data.startswith(stored) and [views.unwrap(x) for x in data.split(b"\n")[-3:-1]] == _said(2)
    assert views.native_bytes(data, wrapped=True) == restored.read_bytes()
    # Lost, the view is made again from the agent's file, LEAD kept: line N is still the agent's line N - 1.
    os.remove(path)
    assert Path(views.attach(owner, "w-1", str(restored), EventType.TURN_END)).read_bytes() == data  # pyright: ignore[reportArgumentType]
