"""A view made anew over a native file (``views.follow``): what it keeps, where its lines are, and when.

The view is made anew when the file is not the one it followed: the agent started its file again or
rewrote it, the view was lost, the session moved to another file, or a v1 view is upgraded. What it keeps
then: a turn in progress whole (up to the budget for a v1 turn, just under the CLI's 10 MiB for one of
this version), else from the CLI's stored start when what follows it and a header fit the budget, else
the newest quarter budget; line N is still the session's line N (N - 1 after ``LEAD``). And as it copies
a wrapped record, the native record is cut to half the record budget when the wrapped line would be over it.

Sessions are the model's (``test_views_model.Transcript``: every call checked record by record), or
small wrapped ones driven through ``views.attach``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from entire_core import views
from entire_core.testing import host
from entire_core.types import EventType

from .test_views_model import (
    FIRST,
    HARD_LIMIT,
    Transcript,
    head_bytes,
    record,
    restated,
    shortened,
    small_session,
    stored_start,
)
from .test_views_v2 import Owner, Wrapped


@pytest.fixture(autouse=True)
def _no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in ``test_views_model``: durability is not the point here, and fsyncs only slow the sessions."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


def rewritten(t: Transcript) -> None:
    """The agent rewrites its file: a byte the view read changes, the size stays. The view made anew
    starts its body no earlier than the old one ended: its lines may move on (``Transcript.shift``)."""
    data = t.native.read_bytes()
    at = data.index(b'"p": "x', t.start) + len(b'"p": "')
    t.native.write_bytes(data[:at] + b"y" + data[at + 1 :])
    t.shift = -1


def tail_from(session: bytes, back: int) -> bytes:
    """The session's lines from the one holding the byte ``back`` bytes before its end."""
    return session[session.rfind(b"\n", 0, len(session) - back) + 1 :]


# -- when a view is made anew --------------------------------------------------------------------------


def test_a_view_made_anew_of_the_same_file_leaves_the_views_of_sessions_long_untouched(
    tmp_path: Path,
) -> None:
    """They are removed when a view of another file is made (a session's first view), not at every rebuild."""
    t = small_session(tmp_path)
    stale = t.meta_path.with_name("gone.json")
    stale.write_text("{}")
    os.utime(stale, (0, 0))
    os.remove(t.path)  # the view lost: made anew, the same session
    t.hook()
    t.replace(100)  # the agent starts its file again: made anew, the same session
    t.hook()
    assert stale.exists()
    views.attach(t.owner, "another", str(t.native), EventType.SESSION_START)
    assert not stale.exists()


# -- a turn in progress ----------------------------------------------------------------------------------


def test_a_turn_started_before_the_agent_wrote_its_file_is_the_turn_of_one_started_on_an_empty_file(
    tmp_path: Path,
) -> None:
    """Either way the turn starts at the view's first byte, so the whole file is the turn: kept whole past
    half the budget, and past the budget its largest records cut, the session's first line among them."""
    missing, empty = (
        Transcript(tmp_path / name, budget=8192, record=8192, first=record(0, 3000)) for name in ("a", "b")
    )
    missing.native.unlink()
    empty.native.write_bytes(b"")
    for t in (missing, empty):
        t.hook(EventType.TURN_START, check=False)
        t.native.write_bytes(t.first + b"\n" + t.records(1000, 1000))
    first = [t.hook(check=False) for t in (missing, empty)]
    assert first == [missing.native.read_bytes()] * 2  # past half the budget (4096), whole
    for t in (missing, empty):
        t.append(2500, 1000)  # past the budget: the largest record, the first line, is cut
    data = [t.hook(check=False) for t in (missing, empty)]
    assert data[0] == data[1] and data[0].split(b"\n")[0] == shortened(0, 3000, 2048)


@pytest.mark.parametrize("first", [FIRST, b""], ids=["first", "empty-first"])
def test_a_turn_in_progress_stays_whole_each_time_the_agent_rewrites_its_file(
    tmp_path: Path, first: bytes
) -> None:
    """The view made anew starts its body at the turn's first line, and a fit past the budget later cuts
    the turn's records without re-basing inside it; made anew again, the body starts where the old view
    ended, with the turn's first line. A session whose first line is empty too (its view starts with a newline)."""
    t = Transcript(tmp_path, budget=8192, record=8192, first=first)
    t.hook()
    t.append(3000)
    t.turn()  # under half the budget: not re-based; the turn starts at line 2
    t.append(2500, 2500)
    rewritten(t)
    data = t.hook()  # made anew past half the budget: from the turn's start (checked: the turn whole)
    assert views.frame_of(data, views.BYTES).body == 2 and restated(data.split(b"\n")[2]) == 2
    t.append(2500, 2500)  # past the budget: the turn's largest record cut, nothing re-based
    data = t.hook()
    assert views.frame_of(data, views.BYTES).body == 2
    assert data.split(b"\n")[2:4] == [shortened(2, 2500, 2048), record(3, 2500)]
    end = t.end
    rewritten(t)
    data = t.hook()  # made anew again: from the turn's start, moved on to the old view's end
    assert views.frame_of(data, views.BYTES).body == end and restated(data.split(b"\n")[end]) == 2


def test_a_turn_in_progress_when_the_session_moves_to_another_file_is_not_looked_for_there(
    tmp_path: Path,
) -> None:
    t = Transcript(tmp_path, budget=8192, record=8192)
    t.hook()
    t.append(100)
    t.turn()  # the turn starts at line 2 of the old file
    t.native = tmp_path / "moved.jsonl"  # the agent names another file for the session
    t.native.write_bytes(FIRST + b"\n")
    t.fmt.native, t.count, t.shift, t.turn_at = str(t.native), 1, -1, None
    t.fill(6000)
    data = t.hook()  # a first view of that file: its newest quarter budget
    assert data[head_bytes(data) :] == tail_from(t.native.read_bytes(), 2048)


# -- just under the CLI's limit ------------------------------------------------------------------------


def keep_lines(size: int, piece: int = 64 << 10) -> list[int]:
    """Record sizes (lines of at most ``piece`` bytes, newline included) that fill ``size`` bytes."""
    count = -(-size // piece)
    return [size // count + (n < size % count) - 1 for n in range(count)]


@pytest.mark.parametrize("extra", [0, 1])
@pytest.mark.parametrize("where", ["before-the-file", "rewritten"])
def test_a_turn_in_progress_of_a_view_made_anew_is_kept_whole_up_to_just_under_10_mib(
    tmp_path: Path, where: str, extra: int
) -> None:
    """Whole up to ``HARD_LIMIT`` bytes from its start, one byte more and the view is made as a first
    view is (the newest quarter budget). Kept whole after a header, the turn is one header past the
    CLI's limit: cut to its newest half budget, as any turn past it is."""
    budget = 1 << 20
    t = Transcript(tmp_path, budget=budget)
    if where == "before-the-file":  # the turn starts at the session's first line
        t.native.unlink()
        t.hook(EventType.TURN_START, check=False)
        t.native.write_bytes(FIRST + b"\n")
        turn = 0
    else:  # at line 2, and the agent then rewrites its file
        t.hook()
        t.append(100)
        t.turn()
        turn = t.native.stat().st_size
    t.append(*keep_lines(HARD_LIMIT + extra - (t.native.stat().st_size - turn)), keep=True)
    if where == "rewritten":
        rewritten(t)
    data = t.hook(check=False)
    session = t.native.read_bytes()
    if extra:
        assert data[head_bytes(data) :] == tail_from(session, budget // 4)
    elif where == "before-the-file":
        assert data == session
    else:
        assert data[head_bytes(data) :] == tail_from(session, budget // 2)


# -- v1 views upgraded with a turn in progress ---------------------------------------------------------


def as_v1(t: Transcript, turn: int) -> None:
    """Leave ``t``'s view as v1 did: the native file's bytes, a turn in progress at its byte ``turn``."""
    data = t.native.read_bytes()
    Path(t.path).write_bytes(data)
    t.meta_path.write_text(json.dumps({
        "v": 1, "native": str(t.native), "native_start": 0, "native_end": len(data), "native_id": [0, 0],
        "native_mark": "", "follow": True, "turn": turn, "view_size": len(data)}))  # fmt: skip


def upgraded(t: Transcript) -> tuple[bytes, views.Frame]:
    """The next hook's view of ``t`` (a v1 view rebuilt), and its frame."""
    data = t.hook(check=False)
    with views.View(t.owner, t.fmt, t.path) as view:
        return data, view.frame()


def test_a_v1_view_whose_turn_started_at_its_first_byte_is_made_anew_whole_within_the_budget(
    tmp_path: Path,
) -> None:
    t = Transcript(tmp_path, budget=8192, record=8192)
    t.hook()
    t.fill(6000)  # past half the budget
    as_v1(t, 0)
    data, frame = upgraded(t)
    assert data == t.native.read_bytes()
    assert (frame.body, frame.resume, frame.line(10**6)) == (0, 0, 0)  # v1 offsets resume at the turn


@pytest.mark.parametrize("extra", [0, 1])
def test_a_v1_turn_in_progress_is_kept_whole_up_to_the_budget(tmp_path: Path, extra: int) -> None:
    """Up to the budget from the turn's start, the view made anew starts its body at the turn, where v1
    offsets resume; one byte more and it is made as a first view is (the newest quarter budget)."""
    t = Transcript(tmp_path, budget=8192, record=8192)
    t.hook()
    t.append(1000)
    turn = t.native.stat().st_size
    t.append(100, keep=True)  # the turn's prompt
    t.append(*keep_lines(8192 + extra - 101, piece=1000))
    as_v1(t, turn)
    data, frame = upgraded(t)
    if extra:
        assert data[head_bytes(data) :] == tail_from(t.native.read_bytes(), 2048)
        assert frame.resume == frame.body
    else:
        assert (frame.body, frame.resume) == (2, 2)
        assert data.split(b"\n")[2] == record(2, 100, keep=True)


@pytest.mark.parametrize("first", [FIRST, b""], ids=["first", "empty-first"])
def test_a_v1_turn_kept_whole_in_a_view_made_anew_is_the_turn_a_later_fit_cuts(
    tmp_path: Path, first: bytes
) -> None:
    """Past the budget later, the turn's largest record is cut, its first one included, and the view is
    not re-based inside the turn (a session whose first line is empty too)."""
    t = Transcript(tmp_path, budget=8192, record=8192, first=first)
    t.hook()
    t.append(1500)
    turn = t.native.stat().st_size
    t.append(2600, 1000)  # the turn: past half the budget, within a quarter budget of the end
    as_v1(t, turn)
    data, frame = upgraded(t)
    assert (frame.body, frame.resume) == (2, 2) and data[head_bytes(data) :] == t.native.read_bytes()[turn:]
    t.append(2500, 2500)
    data = t.hook(check=False)
    assert views.frame_of(data, views.BYTES).body == 2
    assert data.split(b"\n")[2:6] == [
        shortened(2, 2600, 2048),
        record(3, 1000),
        record(4, 2500),
        record(5, 2500),
    ]


# -- the CLI's stored start ----------------------------------------------------------------------------


@pytest.mark.parametrize("extra", [0, 1])
def test_a_lost_view_is_made_anew_from_the_stored_start_when_what_follows_and_a_header_fit_the_budget(
    tmp_path: Path, extra: int
) -> None:
    """The CLI stored 0 (no commit yet) for a session after another in its file: made anew whole while
    the session and a quarter budget header fit the budget; one byte more, its newest quarter budget."""
    t = Transcript(tmp_path, budget=8192, record=8192, before=b"another session\n" * 3)
    t.hook()
    t.fill(8192 - 2048 + extra)
    stored_start(t, 0)
    os.remove(t.path)
    data = t.hook()
    session = t.native.read_bytes()[t.start :]
    if extra:
        assert data[head_bytes(data) :] == tail_from(session, 2048)
    else:
        assert data == session


# -- views that start with LEAD ------------------------------------------------------------------------

W_FIRST = b'{"session":"w-1"}'


def said(n: int, pad: int = 0) -> list[bytes]:
    """Turn ``n``: a prompt, and an answer of ``pad`` bytes."""
    return [
        json.dumps({"who": "me", "say": f"p{n}"}).encode(),
        json.dumps({"who": "it", "say": "x" * pad}).encode(),
    ]


def hook(owner: Owner, native: Path, kind: int = EventType.TURN_END) -> bytes:
    """A hook on ``native``: the view's bytes after it."""
    return Path(views.attach(owner, "w-1", str(native), kind)).read_bytes()


def native_lines(data: bytes) -> list[bytes | None]:
    """The native line each view line carries (None for LEAD and a header's own lines)."""
    return [views.unwrap(line) for line in data.split(b"\n")[:-1]]


def host_state(owner: Owner, view: Path, start: int) -> None:
    """The CLI's state after a commit: it counts the session from line ``start`` of the view."""
    host.session_state(
        Path(owner.repo_root), "w-1", transcript_path=str(view), checkpoint_transcript_start=start
    )


def test_a_view_with_lead_made_anew_from_the_stored_start_keeps_line_n_as_the_session_s_line_n_minus_1(
    tmp_path: Path,
) -> None:
    owner = Owner(tmp_path, budget=4096)
    native = tmp_path / "late.jsonl"
    path = Path(views.attach(owner, "w-1", str(native), EventType.TURN_START))
    lines = [W_FIRST] + [line for n in range(20) for line in said(n, 150)]
    native.write_bytes(b"".join(line + b"\n" for line in lines))
    hook(owner, native)
    session = native.read_bytes()
    before = session[: len(session) - len(tail_from(session, 1024))].count(b"\n")  # before its newest quarter
    host_state(owner, path, before)  # the view's line before: the session's line before - 1
    os.remove(path)
    data = hook(owner, native)
    assert views.head_lines_of(data) == before and native_lines(data)[0] is None
    assert native_lines(data)[before:] == lines[before - 1 :]


def test_a_view_with_lead_made_anew_for_a_file_started_again_goes_on_from_the_old_view_s_end(
    tmp_path: Path,
) -> None:
    owner = Owner(tmp_path)
    native = tmp_path / "late.jsonl"
    views.attach(owner, "w-1", str(native), EventType.TURN_START)
    native.write_bytes(b"".join(line + b"\n" for line in [W_FIRST, *said(1)]))
    old = views.host_lines(hook(owner, native))
    fresh = tmp_path / "fresh.jsonl"
    fresh.write_bytes(b"".join(line + b"\n" for line in [W_FIRST, *said(2, 10)]))
    os.replace(fresh, native)  # the agent starts its file again
    data = hook(owner, native)
    assert views.head_lines_of(data) == old and native_lines(data)[old:] == said(2, 10)


# -- a mirror --------------------------------------------------------------------------------------------


def test_a_mirror_goes_on_mirroring_its_file_once_the_format_would_view_it(tmp_path: Path) -> None:
    """A file first seen in a form the agent does not view (Gemini's single-JSON chats) stays a whole copy."""
    t = Transcript(tmp_path, accepts=False)
    t.append(100)
    t.hook(check=False)
    t.fmt.accept = True
    t.append(200)
    assert t.hook(check=False) == t.native.read_bytes()


# -- a wrapped record as it is copied ------------------------------------------------------------------


class Halving(Wrapped):
    """Cuts a record to half the limit it is given; never a prompt; a ``"same"`` record to its own length."""

    def shorten(self, record: bytes, limit: int) -> bytes | None:
        if b'"who": "me"' in record:
            return None
        short = record[: limit // 2] + b" [cut]"
        return short.ljust(len(record)) if b'"same"' in record else short


def test_a_wrapped_record_is_cut_to_half_the_record_budget_only_when_its_wrapped_line_is_over_it(
    tmp_path: Path,
) -> None:
    owner = Owner(tmp_path, budget=65536)
    owner.env[views.RECORD_BUDGET_ENV] = "1024"
    owner.fmt = fmt = Halving()

    def line(who: str, size: int, key: str = "say", **more: int) -> bytes:
        empty = len(json.dumps({"who": who, **more, key: ""}))
        return json.dumps({"who": who, **more, key: "x" * (size - empty)}).encode()

    def wrapped(native: bytes) -> int:
        return len(views.wrap(fmt, native))

    # The wrapped line restates what it maps: about twice a record that says something.
    over = line("it", 700)  # over half the record budget, its wrapped line over the budget: cut
    under = line("it", 500)  # half or less: kept, though its wrapped line is over the budget
    half = line("it", 512)
    prompt = line("me", 700)  # a record the format may not cut
    same = line("it", 700, same=1)  # one it gives back no shorter
    exact = next(  # its wrapped line exactly the record budget (it restates nothing)
        candidate for size in range(800, 1024) if wrapped(candidate := line("it", size, "pad")) == 1024
    )
    assert all(wrapped(r) > 1024 for r in (over, under, half, prompt, same)) and len(exact) > 512
    native = tmp_path / "native.jsonl"
    native.write_bytes(b"".join(r + b"\n" for r in [W_FIRST, over, under, half, prompt, same, exact]))
    data = hook(owner, native)
    assert native_lines(data) == [W_FIRST, over[:256] + b" [cut]", under, half, prompt, same, exact]
