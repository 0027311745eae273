"""The parts of ``entire_core.views`` that need no view: frames, budgets, names, marks, line counts.

Each against an obvious model, over every small input of the shapes that matter: a tag on each of the
first lines, an empty or ``\\r``-ended line before it, a tag at a line's start, a base of 20 and of 21
digits, the numbers the READMEs document (8 MiB, 1 MiB or an eighth, 4 KiB, 14 days).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import zlib
from pathlib import Path

import pytest
from entire_core import paths, views
from entire_core.errors import InvalidInput

# -- frames ----------------------------------------------------------------------------------------


def crc(first: bytes) -> bytes:
    return b"%08x" % (zlib.crc32(first.removesuffix(b"\r")) & 0xFFFFFFFF)


def model_frame(data: bytes, unit: str, lines: int) -> tuple[int, int, int]:
    """``(base, head_bytes, head_units)``: the first of the first ``lines`` complete lines whose first
    tag names a base of at most 20 digits and the checksum of the file's first line; (0, 0, 0) if none."""
    if views.TAG_PREFIX not in data:
        return (0, 0, 0)
    *complete, _ = data.split(b"\n")
    first = data.split(b"\n")[0]
    head = 0
    for number, line in enumerate(complete[:lines]):
        head += len(line) + 1
        at = line.find(views.TAG_PREFIX)
        if at < 0:
            continue
        base, _, check = line[at + len(views.TAG_PREFIX) :].partition(b":")
        if base.isdigit() and len(base) <= 20 and check[:8] == crc(first):
            return (int(base), head, head if unit == views.BYTES else number + 1)
    return (0, 0, 0)


FIRSTS = (b"", b"f", b"f\r", b'{"session": "s"}')
FILLERS = (b"", b"x", b"x\r")


def tags(first: bytes) -> list[bytes]:
    """Tag lines for a file whose first line is ``first``: good ones, and each way of being no tag."""
    good = views.make_tag(123, first.removesuffix(b"\r")).encode()
    prefix = views.TAG_PREFIX
    return [
        good,  # at the line's start
        b'{"tag": "' + good + b'"}',
        b"x" + good + b"\r",
        prefix + b"9" * 20 + b":" + crc(first),  # the longest base
        prefix + b"9" * 21 + b":" + crc(first),  # too long to be one
        prefix + b"12:" + b"%08x" % ((int(crc(first), 16) + 1) & 0xFFFFFFFF),  # another line's check
        prefix + b"1x:" + crc(first),  # not a number
        prefix + b"12" + crc(first),  # no colon
        prefix + b"bad " + good,  # the line's first tag is the one read
    ]


def shapes() -> list[bytes]:
    """A first line, fillers, a tag line at each of the first ten lines, a body; complete or not."""
    found: list[bytes] = []
    for first in FIRSTS:
        for filler, tag in itertools.product(FILLERS, tags(first)):
            for before in range(10):
                lines = [first, *[filler] * before, tag, b"body"]
                found.append(b"\n".join(lines) + b"\n")
                found.append(b"\n".join(lines[: before + 2]))  # the tag line without its newline
    return found


def test_frame_of_finds_the_tag_exactly_where_the_model_does() -> None:
    found = 0
    for data in shapes():
        for unit in (views.BYTES, views.LINES):
            for lines in range(1, 11):
                frame = views.frame_of(data, unit, lines)
                assert (frame.base, frame.head_bytes, frame.head_units) == model_frame(data, unit, lines), (
                    data,
                    unit,
                    lines,
                )
                found += frame.head_bytes > 0
            # By default the tag is looked for in the first 8 lines (a header is a few records long).
            frame = views.frame_of(data, unit)
            assert (frame.base, frame.head_bytes, frame.head_units) == model_frame(data, unit, 8), data
    assert found > 1000  # the shapes do hold tags


def test_frame_of_file_reads_the_same_frame_from_the_first_lines(tmp_path: Path) -> None:
    path = tmp_path / "view.jsonl"
    for shape in shapes()[::17]:
        data = shape + b"more\n" * 3
        path.write_bytes(data)
        for unit in (views.BYTES, views.LINES):
            frame = views.frame_of_file(str(path), unit)
            assert (frame.base, frame.head_bytes, frame.head_units) == model_frame(data, unit, 8), data
            frame = views.frame_of_file(str(path), unit, 3)
            assert (frame.base, frame.head_bytes, frame.head_units) == model_frame(data, unit, 3), data
    for missing in (tmp_path / "none", tmp_path, path / "under-a-file"):
        frame = views.frame_of_file(str(missing), views.BYTES)
        assert (frame.base, frame.head_bytes, frame.head_units) == (0, 0, 0)


def test_a_file_without_a_frame_has_its_positions_as_they_are() -> None:
    frame = views.Frame()
    assert (frame.base, frame.head_bytes, frame.head_units) == (0, 0, 0)
    assert [frame.local(p) for p in range(4)] == [0, 1, 2, 3]
    assert [frame.position(p) for p in range(4)] == [0, 1, 2, 3]


def test_frame_positions_translate_both_ways_and_older_ones_land_at_the_body() -> None:
    frame = views.Frame(100, 40, 3)
    assert [frame.local(p) for p in (0, 99, 100, 101, 150)] == [3, 3, 3, 4, 53]
    assert [frame.position(p) for p in (0, 2, 3, 4, 53)] == [100, 100, 100, 101, 150]
    assert all(frame.position(frame.local(p)) == p for p in range(100, 200))


def test_a_tag_names_its_base_and_the_checksum_of_the_first_line() -> None:
    assert views.make_tag(0, b"") == "entire-view:v1:0:00000000"
    assert views.make_tag(42, b"first") == f"entire-view:v1:42:{zlib.crc32(b'first'):08x}"


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
        assert views._mark(str(path), start, end) == expected, (start, end)  # pyright: ignore[reportPrivateUsage]
    assert views._mark(str(tmp_path / "none"), 0, 10) == ""  # pyright: ignore[reportPrivateUsage]


def test_a_fingerprint_tells_apart_blocks_that_differ_anywhere() -> None:
    block = bytes(range(256)) * 16
    changed = [block[:i] + bytes([block[i] ^ 1]) + block[i + 1 :] for i in (0, 1, 100, 2048, 4094, 4095)]
    prints = {views._fingerprint(b) for b in [block, *changed, b"", b"\x00", b"\x00\x00"]}  # pyright: ignore[reportPrivateUsage]
    assert len(prints) == 10


# -- counting lines --------------------------------------------------------------------------------

FILES = [b"".join(p) for n in range(6) for p in itertools.product((b"a", b"\n"), repeat=n)]


def test_units_between_counts_the_newlines_of_a_range_at_every_block_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t"
    units_between = views._units_between  # pyright: ignore[reportPrivateUsage]
    big = b"ab\n" * ((1 << 20) // 3 + 5)  # over one real block
    path.write_bytes(big)
    for begin, end in [(0, len(big)), (5, len(big) - 1), (len(big) - 4, len(big) + 2), (7, 7)]:
        assert units_between(str(path), begin, end, views.LINES) == big[begin:end].count(b"\n")
        assert units_between(str(path), begin, end, views.BYTES) == end - begin
    for block in (1, 2, 3):
        monkeypatch.setattr(views, "_BLOCK", block)
        for data in FILES:
            path.write_bytes(data)
            for begin in range(len(data) + 1):
                for end in range(begin, len(data) + 3):  # past the end too: the file is shorter than asked
                    count = units_between(str(path), begin, end, views.LINES)
                    assert count == data[begin:end].count(b"\n"), (data, block, begin, end)


def test_the_first_line_is_read_whole_up_to_64_mib_only(tmp_path: Path) -> None:
    """The header restates the session's first line; a longer one is never held in memory."""
    path = tmp_path / "t"
    path.write_bytes(b"skip\nfirst\r\nsecond\npartial")
    first_line = views._first_line  # pyright: ignore[reportPrivateUsage]
    assert first_line(str(path), 0) == b"skip\n"
    assert first_line(str(path), 5) == b"first\r\n"
    assert first_line(str(path), 12) == b"second\n"
    assert first_line(str(path), 19) is None
    assert first_line(str(tmp_path / "none"), 0) is None
    for size, whole in [((64 << 20) - 1, True), (64 << 20, False)]:
        with path.open("wb") as f:  # sparse: 64 MiB of zeros, then a newline
            f.seek(size)
            f.write(b"\n")
        line = first_line(str(path), 0)
        assert (line is not None and len(line) == size + 1) if whole else line is None
