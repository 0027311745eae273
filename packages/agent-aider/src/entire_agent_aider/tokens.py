"""Token usage of a range of chat history, in Entire's units: Aider's ``Tokens:`` lines, or exact figures from its analytics log.

The markdown rounds (``2.6k``) and, when streaming from a server that sends no usage, holds Aider's
own estimate. When the session ran with ``--analytics-log`` (named on the logged command line, or in
``AIDER_ANALYTICS_LOG``), its ``message_send`` events carry the exact ``prompt_tokens`` and
``completion_tokens``: the run is found by its ``launched`` time next to the session header, and the
n-th ``Tokens:`` line of the session is the n-th ``message_send`` of the run (later calls may
already be logged). Cache figures only exist in the markdown. Weak-model calls (commit messages,
summaries) appear in neither.

What Aider's figures hold (``Coder.calculate_and_show_tokens_and_cost``, the README's table): ``sent``
(and the log's ``prompt_tokens``, the same number) is litellm's ``prompt_tokens``, to which Aider adds
the call's cache writes whenever the usage carries Anthropic's cache fields; ``cache hit`` and ``cache
write`` come from ``prompt_cache_hit_tokens`` (DeepSeek) or ``cache_read_input_tokens`` (Anthropic,
and Gemini through litellm 1.81) and ``cache_creation_input_tokens``. litellm's ``prompt_tokens``
includes the cache hits for every backend that reports them, and, from the litellm Aider 0.86.2 pins
(1.81.10), an Anthropic call's cache writes too, which ``sent`` then holds twice. ``received`` is
``completion_tokens``: every generated token once, reasoning included.
"""

from __future__ import annotations

import os

from entire_core.types import TokenUsage

from entire_agent_aider import transcript
from entire_agent_aider.markdown import HEADER_PREFIX

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from entire_agent_aider.markdown import Tokens
    from entire_agent_aider.parser import Session

HEADER_SLACK_SECONDS = 5


WRITES_TWICE_SINCE = (0, 86, 2)
"""The first Aider whose ``sent`` holds a call's cache writes twice (its litellm, 1.81.10, already counts
them in ``prompt_tokens``; 0.86.1 pins 1.75.0, which counts only the cache reads there)."""


def usage_of(tokens: Tokens, exact: tuple[int, int] | None = None, version: str | None = None) -> TokenUsage:
    """One model call in Entire's units: input without the cache reads and writes, which are counted apart.

    ``exact`` is the call's (``prompt_tokens``, ``completion_tokens``) from the analytics log, the same
    numbers as ``sent`` and ``received`` unrounded; ``version`` the session's Aider (None: the newest).
    """
    sent, received = exact if exact is not None else (tokens.sent, tokens.received)
    writes = tokens.cache_write * (2 if writes_counted_twice(version) else 1)
    fresh = max(0, sent - writes - tokens.cache_hit)
    return TokenUsage(fresh, tokens.cache_write, tokens.cache_hit, received, 1)


def writes_counted_twice(version: str | None) -> bool:
    """Whether this Aider's ``sent`` holds a call's cache writes twice (an unknown version is taken as new)."""
    if version is None:
        return True
    numbers: list[int] = []
    for part in version.split(".")[:3]:
        digits = part[: len(part) - len(part.lstrip("0123456789"))]
        if not digits:
            break
        numbers.append(int(digits))
    return not numbers or tuple(numbers) >= WRITES_TWICE_SINCE


def version_before(lines: list[bytes], end: int) -> str | None:
    """The Aider version the session that line ``end`` belongs to logged before it, or None."""
    for index in range(min(end, len(lines)) - 1, -1, -1):
        line = lines[index]
        if line.startswith(b"> Aider v"):
            return line[len(b"> Aider v") :].decode("utf-8", "replace").strip()
        if line.startswith(HEADER_PREFIX.encode()):
            return None
    return None


def calculate(data: bytes, offset: int, env: Mapping[str, str], base_dir: str) -> TokenUsage:
    """Usage of the model calls logged from line ``offset`` of ``data`` (a view's bytes, or chat history)."""
    from entire_agent_aider import view

    lines = view.view_lines(data)
    total = TokenUsage()
    if offset >= len(lines):
        return total
    exact_from = env.get("AIDER_ANALYTICS_LOG", "")
    if not exact_from and b" --analytics-log " not in data:
        for number, session in enumerate(transcript.parse_lines(lines[offset:]).sessions):
            version = session.version
            if version is None and number == 0 and session.header is None:
                version = version_before(lines, offset)  # the session began before the offset
            for turn in session.turns:
                for tokens in turn.tokens:
                    total += usage_of(tokens, version=version)
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
                total += usage_of(tokens, exact[skip + index] if exact else None, session.version)
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
