"""The parts of ``entire_core.views`` that need no view: frames, budgets, names, marks, line counts.

Each against an obvious model, over every small input of the shapes that matter: a marker after blank
padding or after another line, markers that are no header, lines counted as the CLI counts them, the numbers the READMEs document (8 MiB, 1 MiB or an eighth, 4 KiB, 14 days).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest
from entire_core import paths, views
from entire_core.errors import InvalidInput
from entire_core.views import follow
from entire_core.views.header import Headers

# -- frames ----------------------------------------------------------------------------------------


def model_body(data: bytes) -> int:
    """Where the body starts: the marker line right after the first line and its blank padding."""
    lines = data.split(b"\n")
    i = 1
    while i < len(lines) - 1 and lines[i].strip(b"\r") == b"":
        i += 1
    if i >= len(lines) - 1 + (0 if data.endswith(b"\n") else 1) or i == 0:
        return 0
    line = lines[i].rstrip(b"\r")
    if not line.startswith(views.MARKER_PREFIX):
        return 0
    try:
        value = json.loads(line)
    except ValueError:
        return 0
    body = value.get("body")
    return body if isinstance(body, int) and not isinstance(body, bool) and body >= 2 else 0


FIRSTS = (b"", b"f", b"f\r", b'{"session": "s"}')
FILLERS = (b"", b"\r", b"x")


def markers() -> list[bytes]:
    return [views.marker(7), views.marker(7) + b"\r", views.marker(2, resume=3), views.marker(1),
            views.MARKER_PREFIX + b"x}", views.MARKER_PREFIX + b"7", b"x" + views.marker(7)]  # fmt: skip


def shapes() -> list[bytes]:
    """A first line, fillers, a marker line after them, a body; complete or not; a line alone."""
    found: list[bytes] = [*FIRSTS, *markers()]  # one line and no newline: no header, even a marker
    for first in FIRSTS:
        for filler, mark in itertools.product(FILLERS, markers()):
            for before in range(5):
                lines = [first, *[filler] * before, mark, b"body"]
                found.append(b"\n".join(lines) + b"\n")
                found.append(b"\n".join(lines[: before + 2]))  # the marker line without its newline
    return found


def test_the_body_s_start_is_read_from_the_marker_right_after_the_padding() -> None:
    for data in shapes():
        assert views.head_lines_of(data) == model_body(data), data
        assert views.frame_of(data).body == model_body(data), data


def test_the_cli_counts_lines_without_trailing_blank_ones() -> None:
    for data in [b"".join(p) for n in range(6) for p in itertools.product((b"a", b"\n", b"\r"), repeat=n)]:
        parts = data.split(b"\n")
        while parts and not parts[-1].strip(b"\r"):
            parts.pop()
        assert views.host_lines(data) == len(parts), data


def test_frame_lines_clamp_and_bytes_translate_both_ways() -> None:
    data = b"first\n\n" + views.marker(3) + b"\nbody\nmore\n"
    frame = views.frame_of(data, views.BYTES)
    assert (frame.body, frame.end) == (3, 5)
    assert [frame.local(n) for n in range(7)] == [data.index(b"\nbody") + 1] * 4 + [
        data.index(b"more"),
        len(data),
        len(data),
    ]
    assert [frame.position(b) for b in (0, 6, len(data))] == [0, 1, 5]
    plain = views.Frame()
    assert [plain.local(n) for n in (0, 3, 10**9)] == [0, 3, 10**9]  # no view: positions as they are


def test_a_bytes_agent_s_positions_translate_both_ways_when_its_file_starts_with_a_blank_line() -> None:
    """Without a header, line N is the byte after the Nth newline, and back: a first line of nothing included."""
    data = b"\nx\ny\n"
    frame = views.frame_of(data, views.BYTES)
    assert [frame.local(n) for n in range(5)] == [0, 1, 3, 5, 5]
    assert [frame.position(b) for b in (0, 1, 3, 5)] == [0, 1, 2, 3]


def test_an_offset_at_the_end_is_the_end_and_one_past_it_resumes_at_the_marker_s_line() -> None:
    """The marker's resume line (the turn a v1 view had in progress) is where offsets past the end go; an
    offset at the end reads nothing new and stays there. A resume line at the body's start counts too."""
    data = b"first\n" + views.marker(2, resume=3) + b"\nbody\nprompt\nreply\n"
    assert [views.frame_of(data).line(n) for n in (4, 5, 6, 10**6)] == [4, 5, 3, 3]
    data = b"first\n\n" + views.marker(3, resume=3) + b"\nbody\nprompt\n"
    assert [views.frame_of(data).line(n) for n in (3, 4, 5, 6)] == [3, 4, 5, 3]


def test_an_offset_past_a_view_that_ends_inside_its_header_is_the_end() -> None:
    """A header's last snapshot records may be blank lines, which the CLI does not count at the view's end:
    with no body yet, the view ends before its body starts. An offset past that end (one the CLI took from
    a longer copy) is the end, the body's start included."""
    data = b"first\n" + views.marker(4) + b"\nrecord\n\n"
    frame = views.frame_of(data)
    assert (frame.body, frame.end) == (4, 3)
    assert [frame.line(n) for n in (4, 5, 10**6)] == [3, 3, 3]


def usage(n: int) -> dict[str, int]:
    return {"input_tokens": n, "cache_creation_tokens": 0, "cache_read_tokens": 0, "output_tokens": n,
            "api_call_count": 1}  # fmt: skip


def test_a_count_from_a_start_a_re_base_cut_away_carries_the_usage_the_marker_kept() -> None:
    """``calculate-tokens`` from the CLI's stored start (the marker's ``from``) or before it adds what the
    re-base dropped after that start (``tokens``; ``total`` for ``calculate-total-tokens``); from a later
    offset it adds nothing: the lines after ``from`` that were cut are not the CLI's to count again."""
    cut = {"from": 1, "tokens": usage(5), "total": usage(7)}
    frame = views.frame_of(b"first\n\n" + views.marker(4, cut=cut) + b"\nrecord\nbody\n")
    carried = [frame.carried(n) for n in range(6)]
    assert [c.to_wire() if c else None for c in carried] == [usage(5), usage(5), None, None, None, None]
    total = [frame.carried(n, total=True) for n in range(3)]
    assert [c.to_wire() if c else None for c in total] == [usage(7), usage(7), None]


def test_a_marker_s_cut_counts_only_from_a_start_inside_the_header() -> None:
    """The usage a marker carries is of lines cut away after the CLI's stored start: a start at the body
    or past it (no line of the header after it) or a cut without both counts is no cut."""
    for start, kept in [(0, True), (3, True), (4, False), (9, False), (-1, False)]:
        cut = {"from": start, "tokens": usage(5), "total": usage(7)}
        frame = views.frame_of(b"first\n\n" + views.marker(4, cut=cut) + b"\nrecord\nbody\n")
        assert (frame.carried(0) is not None) == kept, start
    frame = views.frame_of(b"first\n" + views.marker(2, cut={"from": 0, "tokens": usage(5)}) + b"\nbody\n")
    assert frame.carried(0) is None


# -- the wire --------------------------------------------------------------------------------------


class Said(views.ViewFormat):
    """A wrapped format: ``{"who": "me"|"it", "say": ...}`` records are user and assistant turns; an
    assistant's message carries its ``id``; every value ``record`` is asked about is kept in ``asked``."""

    wrap = True

    def __init__(self) -> None:
        self.asked: list[object] = []

    def record(self, value: Any) -> tuple[str, list[dict[str, Any]], str | None] | None:
        self.asked.append(value)
        who = value.get("who") if isinstance(value, dict) else None
        kind = {"me": "user", "it": "assistant"}.get(str(who), "native")
        said = value.get("say") if isinstance(value, dict) else None
        return kind, [{"type": "text", "text": said}] if said else [], None

    def message_extra(self, value: Any) -> dict[str, Any]:
        return {"id": value["id"]} if isinstance(value, dict) and "id" in value else {}


def wrapped(fmt: views.ViewFormat, line: bytes, kind: str | None = None) -> dict[str, Any]:
    return json.loads(views.wrap(fmt, line, kind=kind))


def test_a_line_that_is_no_json_is_carried_as_text_and_never_mapped() -> None:
    """``record`` is given parsed JSON records only: a blank line or one that does not parse is a native
    record carried as its text."""
    fmt = Said()
    for line in (b"", b"  ", b"not json", b'{"who": "me", "say": '):
        assert wrapped(fmt, line) == {"type": "native", "native_text": line.decode()}, line
    assert fmt.asked == []


def test_a_record_too_deep_to_write_again_is_carried_as_its_text() -> None:
    """A record that parses but is nested too deep to serialise again is still carried losslessly."""
    line = b"[" * 500 + b"]" * 500
    assert views.unwrap(views.wrap(Said(), line)) == line


def test_user_and_assistant_records_are_messages_unless_wrapped_as_native() -> None:
    """A user or assistant record with content is a message the compactor reads, an assistant's with the
    format's extra keys; the same record in a snapshot (``kind="native"``) or one with no content is
    native, which the compactor skips."""
    fmt = Said()
    me, it = b'{"who":"me","say":"hi","id":"u1"}', b'{"who":"it","say":"yes","id":"a1"}'
    assert wrapped(fmt, me)["message"] == {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    assert wrapped(fmt, it)["message"] == {"role": "assistant", "content": [{"type": "text", "text": "yes"}],
                                           "id": "a1"}  # fmt: skip
    for line, kind in [(me, "native"), (it, "native"), (b'{"who":"me"}', None), (b'{"who":"it"}', None)]:
        record = wrapped(fmt, line, kind)
        assert record["type"] == "native" and "message" not in record, (line, kind)
        assert views.unwrap(views.wrap(fmt, line, kind=kind)) == line


def test_a_line_with_a_native_b64_that_is_not_base64_is_no_wrapped_record() -> None:
    """Base64 with characters outside its alphabet was not written by ``wrap``: the line is returned as
    it is, as any line that is not a wrapped record."""
    assert views.unwrap(b'{"type":"native","native_b64":"aGk="}') == b"hi"
    for line in (b'{"type":"native","native_b64":"aGk=!"}', b'{"native_b64":"a Gk="}'):
        assert views.unwrap(line) == line


def test_the_agent_s_lines_are_read_out_of_a_view_without_the_view_s_own() -> None:
    """``native_lines``: the agent's own lines, the header's padding, marker and ``LEAD`` left out;
    ``lines_as_native``: one for each view line, the view's own as empty lines."""
    fmt = Said()
    view = [views.LEAD, views.wrap(fmt, b"first"), b"", views.marker(4), views.wrap(fmt, b'{"who":"me"}')]
    assert list(views.native_lines(view, wrapped=True)) == [b"first", b'{"who":"me"}']
    assert list(views.lines_as_native(view)) == [b"", b"first", b"", b"", b'{"who":"me"}']
    plain = [b"first", b"", b"  ", views.marker(5), b"snapshot", b"body", views.LEAD]
    assert list(views.native_lines(plain, wrapped=False)) == [b"first", b"snapshot", b"body"]


def test_the_agent_s_file_is_restored_whole_from_a_view() -> None:
    """``write-session``: every line of the agent's is restored, blank ones included (its first line and the
    body's), a last line without its newline as it is, and a mirror (bytes that are no wrapped view) as it is."""
    header = b"\n\n" + views.marker(3) + b"\n"
    assert views.native_bytes(header + b"\nbody\n\nend", wrapped=False) == b"\n\nbody\n\nend"
    fmt = Said()
    view = views.wrap(fmt, b"first") + b"\n" + views.wrap(fmt, b"") + b"\n" + views.wrap(fmt, b"last")
    assert views.native_bytes(view, wrapped=True) == b"first\n\nlast"
    for mirror in (b"", b"a\n\nb\n", b"[\n]"):
        assert views.native_bytes(mirror, wrapped=True) == mirror


# -- budgets ---------------------------------------------------------------------------------------


def budget(**env: str) -> tuple[int, int]:
    names = {"total": views.BUDGET_ENV, "record": views.RECORD_BUDGET_ENV}
    found = views.Budget({names[k]: v for k, v in env.items()})
    return found.total, found.record


def test_budgets_default_to_8_mib_and_a_record_to_1_mib_or_an_eighth() -> None:
    assert budget() == (8 << 20, 1 << 20)
    assert budget(total=str(16 << 20)) == (16 << 20, 1 << 20)
    assert budget(total="80000") == (80000, 10000)
    assert budget(total="80000", record="70000") == (80000, 70000)  # as asked, even over an eighth


def test_budgets_have_a_floor_of_4_kib_and_a_record_one_of_1_kib() -> None:
    assert budget(total="1") == (4096, 1024)
    assert budget(total="4095") == (4096, 1024)
    assert budget(total="4097") == (4097, 1024)
    assert budget(total="9000") == (9000, 1125)
    assert budget(record="1") == (8 << 20, 1024)
    assert budget(record="1023") == (8 << 20, 1024)
    assert budget(record="1025") == (8 << 20, 1025)


def test_a_budget_of_zero_or_less_or_blank_is_the_default() -> None:
    for value in ("0", "-5", "", "  "):
        assert budget(total=value, record=value) == (8 << 20, 1 << 20), value
    assert budget(total=" 5000 ") == (5000, 1024)
    with pytest.raises(InvalidInput, match="ENTIRE_VIEW_BUDGET must be a number of bytes, got '8M'"):
        views.Budget({views.BUDGET_ENV: "8M"})


# -- headers ---------------------------------------------------------------------------------------


def test_a_header_short_of_room_keeps_the_newest_records_after_the_leading_ones_its_format_names() -> None:
    """Five lines: the first, the marker and three of the four snapshot records (no padding left)."""

    class KeepsTwo(views.ViewFormat):
        snapshot_keep_first = 2

    records = [b"r1", b"r2", b"r3", b"r4"]
    for fmt, kept in [(views.ViewFormat(), [b"r2", b"r3", b"r4"]), (KeepsTwo(), [b"r1", b"r2", b"r4"])]:
        headers = Headers(fmt, views.Budget({}), "/views/s.jsonl", "sample")
        short, roomy = (headers.laid_out(n, b"first", records, wrapped_first=False) for n in (5, 8))
        assert short == [b"first", views.marker(5), *kept]
        assert roomy == [b"first", b"", b"", views.marker(8), *records]  # room for all: padding first


# -- where views live ------------------------------------------------------------------------------


def test_views_live_in_the_state_directory_named_by_the_repository_s_real_path(tmp_path: Path) -> None:
    """The CLI records view paths in its checkpoints: the name must stay the same from release to release."""
    state = tmp_path / "state"
    env = {"XDG_STATE_HOME": str(state), "HOME": str(tmp_path / "home")}
    for name, shown in [("My repo.v2-x_y", "My_repo.v2-x_y"), ("ä b", "ä_b"), ("n" * 50, "n" * 40)]:
        repo = tmp_path / name
        repo.mkdir(parents=True)
        link = tmp_path / f"link-{len(name)}"
        link.symlink_to(repo)
        real = os.path.realpath(repo)
        digest = hashlib.sha256(real.encode()).hexdigest()[:16]
        expected = state / "entire-agent-a" / "views" / f"{shown}-{digest}"
        assert views.views_dir(env, "a", str(link)) == str(expected)
    assert paths.state_dir({"HOME": str(tmp_path)}, "a") == str(tmp_path / ".local/state/entire-agent-a")


# -- marks -----------------------------------------------------------------------------------------


def fingerprint(data: bytes) -> int:
    """``data`` as a big-endian number after a 1 byte, modulo the Mersenne prime 2**61 - 1."""
    return int.from_bytes(b"\x01" + data, "big") % (2**61 - 1)


def test_a_native_mark_is_the_fingerprint_of_its_first_and_last_4_kib(tmp_path: Path) -> None:
    """Marks are stored in the view's metadata: a view written now must be followed on after an upgrade."""
    path = tmp_path / "native"
    data = bytes(range(256)) * 40 + b"\x00" * 300  # over two windows, and a last window of zeros
    path.write_bytes(data + b"beyond the end")
    for start, end in [(0, 0), (0, 1), (0, 4095), (0, 4096), (0, 4097), (0, 8192), (0, 8193), (7, 9000),
                       (300, 4000), (300, 4396), (300, 4397), (5000, len(data))]:  # fmt: skip
        head = data[start : start + min(4096, end - start)]
        tail = data[max(start, end - 4096) : end]
        expected = f"{end}:{fingerprint(head):016x}:{fingerprint(tail):016x}"
        assert follow.native_mark(str(path), start, end) == expected, (start, end)
    assert follow.native_mark(str(tmp_path / "none"), 0, 10) == ""


def test_a_fingerprint_tells_apart_blocks_that_differ_anywhere() -> None:
    block = bytes(range(256)) * 16
    changed = [block[:i] + bytes([block[i] ^ 1]) + block[i + 1 :] for i in (0, 1, 100, 2048, 4094, 4095)]
    prints = {follow._fingerprint(b) for b in [block, *changed, b"", b"\x00", b"\x00\x00"]}  # pyright: ignore[reportPrivateUsage]
    assert len(prints) == 10
