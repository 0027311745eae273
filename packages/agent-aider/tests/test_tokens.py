"""Token usage from the markdown, and exact figures from Aider's analytics log."""

from __future__ import annotations

import os
import time
from pathlib import Path

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


def test_cache_write_is_counted_apart() -> None:
    data = b"\n#### q  \n\nA.\n\n> Tokens: 12k sent, 3.4k cache write, 26k cache hit, 1.5k received.\nCost: $1 message, $1 session.  \n"
    assert usage(data) == {"input_tokens": 8600, "cache_creation_tokens": 3400, "cache_read_tokens": 26000,
                           "output_tokens": 1500, "api_call_count": 1}  # fmt: skip


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
