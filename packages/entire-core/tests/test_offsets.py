"""Incremental line reading over append-only files."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from entire_core import offsets
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(pieces=st.lists(st.binary(max_size=50).map(lambda b: b.replace(b"\r", b"")), max_size=25))
def test_reading_as_the_file_grows_sees_every_line_once(tmp_path: Path, pieces: list[bytes]) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"")
    seen: list[bytes] = []
    offset = 0
    for piece in pieces:
        with path.open("ab") as f:
            f.write(piece)
        lines, offset = offsets.read_lines(str(path), offset)
        seen += lines
        assert offset == offsets.complete_end(str(path))
    content = path.read_bytes()
    complete = content[: content.rfind(b"\n") + 1]
    assert seen == complete.split(b"\n")[:-1]


def test_partial_last_line_is_left_for_later(tmp_path: Path) -> None:
    path = tmp_path / "t"
    path.write_bytes(b"one\ntwo\nthr")
    lines, offset = offsets.read_lines(str(path), 0)
    assert (lines, offset) == ([b"one", b"two"], 8)
    path.write_bytes(b"one\ntwo\nthree\r\n")
    assert offsets.read_lines(str(path), offset) == ([b"three"], 15)


def test_missing_file(tmp_path: Path) -> None:
    assert offsets.read_lines(str(tmp_path / "nope"), 10) == ([], 0)
    assert offsets.complete_end(str(tmp_path / "nope")) == 0


@pytest.mark.parametrize("restart", [False, True])
def test_offset_past_the_end_means_the_file_was_replaced(tmp_path: Path, restart: bool) -> None:
    path = tmp_path / "t"
    path.write_bytes(b"a\nb\n")
    reader = offsets.LineReader(str(path), 999, restart=restart)
    lines = list(reader)
    assert reader.reset
    assert (lines, reader.offset) == (([b"a", b"b"], 4) if restart else ([], 4))


@pytest.mark.parametrize("restart", [False, True])
def test_offset_inside_a_line_means_the_file_was_rewritten(tmp_path: Path, restart: bool) -> None:
    path = tmp_path / "t"
    path.write_bytes(b"xxxxxxxx\nnew\n")
    lines, offset = offsets.read_lines(str(path), 4, restart=restart)
    assert (lines, offset) == (([b"xxxxxxxx", b"new"], 13) if restart else ([], 13))


def test_complete_end_finds_the_last_newline_across_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(offsets, "_BLOCK", 4)
    path = tmp_path / "t"
    path.write_bytes(b"ab\n" + b"c" * 17)
    assert offsets.complete_end(str(path)) == 3
    path.write_bytes(b"c" * 17)
    assert offsets.complete_end(str(path)) == 0


def test_cost_is_the_new_bytes_not_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 99 + b"\n" * 1 + (b"y" * 99 + b"\n") * 20_000 + b"tail\n")
    size = path.stat().st_size
    read_bytes = 0
    real_open = open

    class Counting:
        def __init__(self, f: object) -> None:
            self.f = f

        def __getattr__(self, name: str) -> object:
            return getattr(self.f, name)

        def read(self, n: int = -1) -> bytes:
            nonlocal read_bytes
            data: bytes = self.f.read(n)  # type: ignore[attr-defined]
            read_bytes += len(data)
            return data

        def __enter__(self) -> Counting:
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.close()  # type: ignore[attr-defined]

    monkeypatch.setattr(offsets, "open", lambda *a, **k: Counting(real_open(*a, **k)), raising=False)  # type: ignore[misc]
    lines, offset = offsets.read_lines(str(path), size - 5)
    assert (lines, offset) == ([b"tail"], size)
    assert read_bytes <= 6  # the byte before the offset, then the new line
    read_bytes = 0
    assert offsets.complete_end(str(path)) == size
    assert read_bytes <= 1 << 20


def test_lines_after_in_memory() -> None:
    data = b"a\nb\r\nc"
    assert offsets.lines_after(data, 0) == [b"a", b"b"]
    assert offsets.lines_after(data, 2) == [b"b"]
    assert offsets.lines_after(data, 1) == []  # inside a line: the transcript was replaced
    assert offsets.lines_after(data, 99) == []


@pytest.mark.parametrize("block", [1, 3, 64])
def test_reverse_lines(tmp_path: Path, block: int) -> None:
    path = tmp_path / "t"
    path.write_bytes(b"first\n\nsecond\r\nthird\npartial")
    assert list(offsets.reverse_lines(str(path), block)) == [b"third", b"second", b"first"]
    path.write_bytes(b"only partial")
    assert list(offsets.reverse_lines(str(path), block)) == []
    assert list(offsets.reverse_lines(str(tmp_path / "missing"), block)) == []


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=60)
@given(
    lines=st.lists(
        st.binary(min_size=1, max_size=20).filter(lambda b: b"\n" not in b and b.strip()), max_size=20
    )
)
def test_reverse_lines_matches_forward_reading(tmp_path: Path, lines: list[bytes]) -> None:
    lines = [line.rstrip(b"\r") for line in lines if line.rstrip(b"\r").strip()]
    path = tmp_path / "r"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    assert list(offsets.reverse_lines(str(path), 7)) == lines[::-1]


def test_count_lines(tmp_path: Path) -> None:
    path = tmp_path / "t"
    path.write_bytes(b"a\nbb\nccc")
    assert offsets.count_lines(str(path)) == (2, 5)
    assert offsets.count_lines(str(tmp_path / "missing")) == (0, 0)


def test_line_positions_are_trusted_only_for_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\ntwo\n")
    positions = offsets.LinePositions(str(tmp_path / "positions.json"))
    assert positions.byte_of(str(path), 2) is None
    positions.remember(str(path), 2, 8)
    with path.open("ab") as f:
        f.write(b"three\n")
    assert positions.byte_of(str(path), 2) == 8  # appended to: still true
    assert positions.byte_of(str(path), 3) is None  # never remembered
    path.write_bytes(b"xxxxxxxxxxxxx\n")  # rewritten in place: no newline before byte 8 any more
    assert positions.byte_of(str(path), 2) is None
    replaced = tmp_path / "new.jsonl"
    replaced.write_bytes(b"one\ntwo\nthree\n")
    replaced.replace(path)  # another file (inode) under the same name
    assert positions.byte_of(str(path), 2) is None
    positions.remember(str(path), 2, 8)
    assert positions.byte_of(str(path), 2) == 8
    (tmp_path / "positions.json").write_text("not json")
    assert positions.byte_of(str(path), 2) is None


def test_line_positions_are_not_rewritten_for_the_newest_mark_again(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\ntwo\n")
    store = tmp_path / "positions.json"
    positions = offsets.LinePositions(str(store))
    positions.remember(str(path), 2, 8)
    written = store.stat().st_ino
    positions.remember(str(path), 2, 8)  # a position asked for again on an unchanged file
    assert store.stat().st_ino == written
    positions.remember(str(path), 1, 4)
    assert store.stat().st_ino != written  # a new mark is written (atomically: a new file)
    assert (positions.byte_of(str(path), 1), positions.byte_of(str(path), 2)) == (4, 8)


def test_a_store_holding_what_answers_never_do_is_still_written(tmp_path: Path) -> None:
    # A float (someone edited the store) is not the hot answers' JSON, but a cache must not fail a hook.
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\ntwo\n")
    store = tmp_path / "positions.json"
    store.write_text('{"/elsewhere": {"file": [1, 2], "marks": [[1, 2.5]]}}')
    positions = offsets.LinePositions(str(store))
    positions.remember(str(path), 2, 8)
    assert positions.byte_of(str(path), 2) == 8
    assert json.loads(store.read_text())["/elsewhere"]["marks"] == [[1, 2.5]]


def test_line_starts_and_the_last_line_holding_a_needle(tmp_path: Path) -> None:
    from entire_core import offsets

    path = tmp_path / "t.jsonl"
    lines = [b'{"a": 1}', b'{"type": "mark", "n": 1}', b"x" * 3_000_000, b'{"type": "mark", "n": 2}', b"tail"]
    path.write_bytes(b"\n".join(lines) + b"\n")
    starts = [sum(len(line) + 1 for line in lines[:i]) for i in range(len(lines) + 1)]
    assert [offsets.line_start_after(str(path), at) for at in (0, 1, starts[1], starts[2] + 5)] == [
        0,
        starts[1],
        starts[1],  # already a line start
        starts[3],
    ]
    assert offsets.complete_end(str(path), starts[3] + 2) == starts[3]
    found = offsets.last_line_with(str(path), b'"mark"', starts[5], 0)
    assert found == starts[3]
    assert offsets.last_line_with(str(path), b'"mark"', starts[3], 0) == starts[1]  # across a 3 MB line
    assert (
        offsets.last_line_with(str(path), b'"mark"', starts[5], 0, lambda line: b'"n": 1' in line)
        == starts[1]
    )
    assert offsets.last_line_with(str(path), b'"mark"', starts[5], starts[4]) is None
    assert [(line, stop) for line, stop in offsets.lines_between(str(path), starts[3], starts[5])] == [
        (lines[3], starts[4]),
        (lines[4], starts[5]),
    ]


def test_line_positions_keep_the_newest_sixteen_marks(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"x\n" * 30)
    positions = offsets.LinePositions(str(tmp_path / "positions.json"))
    for lines in range(1, 21):
        positions.remember(str(path), lines, 2 * lines)
    known = [lines for lines in range(1, 21) if positions.byte_of(str(path), lines) == 2 * lines]
    assert known == list(range(5, 21))
    positions.remember(str(path), 5, 10)  # asked again: moves to the newest, still sixteen distinct marks
    positions.remember(str(path), 21, 42)
    known = [lines for lines in range(1, 22) if positions.byte_of(str(path), lines) is not None]
    assert known == [5, *range(7, 22)]


def test_a_mark_remembered_again_replaces_itself_and_costs_no_other(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"x\n" * 20)
    positions = offsets.LinePositions(str(tmp_path / "positions.json"))
    for lines in range(1, 17):
        positions.remember(str(path), lines, 2 * lines)
    positions.remember(str(path), 2, 4)  # not the newest: it moves there, and the oldest, 1, stays
    assert [n for n in range(1, 17) if positions.byte_of(str(path), n) == 2 * n] == list(range(1, 17))


def test_line_positions_skip_the_rewrite_only_for_the_newest_mark(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\ntwo\n")
    store = tmp_path / "positions.json"
    positions = offsets.LinePositions(str(store))
    positions.remember(str(path), 1, 4)
    positions.remember(str(path), 2, 8)
    written = store.stat().st_ino
    positions.remember(str(path), 2, 8)
    assert store.stat().st_ino == written
    positions.remember(str(path), 1, 4)  # known, but not the newest: written as the newest
    assert store.stat().st_ino != written


def test_marks_of_a_replaced_file_are_forgotten(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\ntwo\n")
    positions = offsets.LinePositions(str(tmp_path / "positions.json"))
    positions.remember(str(path), 1, 4)
    replaced = tmp_path / "new.jsonl"
    replaced.write_bytes(b"a\nb\ncc\n")  # byte 4 follows a newline here too, but ends line 2, not 1
    replaced.replace(path)
    positions.remember(str(path), 3, 7)
    assert positions.byte_of(str(path), 1) is None
    assert positions.byte_of(str(path), 3) == 7


def test_line_end_counts_from_the_nearest_true_mark_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"a\nbb\nccc\ndddd\ntail")
    store = tmp_path / "positions.json"
    positions = offsets.LinePositions(str(store))
    assert [positions.line_end(str(path), n) for n in range(6)] == [0, 2, 5, 9, 14, None]  # no mark: counted
    assert not store.exists()  # a reader leaves no store behind (issue 37)
    positions.remember(str(path), 1, 5)  # a wrong mark, trusted (a newline precedes byte 5): it is used
    positions.remember(str(path), 3, 9)
    written = store.read_bytes(), store.stat().st_mtime_ns
    assert [positions.line_end(str(path), n) for n in range(6)] == [0, 5, 9, 9, 14, None]
    assert (store.read_bytes(), store.stat().st_mtime_ns) == written
    positions.remember(str(path), 2, 4)  # no newline before byte 4: the mark below it counts instead
    assert positions.line_end(str(path), 2) == 9
    replaced = tmp_path / "new.jsonl"
    replaced.write_bytes(path.read_bytes())
    replaced.replace(path)  # another file: no mark of the old one holds
    assert [positions.line_end(str(path), n) for n in range(6)] == [0, 2, 5, 9, 14, None]
    assert positions.line_end(str(tmp_path / "missing"), 1) is None


def test_line_positions_at_the_first_bytes(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"ab\n")
    positions = offsets.LinePositions(str(tmp_path / "positions.json"))
    positions.remember(str(path), 0, 0)
    assert positions.byte_of(str(path), 0) == 0  # the start of the file needs no newline before it
    positions.remember(str(path), 1, 1)  # wrong: byte 1 follows "a", not a newline
    assert positions.byte_of(str(path), 1) is None


# -- counting lines and reading one ----------------------------------------------------------------------

FILES = [b"".join(p) for n in range(6) for p in itertools.product((b"a", b"\n"), repeat=n)]


def test_count_newlines_line_start_in_and_line_end_agree_with_a_split_at_every_block_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t"
    for block in (1, 2, 3, 1 << 20):
        monkeypatch.setattr(offsets, "_BLOCK", block)
        for data in FILES:
            path.write_bytes(data)
            for begin in range(len(data) + 1):
                for end in range(begin, len(data) + 3):  # past the end too: the file is shorter than asked
                    assert offsets.count_newlines(str(path), begin, end) == data[begin:end].count(b"\n"), (
                        data,
                        block,
                    )
            starts = [0] + [i + 1 for i, c in enumerate(data) if c == 10]
            positions = offsets.LinePositions(str(tmp_path / "none.json"))
            for line in range(len(starts) + 2):
                want = starts[line] if line < len(starts) else len(data)
                assert offsets.line_start_in(str(path), 0, line) == want, (data, block, line)
                exact = starts[line] if line < len(starts) else None  # line_end: None past the last line
                assert positions.line_end(str(path), line) == exact, (data, block, line)


def test_the_first_line_is_read_whole_up_to_64_mib_only(tmp_path: Path) -> None:
    """The header restates the session's first line; a longer one is never held in memory."""
    path = tmp_path / "t"
    path.write_bytes(b"skip\nfirst\r\nsecond\npartial")

    assert offsets.line_at(str(path), 0) == b"skip\n"
    assert offsets.line_at(str(path), 5) == b"first\r\n"
    assert offsets.line_at(str(path), 12) == b"second\n"
    assert offsets.line_at(str(path), 19) is None
    assert offsets.line_at(str(tmp_path / "none"), 0) is None
    for size, whole in [((64 << 20) - 1, True), (64 << 20, False)]:
        with path.open("wb") as f:  # sparse: 64 MiB of zeros, then a newline
            f.seek(size)
            f.write(b"\n")
        line = offsets.line_at(str(path), 0)
        assert (line is not None and len(line) == size + 1) if whole else line is None


def test_read_all_is_empty_for_what_is_no_file(tmp_path: Path) -> None:
    from entire_core.offsets import read_all

    (tmp_path / "f").write_bytes(b"a\nb")
    assert read_all(str(tmp_path / "f")) == b"a\nb"
    assert read_all(str(tmp_path / "missing")) == b""
    assert read_all(str(tmp_path)) == b""
    assert read_all(str(tmp_path / "f" / "below")) == b""


def test_line_start_is_the_byte_each_line_starts_at_and_the_length_past_the_last() -> None:
    data = b"a\nbb\n\nccc"
    assert [offsets.line_start(data, n) for n in range(-1, 6)] == [0, 0, 2, 5, 6, 9, 9]
    # a first line that is empty: line 1 starts at byte 1, and there is no line 2
    assert [offsets.line_start(b"\nx", n) for n in range(3)] == [0, 1, 2]


def test_lines_from_gives_the_complete_lines_from_a_line_on_and_how_many_there_are(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"one\r\ntwo\nthree\npartial")
    assert offsets.lines_from(str(path), 0) == ([b"one", b"two", b"three"], 3)
    assert offsets.lines_from(str(path), -2) == ([b"one", b"two", b"three"], 3)
    assert offsets.lines_from(str(path), 2) == ([b"three"], 3)
    assert offsets.lines_from(str(tmp_path / "not-there.jsonl"), 0) == ([], 0)


def test_line_start_in_takes_line_0_as_its_begin_without_opening_the_file(tmp_path: Path) -> None:
    assert offsets.line_start_in(str(tmp_path / "not-there.jsonl"), 7, 0) == 7


def test_a_mark_is_trusted_from_the_first_byte_on_and_never_for_line_0(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\nab\ncd\n")
    positions = offsets.LinePositions(str(tmp_path / "positions.json"))
    positions.remember(str(path), 1, 1)  # line 1 ends at byte 1: the file starts with an empty line
    assert positions.byte_of(str(path), 1) == 1
    positions.remember(str(path), 0, 4)  # a byte for line 0 other than 0, a newline before it: never so
    assert positions.byte_of(str(path), 0) == 0
    assert positions.line_end(str(path), 0) == 0


def test_a_mark_at_byte_0_for_a_later_line_is_not_trusted(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"ab\ncd\n")
    positions = offsets.LinePositions(str(tmp_path / "positions.json"))
    positions.remember(str(path), 1, 0)
    assert positions.byte_of(str(path), 1) is None
    assert positions.line_end(str(path), 1) == 3
