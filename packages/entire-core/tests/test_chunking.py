"""``reassemble(chunk(x)) == x`` for every byte string, with every chunk within the limit."""

from __future__ import annotations

import pytest
from entire_core.chunking import chunk, reassemble
from entire_core.errors import InvalidInput
from hypothesis import given
from hypothesis import strategies as st

lines_of_bytes = st.lists(
    st.binary(max_size=40) | st.sampled_from([b"\n", b"\r\n", b"\n\n", b"\xff\xfe"]), max_size=30
)


@given(st.binary(max_size=2000) | lines_of_bytes.map(b"".join), st.integers(1, 300))
def test_identity_and_bounds(content: bytes, max_size: int) -> None:
    chunks = chunk(content, max_size)
    assert reassemble(chunks) == content
    assert all(0 < len(c) <= max_size for c in chunks)
    if not content:
        assert chunks == []
    elif len(content) <= max_size:
        assert chunks == [content]
    else:
        assert len(chunks) >= 2


def test_cuts_after_newlines_when_lines_fit() -> None:
    content = b"".join(b'{"n": %d}\n' % i for i in range(100))
    for piece in chunk(content, 64):
        assert piece.endswith(b"\n")


def test_long_line_is_split_into_bytes() -> None:
    assert chunk(b"a" * 10 + b"\nbbbbb", 4) == [b"aaaa", b"aaaa", b"aa\n", b"bbbb", b"b"]


@pytest.mark.parametrize("size", [0, -1])
def test_non_positive_size_is_an_error(size: int) -> None:
    with pytest.raises(InvalidInput):
        chunk(b"x", size)


def test_a_last_piece_that_fits_exactly_is_not_split() -> None:
    assert chunk(b"ab\ncd", 5) == [b"ab\ncd"]
    assert chunk(b"abc\nd\nef", 4) == [b"abc\n", b"d\nef"]


def test_a_window_that_starts_with_a_newline_is_cut_after_it() -> None:
    assert chunk(b"\nabc", 2) == [b"\n", b"ab", b"c"]
    assert chunk(b"ab\n\ncde", 3) == [b"ab\n", b"\n", b"cde"]
