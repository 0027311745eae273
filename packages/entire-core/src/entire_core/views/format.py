"""What an agent tells core about its transcript format (``ViewFormat``), and the budgets a view keeps to."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar, Protocol

    from entire_core.types import TokenUsage

    Mapped = tuple[str, list[dict[str, Any]], str | None]
    """What ``ViewFormat.record`` answers: ``(type, blocks, timestamp)``."""

    class ViewOwner(Protocol):
        """What a view needs of its agent (``entire_core.agent.Agent`` has it all)."""

        @property
        def name(self) -> str: ...
        @property
        def session_file_suffix(self) -> str: ...
        @property
        def env(self) -> Mapping[str, str]: ...
        @property
        def repo_root(self) -> str: ...
        def view_format(self) -> ViewFormat | None: ...
        def token_counts(self, transcript: bytes, offset: int) -> tuple[TokenUsage, TokenUsage | None] | None:
            """``Agent.token_counts``: the agent's token counts of view bytes, for what a re-base cuts away."""
            ...


BUDGET_ENV = "ENTIRE_VIEW_BUDGET"
RECORD_BUDGET_ENV = "ENTIRE_VIEW_RECORD_BUDGET"
DEFAULT_BUDGET = 8 << 20
"""Under the CLI's 10 MiB answer limit, with room for the records a turn appends after a sync."""
DEFAULT_RECORD_BUDGET = 1 << 20
MIN_BUDGET = 4 << 10
REBASE_AT = 2
"""At a turn boundary, a view holding more than ``budget // REBASE_AT`` bytes is re-based."""
HUGE_RECORD = 8 << 20
"""A record larger than this is cut as it is read (``StringCutter``, ``TextCutter``), never held whole."""
HUGE_KEEP = 4 << 10
"""What each long string of such a record keeps: a record that size restates bulk (a whole history)."""
SNAPSHOT_SHARE = 4
"""A snapshot may take a quarter of the budget, so that a re-based view has room for turns to come."""
HARD_LIMIT = (10 << 20) - (256 << 10)
"""Past the budget, a turn's own records are kept whole up to this size, just under the CLI's limit."""
SHRINK_TO = 2 << 10
"""What a record is shortened to when a turn alone does not fit the budget."""
KEEP_SECONDS = 14 * 24 * 3600
"""Views untouched this long belong to sessions long over and are removed."""
BYTES, LINES = "bytes", "lines"
USER, ASSISTANT, NATIVE = "user", "assistant", "native"


class ViewFormat:
    """What an agent tells core about its transcript format: a mapping (wrapped), a snapshot, a way to shorten."""

    unit: ClassVar[str] = LINES
    """The unit of the agent's own parsers' offsets; positions on the wire are always lines.
    ``"bytes"`` (offsets after a complete line) is translated for agents that still count bytes."""
    wrap: ClassVar[bool] = False
    """Wrap each native line in generic JSONL (formats the CLI's compactor cannot read)."""
    snapshot_keep_first: ClassVar[int] = 0
    """When a header has less room than the snapshot has records, how many of its first records (after
    the session's first line) stay; the rest of the room goes to its last records."""
    json_records: ClassVar[bool] = True
    """Records are JSON (one per line): a record too large to parse has its long strings cut as it is read."""

    record_budget: int = DEFAULT_RECORD_BUDGET
    """The view's per-record budget (set by the view): what a text format may restate on one line."""
    state: Any = None
    """A text format's reading state between lines (JSON-able): kept in the view's metadata, so
    that the next call's first line is read as it follows the last one's."""

    def record(self, value: Any) -> Mapped | None:
        """For a wrapped format: one native line as ``(type, blocks, timestamp)``.

        ``value`` is the parsed JSON line, or for a text format (``json_records = False``) the line's
        text, given in file order with ``state`` carried between them. ``type`` is ``"user"`` (a
        prompt: its text blocks; or tool results), ``"assistant"`` (text and tool_use blocks) or
        ``"native"`` (anything else: the compactor skips it). None means native.
        """
        return None

    def message_extra(self, value: Any) -> dict[str, Any]:
        """Extra keys of a wrapped line's ``message`` (``id``, ``usage``) for an assistant record
        (``value`` as ``record`` was given it, just before)."""
        return {}

    def snapshot(self, path: str, end: int, limit: int) -> list[bytes]:
        """Native records (complete lines without their newline) restating ``path[:end]``.

        The first record must be the file's own first line (its session header). The records
        together should stay under ``limit`` bytes: shorten what they restate if needed. ``end`` is
        a byte offset at a line start. Core keeps the last records when the header has less room.
        """
        raise NotImplementedError

    def shorten(self, record: bytes, limit: int) -> bytes | None:
        """``record`` cut to at most about ``limit`` bytes with a visible marker, or None when it may not be cut.

        Prompts, file changes, token counters, summaries and subagent links are never cut.
        """
        raise NotImplementedError

    def accepts(self, native: str) -> bool:
        """Whether ``native`` can be viewed; a file it cannot is mirrored whole (``whole``)."""
        return True

    def whole(self, native: str) -> bytes | None:
        """The bytes of a file this format does not view, for its mirror (None: none yet)."""
        try:
            with open(native, "rb") as f:
                return f.read()
        except OSError:
            return None


class Budget:
    """The view's byte budget and the per-record budget, from the environment."""

    __slots__ = ("record", "total")

    def __init__(self, env: Mapping[str, str]) -> None:
        self.total = max(MIN_BUDGET, _env_int(env, BUDGET_ENV, DEFAULT_BUDGET))
        self.record = max(
            MIN_BUDGET // 4, _env_int(env, RECORD_BUDGET_ENV, min(DEFAULT_RECORD_BUDGET, self.total // 8))
        )

    @property
    def snapshot_room(self) -> int:
        """What a header's snapshot records may take of the view (``SNAPSHOT_SHARE``)."""
        return self.total // SNAPSHOT_SHARE


def _env_int(env: Mapping[str, str], name: str, default: int) -> int:
    value = env.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        from entire_core.errors import InvalidInput

        raise InvalidInput(f"{name} must be a number of bytes, got {value!r}") from None
    return number if number > 0 else default
