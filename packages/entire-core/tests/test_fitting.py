"""``fitting.fit``: a history under a limit, by the agent's policy (cost, shorten, keep, orphan)."""

from __future__ import annotations

from entire_core.fitting import fit


def _cost(record: str) -> int:
    return len(record)


def _short(record: str) -> str:
    return record[:2]


def test_a_history_that_fits_stays_as_it_is() -> None:
    records = ["aaaa", "bb", "c"]
    kept, total = fit(records, 7, _cost, shorten=_short, orphan=lambda r, p: True)
    assert (kept, total) == (records, 7)
    assert kept is not records  # a list of its own: the caller's is never changed


def test_the_oldest_go_first_and_the_newest_always_stays() -> None:
    assert fit(["aa", "bb", "cc"], 4, _cost) == (["bb", "cc"], 4)
    assert fit(["aa", "bb", "cccccc"], 1, _cost) == (["cccccc"], 6)


def test_records_keep_holds_stay_whatever_the_cost() -> None:
    kept, total = fit(["P1", "xx", "P2", "yy", "zz"], 4, _cost, keep=lambda r: r.startswith("P"))
    assert (kept, total) == (["P1", "P2", "zz"], 6)  # over the limit still: the prompts are not dropped
    kept, total = fit(["P1", "xx", "P2", "yy", "zz"], 8, _cost, keep=lambda r: r.startswith("P"))
    assert (kept, total) == (["P1", "P2", "yy", "zz"], 8)


def test_the_costliest_are_shortened_first_then_the_oldest_dropped() -> None:
    kept, total = fit(["aaaa", "bbbbbbbb", "cc"], 8, _cost, shorten=_short)
    assert (kept, total) == (["aaaa", "bb", "cc"], 8)  # the longest alone was enough
    kept, total = fit(["aaaa", "bbbbbbbb", "cccccc"], 4, _cost, shorten=_short)
    assert (kept, total) == (["bb", "cc"], 4)  # all shortened, then the oldest dropped


def test_only_records_costing_more_than_shorten_over_are_shortened() -> None:
    kept, total = fit(["aaaa", "bbbbbbbb", "ccc"], 5, _cost, shorten=_short, shorten_over=3)
    assert (kept, total) == (["bb", "ccc"], 5)  # aaaa shortened too, ccc not; then aaaa's stub dropped
    assert fit(["aaa", "bbb", "ccc"], 6, _cost, shorten=_short, shorten_over=3) == (["bbb", "ccc"], 6)


def test_an_orphan_goes_with_the_record_before_it() -> None:
    def result_without_call(record: str, previous: str | None) -> bool:
        return record.startswith("R") and previous is None

    kept, total = fit(["call", "R1", "R2", "next", "R3"], 9, _cost, orphan=result_without_call)
    assert (kept, total) == (["next", "R3"], 6)  # R1 and R2 lost their call; R3 follows a kept record
    # Judged even where nothing was dropped before it, once the history was over its limit.
    assert fit(["R0", "text", "x"], 5, _cost, shorten=_short, orphan=result_without_call) == (["te", "x"], 3)


def test_keep_holds_against_orphan_too() -> None:
    kept, _ = fit(["call", "R1"], 1, _cost, keep=lambda r: r == "R1", orphan=lambda r, p: p is None)
    assert kept == ["R1"]


def test_orphan_sees_the_record_kept_before() -> None:
    seen: list[tuple[str, str | None]] = []

    def note(record: str, previous: str | None) -> bool:
        seen.append((record, previous))
        return record == "b"

    kept, total = fit(["a", "b", "c", "dddd"], 5, _cost, shorten=_short, orphan=note)
    assert (kept, total) == (["a", "c", "dd"], 4)
    assert seen == [("a", None), ("b", "a"), ("c", None), ("dd", "c")]  # after b went, c follows none
