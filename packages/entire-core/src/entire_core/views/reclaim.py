"""A view that lost its metadata (deleted by hand, or torn) while the view itself is there: the metadata
read back from the view and the agent's native file, so that the view goes on exactly as it stands.

The CLI stored line numbers of the view and copies it whole at every TurnEnd: made anew, the view would
lose ``LEAD`` or its header and move every line the CLI counted. ``View.sync`` calls ``reclaim`` before
``Follower.catch_up`` would make a view anew for want of metadata.
"""

from __future__ import annotations

import os

from entire_core import offsets
from entire_core.views.follow import native_mark
from entire_core.views.format import HUGE_RECORD
from entire_core.views.wire import LEAD

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.views.follow import Follower


def reclaim(follower: Follower, native: str, start: int, upto: int | None) -> bool:
    """A view that is there without its metadata (deleted, or torn: ``ViewFile.load``): its metadata read
    back from the view and ``native``; False when there is no view to go on with (an empty one).

    The CLI stored line numbers of this view (a turn's start, ``checkpoint_transcript_start``) and copies
    it whole at every TurnEnd, so it goes on exactly as it stands, ``LEAD``, header, padding and all:
    each line of its body must be what ``append`` makes of the native line it stands for (line N the
    session's line N, N - 1 after ``LEAD``), read in order as ``append`` read them. Made anew instead, it
    would lose ``LEAD`` or its header and move every line the CLI counted. A view that does not match
    (the agent's file replaced, a view made anew after another) cannot go on exactly: the call fails,
    and every later one on this view, so that the CLI stores no checkpoint rather than another.
    Unknown afterwards: where the turn in progress started (``turn``), which only a view past its
    budget uses (``Fitter.fit``).
    """
    from entire_core.views.frames import frame_of, host_lines

    file = follower.file
    try:
        with open(file.path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return False
    size = data.rfind(b"\n") + 1
    if not size:
        return False  # nothing a line of the CLI's can point into
    pad = len(data) - size if not data[size:].strip() else 0  # else a line never committed: cut off
    lines = data[:size].split(b"\n")[:-1]
    lead = int(lines[0] == LEAD)
    frame = frame_of(data[:size])
    body = frame.body or lead
    # The body's first line stands for the session's line body - lead. A text format's reading state
    # there: as ``append`` left it reading on from the session's start, or anew (``rebuild`` copies
    # the lines after a header with none).
    found = None
    st: os.stat_result | None = None
    try:
        st = os.stat(native)
    except FileNotFoundError:
        if lines == [LEAD]:
            found = start, None  # (the agent has not written its file yet)
    if st is not None:
        for fed in (True, False) if follower.fmt.wrap and not follower.fmt.json_records else (False,):
            found = _matched(follower, native, start, lines[body:], body - lead, fed=fed)
            if found is not None:
                break
    if found is None:
        from entire_core.errors import AgentError

        raise AgentError(
            f"the view {file.path} lost its metadata and no longer matches {native}: "
            "made anew, it would move the lines the Entire CLI counted, so its checkpoints are left out"
        )
    native_end, state = found
    view = os.stat(file.path)
    m: dict[str, Any] = {
        "native": native, "native_start": start, "native_id": [st.st_dev, st.st_ino] if st else None,
        "native_end": native_end, "follow": upto is None, "turn": -1,
        "head_lines": frame.body, "head_bytes": offsets.line_start(data, frame.body),
        "view_id": [view.st_dev, view.st_ino], "view_size": size, "view_lines": host_lines(data[:size]),
        "pad": pad,
    }  # fmt: skip
    if lead:
        m["lead"] = 1
    if state is not None:
        m["wrap_state"] = state
    if frame.resume is not None:
        m["resume"] = frame.resume
    m["native_mark"] = native_mark(native, start, native_end)
    file.meta = m
    file.save()  # a torn file is replaced now, even when nothing new follows
    return True


def _matched(
    follower: Follower, native: str, start: int, body: list[bytes], skip: int, *, fed: bool
) -> tuple[int, Any] | None:
    """Where in ``native`` the view lines ``body`` end, and a text format's reading state there, when they
    are what ``append`` makes of the session's lines from line ``skip`` on (``fed``: reading from the
    session's start, else anew at ``skip``); None when they are not."""
    limit = follower.budget.record
    reads_text = follower.fmt.wrap and not follower.fmt.json_records
    follower.fmt.state = None
    begin = start if fed else offsets.line_start_in(native, start, skip)
    if not fed and offsets.count_newlines(native, start, begin) < skip:
        return None  # the file has fewer lines than the header stands for
    index, position, total = (0 if fed else skip), begin, skip + len(body)
    if index < total:
        end = offsets.complete_end(native)
        for line, stop in offsets.lines_between(native, begin, end, huge=HUGE_RECORD, cutter=follower.cutter):
            if index >= skip:
                made, expected = follower.line_for_view(line, limit), body[index - skip]
                if made != expected and follower.fitter.shrunk(made) != expected:
                    return None
            elif reads_text:  # before the body: read only for the state it leaves
                follower.line_for_view(line, limit)
            index, position = index + 1, stop
            if index == total:
                break
    if index < total:
        return None  # the file has fewer lines than the view
    return position, follower.fmt.state if reads_text else None
