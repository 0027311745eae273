"""Token usage from the markdown, and exact figures from Aider's analytics log."""

from __future__ import annotations

import os
import time
from pathlib import Path

import aider_usage_shapes as shapes
import pytest
from entire_agent_aider import tokens
from hypothesis import given
from hypothesis import strategies as st

DATA = Path(__file__).parent / "data"


def usage(data: bytes, offset: int = 0, env: dict[str, str] | None = None, base: str = "/") -> dict[str, int]:
    return dict(tokens.calculate(data, offset, env or {}, base).to_wire())  # type: ignore[arg-type]


def test_markdown_sums(history_bytes: bytes) -> None:
    # From the last session's start (a line); its --analytics-log path does not exist here, so markdown counts.
    assert usage(history_bytes, history_bytes[:14993].count(b"\n")) == {"input_tokens": 842, "cache_creation_tokens": 0, "cache_read_tokens": 0,
                                           "output_tokens": 40, "api_call_count": 1}  # fmt: skip
    assert usage(history_bytes, history_bytes.count(b"\n")) == {"input_tokens": 0, "cache_creation_tokens": 0,
                                                       "cache_read_tokens": 0, "output_tokens": 0, "api_call_count": 0}  # fmt: skip


def _five(call_usage: dict[str, int]) -> tuple[int, int, int, int]:
    return (call_usage["input_tokens"], call_usage["cache_creation_tokens"], call_usage["cache_read_tokens"],
            call_usage["output_tokens"])  # fmt: skip


@pytest.mark.parametrize("call", shapes.CACHE_FIGURES, ids=lambda c: c.name)
def test_cache_figures_leave_input_from_the_markdown(call: shapes.Call) -> None:
    # Each case's arithmetic is in aider_usage_shapes: input = sent - cache hits - cache writes (twice
    # from Aider 0.86.2 on), with sent as the markdown rounds it.
    counted = usage(shapes.history(call))
    assert _five(counted) == call.rounded and counted["api_call_count"] == 1


@pytest.mark.parametrize("call", shapes.CACHE_FIGURES, ids=lambda c: c.name)
def test_cache_figures_leave_input_from_the_analytics_log(
    call: shapes.Call, tmp_path: Path, utc: object
) -> None:
    log = tmp_path / "analytics.jsonl"
    log.write_bytes(shapes.analytics(call, tokens.header_seconds(shapes.HEADER)))
    counted = usage(shapes.history(call, log))
    assert _five(counted) == call.exact and counted["api_call_count"] == 1
    # Entire's invariant: the three input counters add up to the prompt size the backend reported.
    assert sum(call.exact[:3]) == call.prompt


@pytest.mark.parametrize("call", shapes.NO_CACHE_FIGURES, ids=lambda c: c.name)
def test_without_cache_figures_sent_is_the_input(call: shapes.Call, tmp_path: Path, utc: object) -> None:
    # Aider shows no cache figure for these (the hits of OpenAI and OpenRouter, and Gemini's before
    # Aider 0.86.2, sit in litellm's prompt_tokens_details, where Aider does not look): sent is stored
    # as input, hits or not, exactly from the log and as rounded from the markdown.
    assert _five(usage(shapes.history(call))) == call.rounded
    log = tmp_path / "analytics.jsonl"
    log.write_bytes(shapes.analytics(call, tokens.header_seconds(shapes.HEADER)))
    assert _five(usage(shapes.history(call, log))) == call.exact


def test_the_version_of_a_session_begun_before_the_offset() -> None:
    # Two Anthropic calls in an Aider 0.82.3 session, counted from the second turn: its "Aider v0.82.3"
    # line is before the offset, and 0.82.3's sent holds the cache writes once.
    data = shapes.history(shapes.ANTHROPIC_CACHED_OLD, turns=2)
    second = data.rindex(b"\n#### ")
    counted = usage(data, data[: second + 1].count(b"\n"))
    # the markdown's sent is 3700: input = 3700 - 1200 - 2400 = 100 (as Aider 0.86.2's, 3700 - 2 * 1200 - 2400 < 0)
    assert _five(counted) == (100, 1200, 2400, 350) and counted["api_call_count"] == 1


@pytest.mark.parametrize(("version", "twice"), [("0.86.2", True), ("0.86.1", False), ("0.82.3", False),
                                                ("0.87.0.dev3+g1234abc", True), ("0.86.2-rc1", True),
                                                ("1.0", True), ("", True), (None, True)])  # fmt: skip
def test_which_aider_counts_the_writes_twice(version: str | None, twice: bool) -> None:
    assert tokens.writes_counted_twice(version) is twice


@pytest.fixture
def utc() -> object:
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield None
    if saved is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = saved
    time.tzset()


def test_analytics_log_gives_exact_counts(history_bytes: bytes, tmp_path: Path, utc: object) -> None:
    # The capture's sessions name /srv/aider-live/out/analytics.jsonl; point the same name at the copy.
    log = tmp_path / "analytics.jsonl"
    log.write_bytes((DATA / "analytics.jsonl").read_bytes())
    data = history_bytes.replace(b"/srv/aider-live/out/analytics.jsonl", str(log).encode())
    first = data[: data.index(b"\n# aider chat started at 2026-11-30 03:04:51")]
    assert usage(first)["input_tokens"] == 2620  # the markdown says 2.6k
    architect = data.index(b"\n# aider chat started at 2026-11-30 03:05:10")
    end = data.index(b"\n# aider chat started at 2026-11-30 03:05:14")
    assert usage(data[architect:end]) == {"input_tokens": 289 + 1627, "cache_creation_tokens": 0,
                                          "cache_read_tokens": 0, "output_tokens": 35 + 36, "api_call_count": 2}  # fmt: skip


_FIELD = st.integers(0, 99).map(lambda n: f"{n:02d}")


@given(st.integers(0, 9999).map(lambda n: f"{n:04d}"), _FIELD, st.integers(0, 39).map(lambda n: f"{n:02d}"),
       _FIELD, _FIELD, _FIELD)  # fmt: skip
def test_header_time_is_read_as_strptime_reads_it(
    year: str, month: str, day: str, hour: str, minute: str, second: str
) -> None:
    header = f"{year}-{month}-{day} {hour}:{minute}:{second}"
    try:
        expected = time.mktime(time.strptime(header, "%Y-%m-%d %H:%M:%S"))
    except (ValueError, OverflowError) as exc:
        with pytest.raises(type(exc)):
            tokens.header_seconds(header)
        return
    assert tokens.header_seconds(header) == expected


@pytest.mark.parametrize("header", ["2024-02-29 23:59:60", "2023-02-29 10:00:00", "2024-13-01 00:00:00",
                                    "2024-01-05 00:00:00 ", "2024-01-05T00:00:00"])  # fmt: skip
def test_header_time_edges(header: str) -> None:
    try:
        expected = time.mktime(time.strptime(header, "%Y-%m-%d %H:%M:%S"))
    except ValueError:
        with pytest.raises(ValueError):
            tokens.header_seconds(header)
        return
    assert tokens.header_seconds(header) == expected
