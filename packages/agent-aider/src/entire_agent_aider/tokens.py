"""Token usage of a range of chat history: Aider's ``Tokens:`` lines, or exact figures from its analytics log.

The markdown rounds (``2.6k``) and, when streaming from a server that sends no usage, holds Aider's
own estimate. When the session ran with ``--analytics-log`` (named on the logged command line, or in
``AIDER_ANALYTICS_LOG``), its ``message_send`` events carry the exact ``prompt_tokens`` and
``completion_tokens``: the run is found by its ``launched`` time next to the session header, and the
n-th ``Tokens:`` line of the session is the n-th ``message_send`` of the run (later calls may
already be logged). Cache figures only
exist in the markdown. Weak-model calls (commit messages, summaries) appear in neither.
"""

from __future__ import annotations

import os

from entire_core.types import TokenUsage

from entire_agent_aider import transcript

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from entire_agent_aider.markdown import Tokens
    from entire_agent_aider.parser import Session

HEADER_SLACK_SECONDS = 5


def usage_of(tokens: Tokens, exact: tuple[int, int] | None = None) -> TokenUsage:
    """One model call as Entire counts it: input without cache writes, which are counted apart."""
    if exact is not None:
        prompt, completion = exact
    else:
        prompt, completion = max(0, tokens.sent - tokens.cache_write), tokens.received
    return TokenUsage(prompt, tokens.cache_write, tokens.cache_hit, completion, 1)


def calculate(data: bytes, offset: int, env: Mapping[str, str], base_dir: str) -> TokenUsage:
    """Usage of the model calls logged from line ``offset`` of ``data`` (a view's bytes, or chat history)."""
    from entire_agent_aider import view

    lines = view.view_lines(data)
    total = TokenUsage()
    if offset >= len(lines):
        return total
    exact_from = env.get("AIDER_ANALYTICS_LOG", "")
    if not exact_from and b" --analytics-log " not in data:
        for turn in transcript.parse_lines(lines[offset:]).turns():
            for tokens in turn.tokens:
                total += usage_of(tokens)
        return total
    # The analytics log is matched per session, so parse whole sessions. A view's snapshot
    # (entire_agent_aider.view) stands for the model calls of the turns it restates.
    from entire_core import views

    before = view.earlier_calls(lines, views.head_lines_of(data))
    sessions = transcript.parse_lines(lines).sessions
    # A view's header (views v2) leads with blank padding and a marker line: no session of its own.
    first = next((i for i, s in enumerate(sessions) if s.header is not None), 0)
    for number, session in enumerate(sessions):
        skip = before if number == first else 0
        calls = [(turn.offset, tokens) for turn in session.turns for tokens in turn.tokens]
        exact = _exact_calls(session, skip + len(calls), exact_from, base_dir)
        for index, (turn_offset, tokens) in enumerate(calls):
            if turn_offset >= offset:
                total += usage_of(tokens, exact[skip + index] if exact else None)
    return total


def _exact_calls(session: Session, count: int, env_log: str, base_dir: str) -> list[tuple[int, int]] | None:
    """The (prompt, completion) of each main-model call of the session, or None when unknown."""
    log = session.analytics_log or env_log
    if not log or session.header is None or not count:
        return None
    path = log if os.path.isabs(log) else os.path.join(base_dir, log)
    from entire_core import _json, jsonvalues

    try:
        started = header_seconds(session.header)
    except (ValueError, OverflowError):
        return None
    runs: list[tuple[float, list[tuple[int, int]]]] = []
    try:
        with open(path, "rb") as f:
            for line in f:
                try:
                    record = jsonvalues.obj(_json.loads(line))
                except ValueError:
                    continue
                event, at = record.get("event"), record.get("time")
                if event == "launched" and isinstance(at, (int, float)) and not isinstance(at, bool):
                    runs.append((float(at), []))
                elif event == "message_send" and runs:
                    props = jsonvalues.obj(record.get("properties"))
                    prompt, completion = props.get("prompt_tokens"), props.get("completion_tokens")
                    if _is_int(prompt) and _is_int(completion):
                        runs[-1][1].append((jsonvalues.integer(prompt), jsonvalues.integer(completion)))
    except OSError:
        return None
    near = [(abs(at - started), calls) for at, calls in runs if abs(at - started) <= HEADER_SLACK_SECONDS]
    # The log may already hold calls of a later turn: the n-th Tokens line is the n-th call.
    matching = [calls[:count] for _, calls in sorted(near, key=lambda item: item[0]) if len(calls) >= count]
    return matching[0] if matching else None


_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def header_seconds(header: str) -> float:
    """A header's local ``YYYY-MM-DD HH:MM:SS`` (``markdown.header_time``'s shape) as epoch seconds.

    What ``time.mktime(time.strptime(header, "%Y-%m-%d %H:%M:%S"))`` answers for that shape, without
    ``_strptime`` (which imports ``re``, ``locale``, ``calendar`` and ``datetime``): the fields are
    checked as it checks them (a leap second included); anything else is a ``ValueError``.
    """
    import time

    date, _, clock = header.partition(" ")
    fields = date.split("-") + clock.split(":")
    widths = (4, 2, 2, 2, 2, 2)
    if len(fields) != 6 or any(
        len(f) != w or not (f.isascii() and f.isdigit()) for f, w in zip(fields, widths, strict=True)
    ):
        raise ValueError(f"not a YYYY-MM-DD HH:MM:SS time: {header!r}")
    year, month, day, hour, minute, second = map(int, fields)
    leap = month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    if not (
        year >= 1 and 1 <= month <= 12 and 1 <= day <= _DAYS[month - 1] + leap
        and hour <= 23 and minute <= 59 and second <= 61
    ):  # fmt: skip
        raise ValueError(f"no such time: {header!r}")
    return time.mktime((year, month, day, hour, minute, second, 0, 0, -1))


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
