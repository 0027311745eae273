"""Fitting a conversation's history under a size limit, for an agent's snapshot (``views.ViewFormat``).

Every agent that restates its history in a snapshot fits it the same way, and says only what its records
are: what one costs, how one may be shortened, which must stay, and which cannot stand without the one
before it. Imported when a snapshot is made, never on a hook that makes none.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeVar

    R = TypeVar("R")


def _none(record: object) -> bool:
    return False


def fit(
    records: Sequence[R],
    limit: int,
    cost: Callable[[R], int],
    *,
    keep: Callable[[R], bool] = _none,
    shorten: Callable[[R], R] | None = None,
    shorten_over: int = 0,
    orphan: Callable[[R, R | None], bool] | None = None,
) -> tuple[list[R], int]:
    """``records`` (oldest first) within ``limit``, as ``cost`` counts, and what they cost then.

    A history that fits stays as it is. Else, until it fits: the costliest records are shortened first
    (``shorten``, each record costing more than ``shorten_over``), then the oldest dropped, but never the
    newest one nor one that ``keep`` says must stay, whatever the cost. Then a record that ``orphan``
    says cannot stand after the record kept just before it (``None`` where that one went, or at the
    start) goes too, and the record after it is judged as one after a record that went; ``keep`` holds
    against that as well.
    """
    records = list(records)
    sizes = [cost(r) for r in records]
    total = sum(sizes)
    if total <= limit:
        return records, total
    if shorten is not None:
        for i in sorted(range(len(records)), key=lambda i: sizes[i], reverse=True):
            if total <= limit or sizes[i] <= shorten_over:
                break
            records[i] = shorten(records[i])
            new = cost(records[i])
            total -= sizes[i] - new
            sizes[i] = new
    kept = [True] * len(records)
    for i in range(len(records) - 1):
        if total <= limit:
            break
        if not keep(records[i]):
            kept[i] = False
            total -= sizes[i]
    if orphan is not None:
        previous: R | None = None
        for i, record in enumerate(records):
            if kept[i] and orphan(record, previous) and not keep(record):
                kept[i] = False
                total -= sizes[i]
            previous = record if kept[i] else None
    return [r for r, k in zip(records, kept, strict=True) if k], total
