"""Splitting transcripts into size-bounded chunks and joining them back, byte for byte."""

from __future__ import annotations

from entire_core.errors import InvalidInput


def chunk(content: bytes, max_size: int) -> list[bytes]:
    """Split ``content`` into pieces of at most ``max_size`` bytes, cutting after a newline when possible.

    Cutting on line boundaries keeps each chunk valid JSONL; a line longer than ``max_size`` is cut
    into byte pieces. ``b"".join(chunk(x, n)) == x`` for every ``x``; empty input gives no chunks.
    """
    if max_size <= 0:
        raise InvalidInput(f"chunk size must be positive, got {max_size}")
    chunks: list[bytes] = []
    start, size = 0, len(content)
    while start < size:
        end = start + max_size
        if end < size:
            newline = content.rfind(b"\n", start, end)
            if newline >= start:
                end = newline + 1
        chunks.append(content[start:end])
        start = end
    return chunks


def reassemble(chunks: list[bytes]) -> bytes:
    """The inverse of ``chunk``: plain concatenation, no separators added."""
    return b"".join(chunks)
