"""A view whose metadata is lost (deleted, or torn) while the view itself is there (make faults, case view-deleted).

The CLI stored line numbers of the view (a turn's start, ``checkpoint_transcript_start``) and copies it whole at
every TurnEnd, so the view must go on exactly as it would have: every test runs the same session twice over one
native file, once as it happens and once with the metadata lost before a call, and compares the views byte for
byte. A view that cannot be gone on with exactly fails the call, which leaves that checkpoint out.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from entire_core import views
from entire_core.errors import AgentError
from entire_core.types import EventType

from .test_views_v2 import Owner, Paragraphs

SESSION = "w-1"
FIRST = b'{"session":"w-1"}'


def _said(n: int, pad: int = 0) -> list[bytes]:
    return [
        json.dumps({"who": "me", "say": f"p{n}"}).encode(),
        json.dumps({"who": "it", "say": f"r{n}" + "x" * pad}).encode(),
    ]


def _append(native: Path, lines: list[bytes]) -> None:
    with native.open("ab") as f:
        f.write(b"".join(line + b"\n" for line in lines))


def _hook(owner: Owner, native: Path, kind: int) -> bytes:
    path = views.attach(owner, SESSION, str(native), kind)
    return Path(path).read_bytes()


def _meta_path(owner: Owner) -> Path:
    view = views.View.for_session(owner, owner.fmt, SESSION)
    return Path(view.file.meta_path)


def _lose(owner: Owner, how: str) -> None:
    meta = _meta_path(owner)
    if how == "deleted":
        meta.unlink()
    else:  # cut in the middle, as by hand
        data = meta.read_bytes()
        meta.write_bytes(data[: len(data) // 2])


class Twins:
    """One native file, two plugins' views of it: one as it happens, one whose metadata is lost on the way."""

    def __init__(self, root: Path, budget: int = 0, fmt: Any = None) -> None:
        self.native = root / "native.jsonl"
        self.plain = Owner(root / "plain", budget)
        self.lost = Owner(root / "lost", budget)
        if fmt is not None:
            self.plain.fmt, self.lost.fmt = fmt(), fmt()

    def hook(self, kind: int) -> bytes:
        want = _hook(self.plain, self.native, kind)
        got = _hook(self.lost, self.native, kind)
        assert got == want, "the view went on otherwise than it would have"
        plain, lost = (json.loads(_meta_path(owner).read_bytes()) for owner in (self.plain, self.lost))
        for m in (plain, lost):
            del m["view_id"], m["touched"]  # two files, written at two times
        # Where the turn in progress started is lost with the metadata: unknown (< 0) until the next TurnStart.
        turn = lost.pop("turn")
        assert turn == plain.pop("turn") or turn < 0
        assert lost == plain, "the metadata read back is not the metadata lost"
        return got


@pytest.mark.parametrize("how", ["deleted", "torn"])
def test_a_view_with_lead_whose_metadata_is_lost_keeps_lead_and_goes_on_as_it_would_have(
    tmp_path: Path, how: str
) -> None:
    # make faults, case view-deleted (Aider, seed 3737): the view was made anew without LEAD, one line short,
    # and the turn's start the CLI stored at TurnStart pointed a line late.
    t = Twins(tmp_path)
    t.hook(EventType.TURN_START)  # the agent writes its file after the prompt's hook: LEAD
    _append(t.native, [FIRST, *_said(1)])
    t.hook(EventType.TOOL_USE)
    _lose(t.lost, how)
    data = t.hook(EventType.TURN_END)
    assert data.split(b"\n")[0] == views.LEAD and views.host_lines(data) == 4
    t.hook(EventType.TURN_START)
    _append(t.native, _said(2))
    _lose(t.lost, how)
    t.hook(EventType.TURN_END)
    _lose(t.lost, how)
    t.hook(EventType.TURN_START)  # nothing new
    assert json.loads(_meta_path(t.lost).read_bytes())["lead"] == 1


def test_a_padded_view_whose_metadata_is_lost_keeps_its_padding_until_the_next_append(tmp_path: Path) -> None:
    from entire_core.testing import host

    t = Twins(tmp_path)
    _append(t.native, [FIRST, *_said(1)])
    t.hook(EventType.TURN_START)
    for owner in (t.plain, t.lost):  # the CLI stored the view larger than it is now: TurnEnd pads it
        view = views.View.for_session(owner, owner.fmt, SESSION)
        host.session_state(Path(owner.repo_root), SESSION, transcript_path=view.path, checkpoint_transcript_start=1,
                           checkpoint_transcript_size=4096)  # fmt: skip
    _append(t.native, _said(2))
    assert t.hook(EventType.TURN_END).endswith(b" ")
    _lose(t.lost, "deleted")
    t.hook(EventType.TURN_START)
    _append(t.native, _said(3))
    _lose(t.lost, "deleted")
    t.hook(EventType.TURN_END)


def test_a_re_based_view_whose_metadata_is_lost_goes_on_as_it_would_have(tmp_path: Path) -> None:
    t = Twins(tmp_path, budget=4096)
    _append(t.native, [FIRST])
    data = b""
    for n in range(30):
        t.hook(EventType.TURN_START)
        _append(t.native, _said(n, pad=150))
        if n % 7 == 6:
            _lose(t.lost, "deleted" if n % 2 else "torn")
        data = t.hook(EventType.TURN_END)
    assert views.head_lines_of(data) > 2  # re-based, and lost after it


def test_a_text_format_whose_metadata_is_lost_mid_block_reads_on_as_it_would_have(tmp_path: Path) -> None:
    # Paragraphs maps a block on the blank line that ends it: the state of the lines before is needed.
    t = Twins(tmp_path, budget=65536, fmt=Paragraphs)
    t.hook(EventType.TURN_START)  # LEAD
    t.native.write_bytes(b"session one\n\nQ: two lines\n")
    t.hook(EventType.TOOL_USE)
    _lose(t.lost, "deleted")
    with t.native.open("ab") as f:
        f.write(b"of question\n\nA: an answer\n")
    t.hook(EventType.TOOL_USE)
    _lose(t.lost, "torn")
    with t.native.open("ab") as f:
        f.write(b"and its end\n\nQ: next\n\n")
    data = t.hook(EventType.TURN_END)
    assert data.count(b'{"type":"assistant"') == 1 and data.count(b'{"type":"user"') == 2


@pytest.mark.parametrize(
    "replaced",
    [[FIRST, *_said(9)], [b'{"session":"w-2"}', *_said(1)]],  # every line is matched, the first too
    ids=["later-lines", "first-line"],
)
def test_a_view_whose_metadata_is_lost_and_whose_file_was_replaced_fails_rather_than_go_on_otherwise(
    tmp_path: Path, replaced: list[bytes]
) -> None:
    # Made anew, its lines would no longer be the ones the CLI stored numbers of: no checkpoint rather than another.
    owner = Owner(tmp_path)
    native = tmp_path / "native.jsonl"
    _append(native, [FIRST, *_said(1)])
    before = _hook(owner, native, EventType.TURN_START)
    _lose(owner, "deleted")
    native.write_bytes(b"".join(line + b"\n" for line in replaced))
    for kind in (EventType.TURN_END, EventType.TURN_START):  # and so it stays
        with pytest.raises(AgentError, match="no longer matches"):
            _hook(owner, native, kind)
        view = views.View.for_session(owner, owner.fmt, SESSION)
        assert Path(view.path).read_bytes() == before and not os.path.exists(view.file.meta_path)


def test_an_empty_view_whose_metadata_is_lost_is_made_as_a_new_one(tmp_path: Path) -> None:
    owner = Owner(tmp_path)
    native = tmp_path / "native.jsonl"
    _append(native, [FIRST])
    _hook(owner, native, EventType.TOOL_USE)
    view = views.View.for_session(owner, owner.fmt, SESSION)
    Path(view.path).write_bytes(b"")
    _lose(owner, "deleted")
    assert [views.unwrap(x) for x in _hook(owner, native, EventType.TURN_END).split(b"\n")[:-1]] == [FIRST]


def test_a_view_of_lead_alone_whose_metadata_is_lost_before_the_agent_wrote_its_file_keeps_lead(
    tmp_path: Path,
) -> None:
    t = Twins(tmp_path)
    t.hook(EventType.TURN_START)
    _lose(t.lost, "torn")
    assert t.hook(EventType.TOOL_USE) == views.LEAD + b"\n"
    assert json.loads(_meta_path(t.lost).read_bytes())["lead"] == 1  # no longer torn, though nothing was new
    _append(t.native, [FIRST, *_said(1)])
    t.hook(EventType.TURN_END)


@pytest.mark.parametrize("torn", [b'{"type":"user","mess', b"{"], ids=["long", "one-byte"])
def test_a_line_never_committed_after_a_view_whose_metadata_is_lost_is_cut_off(
    tmp_path: Path, torn: bytes
) -> None:
    t = Twins(tmp_path)
    _append(t.native, [FIRST, *_said(1)])
    t.hook(EventType.TURN_START)
    view = views.View.for_session(t.lost, t.lost.fmt, SESSION)
    with open(view.path, "ab") as f:
        f.write(torn)
    _lose(t.lost, "deleted")
    t.hook(EventType.TOOL_USE)
    _append(t.native, _said(2))
    t.hook(EventType.TURN_END)


def test_reclaim_says_whether_there_was_a_view_to_go_on_with(tmp_path: Path) -> None:
    from entire_core.views.reclaim import reclaim

    owner = Owner(tmp_path)
    native = tmp_path / "native.jsonl"
    _append(native, [FIRST, *_said(1)])
    view = views.View.for_session(owner, owner.fmt, SESSION)
    assert not reclaim(view.follower, str(native), 0, None)  # no view at all
    _hook(owner, native, EventType.TURN_START)
    _lose(owner, "deleted")
    view = views.View.for_session(owner, owner.fmt, SESSION)
    assert (
        reclaim(view.follower, str(native), 0, None) and view.file.meta["native_end"] == native.stat().st_size
    )
    Path(view.path).write_bytes(b"")  # an empty one: nothing a line of the CLI's can point into
    assert not reclaim(view.follower, str(native), 0, None)


@pytest.mark.parametrize("made", ["appended", "rebuilt"])
def test_a_re_based_text_format_whose_metadata_is_lost_mid_block_reads_on_as_it_would_have(
    tmp_path: Path, made: str
) -> None:
    # The body after a header was read on from the session's start (appended after a re-base), or anew
    # after the header (rebuilt): a block open across the body's start is mapped from one reading only.
    t = Twins(tmp_path, budget=4096, fmt=Paragraphs)
    t.native.write_bytes(b"session one\n\n")
    data = b""
    for n in range(24):
        if made == "rebuilt" and n == 13:  # lost before it is re-based again
            _lose(t.lost, "deleted")
        t.hook(EventType.TURN_START)
        with t.native.open("ab") as f:  # each turn ends mid-question: the block goes on in the next
            f.write(b"of question %d\n\nA: " % n + b"an answer\n" * 16 + b"\nQ: question %d\n" % (n + 1))
        if made == "rebuilt" and n == 12:  # made anew from the turn's start, mid-question
            for owner in (t.plain, t.lost):
                os.unlink(views.View.for_session(owner, owner.fmt, SESSION).path)
        elif n % 5 == 4:
            _lose(t.lost, "deleted" if n % 2 else "torn")
        data = t.hook(EventType.TURN_END)
    assert views.head_lines_of(data) > 1
