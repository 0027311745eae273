"""Values agents return from the hot subcommands, kept free of pydantic and of slow stdlib imports.

``entire_core.protocol`` is the pydantic definition of the wire format. The classes here produce the
same JSON for the subcommands that run on every hook (``parse-hook`` and the TurnEnd sequence), and
the contract tests validate every answer built from them against the pydantic models in strict mode.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from datetime import datetime
    from typing import Any


class EventType:
    """Lifecycle event types, as the integers Go's ``iota + 1`` gives them."""

    SESSION_START = 1
    TURN_START = 2
    TURN_END = 3
    COMPACTION = 4
    SESSION_END = 5
    SUBAGENT_START = 6
    SUBAGENT_END = 7
    MODEL_UPDATE = 8
    TOOL_USE = 9


EVENT_NAMES = {
    1: "SessionStart",
    2: "TurnStart",
    3: "TurnEnd",
    4: "Compaction",
    5: "SessionEnd",
    6: "SubagentStart",
    7: "SubagentEnd",
    8: "ModelUpdate",
    9: "ToolUse",
}


class Event:
    """A lifecycle event for the Entire CLI, the answer of ``parse-hook``."""

    __slots__ = (
        "metadata",
        "model",
        "previous_session_id",
        "prompt",
        "response_message",
        "session_id",
        "session_ref",
        "subagent_id",
        "subagent_type",
        "task_description",
        "timestamp",
        "tool_input",
        "tool_use_id",
        "type",
    )

    def __init__(
        self,
        type: int,
        session_id: str = "",
        *,
        previous_session_id: str = "",
        session_ref: str = "",
        prompt: str = "",
        model: str = "",
        timestamp: str = "",
        tool_use_id: str = "",
        subagent_id: str = "",
        tool_input: object = None,
        subagent_type: str = "",
        task_description: str = "",
        response_message: str = "",
        metadata: dict[str, str] | None = None,
    ) -> None:
        self.type = type
        self.session_id = session_id
        self.previous_session_id = previous_session_id
        self.session_ref = session_ref
        self.prompt = prompt
        self.model = model
        self.timestamp = timestamp
        self.tool_use_id = tool_use_id
        self.subagent_id = subagent_id
        self.tool_input = tool_input
        self.subagent_type = subagent_type
        self.task_description = task_description
        self.response_message = response_message
        self.metadata = metadata if metadata is not None else {}

    def to_wire(self) -> dict[str, object]:
        """The JSON object for the CLI: empty optional fields left out, timestamps normalised."""
        out: dict[str, object] = {"type": int(self.type), "session_id": self.session_id}
        for name in (
            "previous_session_id",
            "session_ref",
            "prompt",
            "model",
            "tool_use_id",
            "subagent_id",
            "subagent_type",
            "task_description",
            "response_message",
        ):
            value: str = getattr(self, name)
            if value:
                out[name] = value
        stamp = normalize_timestamp(self.timestamp)
        if stamp:
            out["timestamp"] = stamp
        if self.tool_input is not None:
            out["tool_input"] = self.tool_input
        if self.metadata:
            out["metadata"] = {str(k): str(v) for k, v in self.metadata.items()}
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Event) and self.to_wire() == other.to_wire()

    def __hash__(self) -> int:  # events are mutable records; hashing them is a bug
        raise TypeError("Event is unhashable")

    def __repr__(self) -> str:
        return f"Event({self.to_wire()!r})"


class TokenUsage:
    """Token counts for a range of a transcript, the answer of ``calculate-tokens``, in Entire's units.

    The Entire CLI's ``TokenUsage`` (``cmd/entire/cli/agent/types/token_usage.go``) adds these up across
    agents, so each counter means one thing whatever the backend reported. Per model call:

    - ``input_tokens``: fresh prompt tokens, neither read from nor written to a prompt cache;
    - ``cache_creation_tokens``: prompt tokens written to a cache;
    - ``cache_read_tokens``: prompt tokens read from a cache;
    - ``output_tokens``: every generated token once, reasoning (thinking) included;
    - ``api_call_count``: the model calls counted.

    So ``input_tokens + cache_read_tokens + cache_creation_tokens`` is the prompt size the backend
    reported for the call, and nothing generated is counted twice. Backends report otherwise (OpenAI's
    ``prompt_tokens`` and Gemini's ``promptTokenCount`` include the cache reads, Anthropic's
    ``input_tokens`` excludes both cache figures, some report reasoning apart from output): each agent
    maps its own, and the contract kit holds each to it (``AgentContract.usage_case``).
    ``cache_creation_1h_tokens`` (a later field of the CLI's; no agent here fills it) and
    ``subagent_tokens`` (the subagents' own usage, in the same units) are not among the five.
    """

    __slots__ = (
        "api_call_count",
        "cache_creation_1h_tokens",
        "cache_creation_tokens",
        "cache_read_tokens",
        "input_tokens",
        "output_tokens",
        "subagent_tokens",
    )

    def __init__(
        self,
        input_tokens: int = 0,
        cache_creation_tokens: int = 0,
        cache_read_tokens: int = 0,
        output_tokens: int = 0,
        api_call_count: int = 0,
        *,
        cache_creation_1h_tokens: int = 0,
        subagent_tokens: TokenUsage | None = None,
    ) -> None:
        self.input_tokens = input_tokens
        self.cache_creation_tokens = cache_creation_tokens
        self.cache_read_tokens = cache_read_tokens
        self.output_tokens = output_tokens
        self.api_call_count = api_call_count
        self.cache_creation_1h_tokens = cache_creation_1h_tokens
        self.subagent_tokens = subagent_tokens

    def __add__(self, other: TokenUsage) -> TokenUsage:
        sub = self.subagent_tokens
        if other.subagent_tokens is not None:
            sub = other.subagent_tokens if sub is None else sub + other.subagent_tokens
        return TokenUsage(
            self.input_tokens + other.input_tokens,
            self.cache_creation_tokens + other.cache_creation_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.output_tokens + other.output_tokens,
            self.api_call_count + other.api_call_count,
            cache_creation_1h_tokens=self.cache_creation_1h_tokens + other.cache_creation_1h_tokens,
            subagent_tokens=sub,
        )

    def __sub__(self, other: TokenUsage) -> TokenUsage:
        """What ``self`` counts beyond ``other``, counter by counter (never below zero)."""
        sub = self.subagent_tokens
        if sub is not None and other.subagent_tokens is not None:
            sub = sub - other.subagent_tokens
        return TokenUsage(
            max(0, self.input_tokens - other.input_tokens),
            max(0, self.cache_creation_tokens - other.cache_creation_tokens),
            max(0, self.cache_read_tokens - other.cache_read_tokens),
            max(0, self.output_tokens - other.output_tokens),
            max(0, self.api_call_count - other.api_call_count),
            cache_creation_1h_tokens=max(0, self.cache_creation_1h_tokens - other.cache_creation_1h_tokens),
            subagent_tokens=None if sub is None or sub.is_zero() else sub,
        )

    def with_subagents(self, subagents: Iterable[TokenUsage]) -> TokenUsage:
        """This usage with the sum of ``subagents`` as its ``subagent_tokens`` (left unset when that is zero)."""
        total = TokenUsage()
        for usage in subagents:
            total += usage
        if not total.is_zero():
            self.subagent_tokens = total
        return self

    def is_zero(self) -> bool:
        """True when no counter (subagents included) is set."""
        own = (
            self.input_tokens,
            self.cache_creation_tokens,
            self.cache_read_tokens,
            self.output_tokens,
            self.api_call_count,
            self.cache_creation_1h_tokens,
        )
        return not any(own) and (self.subagent_tokens is None or self.subagent_tokens.is_zero())

    @classmethod
    def from_wire(cls, value: dict[str, Any]) -> TokenUsage:
        """Usage as ``to_wire`` wrote it (a counter that is not a non-negative int reads as 0)."""

        def count(name: str) -> int:
            number = value.get(name)
            return number if isinstance(number, int) and not isinstance(number, bool) and number > 0 else 0

        from entire_core.jsonvalues import obj

        sub = obj(value.get("subagent_tokens"))
        return cls(
            count("input_tokens"),
            count("cache_creation_tokens"),
            count("cache_read_tokens"),
            count("output_tokens"),
            count("api_call_count"),
            cache_creation_1h_tokens=count("cache_creation_1h_tokens"),
            subagent_tokens=cls.from_wire(sub) if sub else None,
        )

    def to_wire(self) -> dict[str, object]:
        """The JSON object for the CLI; counters are clamped to non-negative ints."""
        out: dict[str, object] = {
            "input_tokens": max(0, int(self.input_tokens)),
            "cache_creation_tokens": max(0, int(self.cache_creation_tokens)),
            "cache_read_tokens": max(0, int(self.cache_read_tokens)),
            "output_tokens": max(0, int(self.output_tokens)),
            "api_call_count": max(0, int(self.api_call_count)),
        }
        if self.cache_creation_1h_tokens:
            out["cache_creation_1h_tokens"] = max(0, int(self.cache_creation_1h_tokens))
        if self.subagent_tokens is not None:
            out["subagent_tokens"] = self.subagent_tokens.to_wire()
        return out

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TokenUsage) and self.to_wire() == other.to_wire()

    def __hash__(self) -> int:
        raise TypeError("TokenUsage is unhashable")

    def __repr__(self) -> str:
        return f"TokenUsage({self.to_wire()!r})"


class Asset:
    """A binary attachment of a compact transcript (an image, say)."""

    __slots__ = ("data", "media_type", "name")

    def __init__(self, name: str, media_type: str, data: bytes) -> None:
        self.name = name
        self.media_type = media_type
        self.data = data


class CompactTranscript:
    """The answer of ``compact-transcript``: compact JSONL bytes and their assets."""

    __slots__ = ("assets", "transcript")

    def __init__(self, transcript: bytes, assets: list[Asset] | None = None) -> None:
        self.transcript = transcript
        self.assets = assets if assets is not None else []


def rfc3339(moment: datetime) -> str:
    """Format an aware datetime as RFC 3339 the way Go prints it (``Z`` for UTC)."""
    offset = moment.utcoffset()
    if offset is None:
        raise ValueError("timestamp has no time zone")
    if offset.seconds % 60 or offset.microseconds:
        # RFC 3339 offsets are whole minutes; historical zones (local mean time) are not.
        from datetime import UTC, timedelta, timezone

        try:
            moment, offset = moment.astimezone(UTC), timedelta(0)
        except OverflowError:  # year 1 or 9999: keep the wall time, drop the offset's seconds
            offset = timedelta(minutes=int(offset.total_seconds() // 60))
            moment = moment.replace(tzinfo=timezone(offset))
    text = moment.isoformat(timespec="microseconds" if moment.microsecond else "seconds")
    return text[:-6] + "Z" if not offset else text


def normalize_timestamp(value: str) -> str:
    """Return ``value`` as RFC 3339 with a zone, or "" when it has no zone or does not parse.

    Go's ``time.RFC3339`` parser needs the zone; a naive time would make the CLI reject the event. A
    value that already has RFC 3339's shape keeps its text (and its nanoseconds, which Python cannot
    hold); anything else ISO 8601 with a zone is reformatted.
    """
    text = value.strip()
    if not text:
        return ""
    if _has_rfc3339_shape(text):
        return text[:10] + "T" + text[11:-1] + "Z" if text[-1] in "zZ" else text[:10] + "T" + text[11:]
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(text[:-1] + "+00:00" if text[-1] in "zZ" else text)
    except ValueError:
        return ""
    if moment.utcoffset() is None or len(text) < 19:
        return ""
    return rfc3339(moment)


_DIGITS = frozenset("0123456789")


def _has_rfc3339_shape(text: str) -> bool:
    """``YYYY-MM-DDTHH:MM:SS[.fraction](Z|+hh:mm)`` with plausible field values."""
    if len(text) < 20 or text[10] not in "Tt":
        return False
    for i, sep in ((4, "-"), (7, "-"), (13, ":"), (16, ":")):
        if text[i] != sep:
            return False
    fields = (text[0:4], text[5:7], text[8:10], text[11:13], text[14:16], text[17:19])
    if not all(_DIGITS.issuperset(f) for f in fields):
        return False
    _, month, day, hour, minute, second = (int(f) for f in fields)
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour <= 23 and minute <= 59 and second <= 60):
        return False
    rest = text[19:]
    if rest[:1] == ".":
        count = len(rest) - 1 - len(rest[1:].lstrip("0123456789"))
        if count == 0:
            return False
        rest = rest[1 + count :]
    if rest in ("Z", "z"):
        return True
    return (
        len(rest) == 6
        and rest[0] in "+-"
        and _DIGITS.issuperset(rest[1:3] + rest[4:6])
        and rest[3] == ":"
        and int(rest[1:3]) <= 23
        and int(rest[4:6]) <= 59
    )
