"""Bounded transcript views (v2): what the Entire CLI sees of a session, whatever the size of the agent's file.

The CLI refuses any answer over 10 MiB, and ``read-transcript`` must print the whole transcript, so a
session past that size would get no checkpoint ever again. Instead of the agent's native file the CLI
is handed a *view*: a file kept beside the plugin's other state (outside the repository) that never
grows past a budget (``ENTIRE_VIEW_BUDGET``, 8 MiB by default).

Positions are lines, as the CLI counts them (split on ``\\n``, trailing blank lines dropped): every
position we answer and every ``--offset`` we take is a line index of the view. The CLI stores such a
count as ``checkpoint_transcript_start`` and slices the view by it itself.

- One view line per native line, appended incrementally: each call reads only the native bytes
  written since the last one. The native file is only ever read.
- A *native* view (``ViewFormat.wrap = False``, e.g. Codex rollouts, which the CLI's compactor
  reads) copies the agent's lines as they are. A *wrapped* view (``wrap = True``) is for formats the
  CLI's compactor cannot read: each native line becomes one generic-JSONL line
  ``{"type":"user"|"assistant"|"native","timestamp":...,"message":{"role":...,"content":[blocks]},
  "native":<the native JSON value>}`` (``"native_text"`` for a line that is not JSON or would not
  re-serialise to the same bytes, ``"native_b64"`` for bytes that are not UTF-8). ``unwrap`` gives the
  native line back; ``native_bytes`` the agent's whole file (``write-session``).
- A record larger than the per-record budget is shortened as it is copied, by the agent, with a
  visible marker that says what was cut.
- At a turn boundary, a view holding more than half its budget is *re-based*, keeping line numbers:
  its first K lines are replaced by a header of exactly K lines,
  ``[the first line][blank padding][{"type":"entire_view","v":2,"body":K}][snapshot records]``,
  where the snapshot is the agent's own restatement of what came before (Codex's ``compacted``
  record, Gemini's ``$set.messages``). Line N stays line N. A re-base never cuts below the
  ``checkpoint_transcript_start`` the CLI stored for the session while what follows it fits the budget;
  when it must, the marker carries the token usage a count from that start loses (``"cut"``), which
  ``calculate-tokens`` adds back (a session committed only at its end, far past the budget).
- An offset inside the header means the body's start; one past the end means the end (or, for a
  view upgraded from v1 while a turn was in progress, that turn's first line: ``resume``).
- A turn never starts at line 0 of a wrapped view, which the CLI reads as no start at all: a wrapped
  view that holds nothing when a turn starts (the agent writes its file after the prompt's hook) gets
  ``LEAD``, a line of its own, first; line N is then the session's line N - 1, and a header keeps
  ``LEAD`` as its first line, the session's first line as its first snapshot record. Views that started
  with a line of the agent's (all those of earlier releases) keep line N = line N.
- At TurnEnd a view may end with spaces after its last line (``View.turn_ended``): the CLI judges an
  idle session's new work by the view's size in bytes, and a re-based view is smaller than the one it
  last stored. The CLI counts no line there; every reader here reads lines, and the next append
  writes over them.

How an agent declares its format (``Agent.view_format`` returns an instance)::

    class MyView(views.ViewFormat):
        wrap = True                                   # generic JSONL around my native lines
        def record(self, value):                      # one parsed native JSON line
            if value.get("type") == "user":
                return "user", [{"type": "text", "text": value["text"]}], value.get("ts")
            return "native", [], value.get("ts")      # or None: the same
        def snapshot(self, path, end, limit): ...     # native records restating path[:end]
        def shorten(self, record, limit): ...         # a native record cut to about limit bytes

Blocks are ``{"type":"text","text"}``, ``{"type":"tool_use","id","name","input"}`` and
``{"type":"tool_result","tool_use_id","content"}``; an assistant record may carry ``id`` and
``usage`` through ``message_extra``. Parsers read the view with ``native_lines`` (or ``unwrap`` a
line), so they see the agent's own records. ``snapshot`` always receives a file of native lines.

Crash safety: the view's metadata (``.meta/<key>.json``) is the commit point. An append that was not
committed is cut off again; a rewritten view is prepared as ``<view>.next``, the metadata names it,
and only then is it renamed into place. Concurrent hooks are serialised by ``.meta/<key>.lock``.
A view written by v1 (byte positions, a tag in its header) is rebuilt on first touch.
"""

from __future__ import annotations

import os

from entire_core import offsets

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator, Mapping
    from typing import Any, ClassVar, Protocol

    from entire_core.types import TokenUsage

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

    Mapped = tuple[str, list[dict[str, Any]], str | None]
    """What ``ViewFormat.record`` answers: ``(type, blocks, timestamp)``."""

    # The tools a ViewFormat cuts with, re-exported (loaded on first use by ``__getattr__`` below).
    from entire_core.cutting import MARKER as MARKER
    from entire_core.cutting import MIN_KEEP as MIN_KEEP
    from entire_core.cutting import Path as Path
    from entire_core.cutting import StringCutter as StringCutter
    from entire_core.cutting import TextCutter as TextCutter
    from entire_core.cutting import cut_text as cut_text
    from entire_core.cutting import shorten_json as shorten_json
    from entire_core.cutting import shorten_value as shorten_value

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
VERSION = 2
MARKER_PREFIX = b'{"type":"entire_view","v":2,"body":'
"""How the header's marker line starts; it follows the padding and precedes the snapshot records."""
LEAD = b'{"type":"entire_view","v":2,"lead":1}'
"""The first line of a wrapped view that held no line when a turn started (``View.turn_started``): that
turn starts at line 1, not 0, which the CLI reads as no start at all (v0.10.3 ``lifecycle.go``,
``resolveTranscriptOffset``: ``TranscriptOffset > 0``, else ``checkpoint_transcript_start``). The view's
line N is then the session's line N - 1."""
VIEW_LINE = b'{"type":"entire_view",'
"""How the view's own lines start (the marker, ``LEAD``): no record of the agent's."""
TAG_PREFIX = b"entire-view:v1:"
"""What v1 headers carried (read only to recognise a v1 view)."""
_BLOCK = 1 << 20
_FLUSH = 4 << 20
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


_CUTTING = frozenset(
    ["MARKER", "MIN_KEEP", "Path", "StringCutter", "TextCutter", "cut_text", "shorten_json", "shorten_value"]
)


def __getattr__(name: str) -> object:
    """The cutting tools, re-exported so that an agent imports ``views`` alone, loaded only when a record is cut."""
    if name in _CUTTING:
        from entire_core import cutting

        return getattr(cutting, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- wrapping: native lines in generic JSONL, and back ----------------------------------------------------


def _dumps(value: object) -> str:
    # Core's own writer: a hook path never imports json (and with it re, enum, functools).
    from entire_core import _json

    return _json.dumps_state(value)


def wrap(fmt: ViewFormat, line: bytes, *, kind: str | None = None) -> bytes:
    """One native line (without its newline) as one generic-JSONL line that carries it losslessly.

    ``kind="native"`` forces a record the compactor skips (snapshot records restate older turns);
    a text format's ``record`` is then not asked (it reads the lines it is given in order).
    """
    from entire_core import _json

    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        import base64

        return _dumps({"type": NATIVE, "native_b64": base64.b64encode(line).decode("ascii")}).encode()
    if not fmt.json_records:
        mapped = fmt.record(text.removesuffix("\r")) if kind is None else None
        return _wrapped(fmt, mapped, None, False, text, kind)
    value: Any = None
    parsed = False
    if text.strip():
        try:
            value = _json.loads(text)
            parsed = True
        except (ValueError, RecursionError):
            parsed = False
    mapped = fmt.record(value) if parsed else None
    try:
        same = parsed and _dumps(value) == text
    except (ValueError, RecursionError):
        same = False
    return _wrapped(fmt, mapped, value, same, text, kind)


def _wrapped(
    fmt: ViewFormat, mapped: Mapped | None, value: Any, same: bool, text: str, kind: str | None
) -> bytes:
    out: dict[str, Any] = {"type": NATIVE}
    if mapped is not None:
        mtype, blocks, stamp = mapped
        if kind is None and mtype in (USER, ASSISTANT) and blocks:
            out["type"] = mtype
        if stamp:
            out["timestamp"] = stamp
        if out["type"] != NATIVE:
            message: dict[str, Any] = {"role": mtype, "content": blocks}
            if mtype == ASSISTANT:
                message.update(fmt.message_extra(value if fmt.json_records else text))
            out["message"] = message
    if same:
        out["native"] = value
    else:
        out["native_text"] = text
    return _dumps(out).encode("utf-8", "surrogatepass")


def rewrap(line: bytes, native: bytes) -> bytes:
    """A wrapped view line carrying ``native`` instead of its own native line, its mapping kept.

    For text formats, whose mapping depends on the lines before (``ViewFormat.state``): a record
    shortened after it was mapped keeps what it restates.
    """
    from entire_core import _json
    from entire_core.jsonvalues import obj

    try:
        value = obj(_json.loads(line))
    except (ValueError, RecursionError):
        value = {}
    for key in ("native", "native_text", "native_b64"):
        value.pop(key, None)
    value.setdefault("type", NATIVE)
    try:
        value["native_text"] = native.decode("utf-8")
    except UnicodeDecodeError:
        import base64

        value["native_b64"] = base64.b64encode(native).decode("ascii")
    return _dumps(value).encode("utf-8", "surrogatepass")


def unwrap(line: bytes) -> bytes | None:
    """The native line a wrapped view line carries; None for header padding, the marker and ``LEAD``.

    A line that is not a wrapped record is returned as it is (a native view's own lines).
    """
    stripped = line.strip()
    if not stripped or stripped.startswith(VIEW_LINE):
        return None
    if b'"native' not in line:
        return line
    from entire_core import _json
    from entire_core.jsonvalues import obj

    try:
        parsed: object = _json.loads(line)
    except (ValueError, RecursionError):
        return line
    value = obj(parsed)
    if not value:
        return line
    if "native" in value:
        return _dumps(value["native"]).encode("utf-8", "surrogatepass")
    if isinstance(value.get("native_text"), str):
        return str(value["native_text"]).encode("utf-8", "surrogatepass")
    if isinstance(value.get("native_b64"), str):
        import base64
        import binascii

        try:
            return base64.b64decode(str(value["native_b64"]), validate=True)
        except (ValueError, binascii.Error):
            return line
    return line


def native_lines(lines: Iterator[bytes] | list[bytes], wrapped: bool) -> Iterator[bytes]:
    """The agent's own lines in view lines: unwrapped (wrapped views), the view's own lines skipped."""
    for line in lines:
        if wrapped:
            native = unwrap(line)
            if native is not None:
                yield native
        elif line.strip() and not line.startswith(VIEW_LINE):
            yield line


def lines_as_native(lines: Iterable[bytes]) -> Iterator[bytes]:
    """Each view line as the agent's own line, one for one (line N stays line N): wrapped lines
    unwrapped, header padding, the marker and ``LEAD`` as empty lines. For text formats, whose parsers count lines."""
    for line in lines:
        native = unwrap(line)
        yield b"" if native is None else native


def unpadded(data: bytes) -> bytes:
    """View bytes without the spaces ``View.turn_ended`` may leave after the last line."""
    tail = data.rfind(b"\n") + 1
    return data[:tail] if tail and not data[tail:].strip() else data


def native_bytes(data: bytes, wrapped: bool) -> bytes:
    """The agent's own file restored from view bytes (``write-session``): the view's own lines dropped."""
    if not data or (wrapped and not data.startswith(b'{"type":"')):
        return data  # not a wrapped view (a mirror of a file the format does not view): as it is
    lines = data.split(b"\n")
    tail = lines.pop()  # what follows the last newline (b"" for a complete view)
    body = head_lines_of(data)
    out: list[bytes] = []
    for i, line in enumerate(lines):
        if wrapped:
            native = unwrap(line)
            if native is not None:
                out.append(native + b"\n")
        elif (i == 0 and line != LEAD) or i >= body or (line.strip() and not line.startswith(VIEW_LINE)):
            out.append(line + b"\n")
    if tail.strip():  # not the spaces ``View.turn_ended`` may leave after the last line
        out.append(unwrap(tail) or b"" if wrapped else tail)
    return b"".join(out)


# -- frames: the body's start, the end, and offsets clamped to them ------------------------------------------


def marker(body: int, resume: int | None = None, cut: dict[str, Any] | None = None) -> bytes:
    """The header's marker line: the body starts at line ``body``; ``cut``: the usage of the lines a
    re-base dropped after the start the CLI stored (``View._carry``)."""
    extra = b"" if resume is None else b',"resume":%d' % resume
    if cut is not None:
        extra += b',"cut":' + _dumps(cut).encode("utf-8")
    return MARKER_PREFIX + b"%d%s}" % (body, extra)


def _marker_values(line: bytes) -> tuple[int, int | None, dict[str, Any] | None] | None:
    """A marker line's body start, resume line and carried usage (None for a line that is no marker)."""
    if not line.startswith(MARKER_PREFIX):
        return None
    from entire_core import _json
    from entire_core.jsonvalues import obj

    try:
        value = obj(_json.loads(line))
    except (ValueError, RecursionError):
        return None
    body = value.get("body")
    if not isinstance(body, int) or body < 2:
        return None
    resume = value.get("resume")
    cut = obj(value.get("cut"))
    start = cut.get("from")
    valid = (
        isinstance(start, int)
        and 0 <= start < body
        and all(isinstance(cut.get(k), dict) for k in ("tokens", "total"))
    )
    return body, resume if isinstance(resume, int) else None, cut if valid else None


class Frame:
    """A view's body start (line), its end (lines, as the CLI counts them) and where old offsets resume.

    For agents whose parsers count bytes (``unit = "bytes"``) it also translates lines to bytes.
    """

    __slots__ = ("body", "cut", "end", "resume", "starts")

    def __init__(
        self,
        body: int = 0,
        end: int | None = None,
        resume: int | None = None,
        starts: Any = None,
        cut: dict[str, Any] | None = None,
    ) -> None:
        self.body = body
        self.end = end
        self.resume = resume
        self.starts = starts
        """A function of a line index to the byte it starts at, and its inverse (``_Starts``)."""
        self.cut = cut
        """What the marker carries of lines a re-base dropped: ``{"from", "tokens", "total"}``."""

    def carried(self, offset: int, *, total: bool = False) -> TokenUsage | None:
        """The usage of dropped lines an ``--offset`` counts from: the CLI's stored start, cut away since."""
        if self.cut is None or offset >= self.body or offset > int(self.cut["from"]):
            return None
        from entire_core.types import TokenUsage

        return TokenUsage.from_wire(self.cut["total" if total else "tokens"])

    def line(self, offset: int) -> int:
        """The line an ``--offset`` means: one inside the header is the body's start, one past the end the end."""
        if offset < self.body:
            return self.body
        if self.end is not None and offset > self.end:
            return (
                self.resume if self.resume is not None and self.body <= self.resume <= self.end else self.end
            )
        return offset

    def local(self, offset: int) -> int:
        """The agent's own position for an ``--offset`` (a line, or its byte for a bytes agent)."""
        line = self.line(offset)
        return self.starts.byte_of(line) if self.starts is not None else line

    def position(self, local: int) -> int:
        """The line position of the agent's own position ``local``."""
        return self.starts.line_of(local) if self.starts is not None else local

    @property
    def head_bytes(self) -> int:
        """The byte at which the body starts (known for the frames of a bytes agent; else 0)."""
        return self.starts.byte_of(self.body) if self.starts is not None and self.body else 0


class _Starts:
    """Line starts of view bytes (or a view file), for agents whose parsers count bytes."""

    __slots__ = ("data", "path")

    def __init__(self, data: bytes | None = None, path: str | None = None) -> None:
        self.data = data
        self.path = path

    def _bytes(self) -> bytes:
        if self.data is None:
            try:
                with open(self.path or "", "rb") as f:
                    self.data = f.read()
            except OSError:
                self.data = b""
        return self.data

    def byte_of(self, line: int) -> int:
        data = self._bytes()
        position = 0
        for _ in range(line):
            newline = data.find(b"\n", position)
            if newline < 0:
                return position
            position = newline + 1
        return position

    def line_of(self, byte: int) -> int:
        return self._bytes().count(b"\n", 0, byte)


def snapshot_of(fmt: ViewFormat, path: str, end: int, limit: int) -> list[bytes]:
    """``fmt.snapshot(path, end, limit)``: the format's native records restating ``path[:end]``."""
    return fmt.snapshot(path, end, limit)


def host_lines(data: bytes) -> int:
    """How many lines the CLI counts in ``data``: split on ``\\n``, trailing blank lines dropped."""
    parts = data.split(b"\n")
    while parts and not parts[-1].strip():  # Go's TrimSpace: a line of spaces is blank too
        parts.pop()
    return len(parts)


def head_lines_of(data: bytes) -> int:
    """Where the body of view bytes starts (0 without a header): read from the marker after the padding."""
    first_end = data.find(b"\n")
    if first_end < 0:
        return 0
    position = first_end + 1
    while position < len(data) and data[position : position + 1] in (b"\n", b"\r"):
        position = data.find(b"\n", position) + 1 or len(data)
    end = data.find(b"\n", position)
    values = _marker_values(data[position : len(data) if end < 0 else end].rstrip(b"\r"))
    return values[0] if values is not None else 0


def frame_of(data: bytes, unit: str = LINES, lines: int = 0) -> Frame:
    """The frame of view bytes (the stdin of ``calculate-tokens``); no marker means no header (and no end:
    an offset past it is the agent's to read). ``lines`` is ignored (v1 looked for a tag in that many first lines).
    """
    body = head_lines_of(data)
    resume = cut = None
    if body:
        at = data.find(MARKER_PREFIX)
        end = data.find(b"\n", at)
        values = _marker_values(data[at : len(data) if end < 0 else end].rstrip(b"\r"))
        if values is not None:
            resume, cut = values[1], values[2]
    # Bytes without a header are the agent's own file: its own reading of a stale offset applies.
    end = host_lines(data) if body else None
    return Frame(body, end, resume, _Starts(data=data) if unit == BYTES else None, cut)


def file_starts(path: str, unit: str) -> _Starts | None:
    """Line starts of a file for a bytes agent (None for a lines one): its offsets are lines on the wire."""
    return _Starts(path=path) if unit == BYTES else None


def frame_of_file(path: str, unit: str = LINES) -> Frame:
    """The frame of a view file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return Frame()
    return frame_of(data, unit)


# -- where views live -----------------------------------------------------------------------------------


def views_dir(env: Mapping[str, str], agent_name: str, repo_root: str) -> str:
    """The directory of one repository's views (``get-session-dir``): outside the repository."""
    from entire_core._digest import sha256_hex
    from entire_core.paths import state_dir

    real = os.path.normcase(os.path.realpath(repo_root))
    digest = sha256_hex(real.encode("utf-8", "surrogateescape"))[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(real))[:40]
    return os.path.join(state_dir(env, agent_name), "views", f"{name}-{digest}")


def is_view_path(agent: ViewOwner, path: str) -> bool:
    """True when ``path`` names a file in one of this plugin's view directories."""
    from entire_core.paths import state_dir

    root = os.path.join(state_dir(agent.env, agent.name), "views")
    parent = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    return os.path.normcase(parent) == os.path.normcase(os.path.abspath(root))


# -- the view -------------------------------------------------------------------------------------------


class View:
    """One session's view file and its metadata. Use as ``with View(...) as view:`` (holds the lock)."""

    def __init__(self, agent: ViewOwner, fmt: ViewFormat, path: str) -> None:
        self.agent = agent
        self.fmt = fmt
        self.path = path
        directory, name = os.path.split(path)
        key = name[: -len(agent.session_file_suffix)] if name.endswith(agent.session_file_suffix) else name
        self.key = key
        self.meta_path = os.path.join(directory, ".meta", key + ".json")
        self.next_path = path + ".next"
        self.budget = Budget(agent.env)
        fmt.record_budget = self.budget.record
        self.meta: dict[str, Any] = {}
        self.legacy: dict[str, Any] = {}
        """The metadata of a v1 view, until it is rebuilt."""
        self._lock: Any = None

    @classmethod
    def for_session(cls, agent: ViewOwner, fmt: ViewFormat, session_id: str) -> View:
        from entire_core import validate

        directory = views_dir(agent.env, agent.name, agent.repo_root)
        return cls(
            agent, fmt, os.path.join(directory, validate.session_id(session_id) + agent.session_file_suffix)
        )

    def __enter__(self) -> View:
        from entire_core import locks

        self._lock = locks.exclusive(self.meta_path[: -len(".json")] + ".lock")
        self._lock.__enter__()
        self.meta = self._load()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.__exit__(*exc)

    # -- metadata ----------------------------------------------------------------------------------------

    def _load(self) -> dict[str, Any]:
        from entire_core import _json, jsonvalues

        try:
            with open(self.meta_path, "rb") as f:
                meta = jsonvalues.obj(_json.loads(f.read()))
        except (OSError, ValueError):
            return {}
        if meta.get("v") == 1:
            self.legacy = meta
            return {}
        return meta if meta.get("v") == VERSION else {}

    def _save(self, *, durable: bool = False) -> None:
        """Commit the metadata. Appends need not survive a power loss: the next call copies them again
        from the native file; a rewrite's commit (``durable``) does, since it names ``<view>.next``."""
        import time

        from entire_core import _json, fsutil

        self.meta["v"] = VERSION
        self.meta["touched"] = int(time.time())
        fsutil.atomic_write(self.meta_path, _json.dumps_state(self.meta).encode("utf-8"), durable=durable)

    @property
    def exists(self) -> bool:
        return bool(self.meta) or bool(self.legacy)

    @property
    def native(self) -> str:
        return str(self.meta.get("native") or self.legacy.get("native") or "")

    def frame(self) -> Frame:
        m = self.meta
        if not m:
            return frame_of_file(self.path, self.fmt.unit)
        resume = m.get("resume")
        return Frame(
            int(m.get("head_lines", 0)),
            self.lines(),
            int(resume) if isinstance(resume, int) else None,
            _Starts(path=self.path) if self.fmt.unit == BYTES else None,
        )

    def lines(self) -> int:
        """The view's length in lines, as the CLI counts them (a view ending in blank lines: without them)."""
        lines = int(self.meta.get("view_lines", 0))
        size = int(self.meta.get("view_size", 0))
        if lines and size:
            try:
                with open(self.path, "rb") as f:
                    f.seek(max(0, size - 2))
                    tail = f.read(2)
            except OSError:
                return lines
            if tail in (b"\n\n", b"\n") or (tail.endswith(b"\r\n") and size <= 2):
                with open(self.path, "rb") as f:
                    return host_lines(f.read(size))
        return lines

    def end(self) -> int:
        """The view position of the view's end (its line count)."""
        return self.lines()

    # -- the CLI's own record of the session ---------------------------------------------------------------

    def host_start(self) -> int | None:
        """The ``checkpoint_transcript_start`` the CLI stored for this session, when it is about this view."""
        state = self._host_state()
        start = state.get("checkpoint_transcript_start", 0) if state is not None else None
        return start if isinstance(start, int) and start >= 0 else None

    def _host_state(self) -> dict[str, Any] | None:
        """The CLI's state file for this session (``.git/entire-sessions/<id>.json``), when it is about this view."""
        from entire_core import _json, gitdir, jsonvalues

        common = gitdir.common_dir(self.agent.repo_root)
        if common is None:
            return None
        try:
            with open(os.path.join(common, "entire-sessions", self.key + ".json"), "rb") as f:
                state = jsonvalues.obj(_json.loads(f.read(1 << 20)))
        except (OSError, ValueError):
            return None
        recorded = state.get("transcript_path")
        if not isinstance(recorded, str) or not recorded:
            return None
        if os.path.normcase(os.path.abspath(recorded)) != os.path.normcase(os.path.abspath(self.path)):
            return None
        return state

    # -- keeping the view consistent -------------------------------------------------------------------

    def _recover(self) -> bool:
        """Repair what a killed process left; False when only a rebuild can help."""
        m = self.meta
        want = m.get("view_id")
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            st = None
        if st is None or [st.st_dev, st.st_ino] != want:
            try:
                nxt = os.stat(self.next_path)
            except FileNotFoundError:
                return False
            if [nxt.st_dev, nxt.st_ino] != want:
                return False
            os.replace(self.next_path, self.path)
            st = os.stat(self.path)
        size = int(m.get("view_size", 0))
        if st.st_size < size:
            return False
        if st.st_size != size + int(m.get("pad", 0)):  # an append that was never committed
            with open(self.path, "r+b") as f:
                f.truncate(size)
            m["pad"] = 0
        return True

    def sync(
        self, native: str | None = None, *, start: int = 0, upto: int | None = None, commit: bool = True
    ) -> None:
        """Bring the view up to date with ``native`` (the recorded native file and start when None).

        ``start`` is where the session begins in the native file and ``upto`` where to stop (the
        default: its last complete line); a view kept ``upto`` a point does not follow the file later.
        ``commit=False`` leaves an append's commit (``_save``) to the caller's next step, which must save.
        """
        m = self.meta
        if self.legacy:
            if native is None:
                native, start = str(self.legacy.get("native") or ""), int(self.legacy.get("native_start", 0))
            if native:
                self._upgrade(os.path.abspath(native), start, upto)
            return
        if native is None:
            if not m or not m.get("follow", True):
                return
            native, start = self.native, int(m["native_start"])
        native = os.path.abspath(native)
        if m and not self._recover():
            lead = bool(m.get("lead"))
            self.meta = {}  # the same file, the view lost: line N is native line N (N - 1 after LEAD) again
            self._rebuild(native, start, upto, lead=lead)
            return
        if not m or m.get("native") != native or int(m.get("native_start", 0)) != start:
            self._rebuild(native, start, upto, new=True)
            return
        try:
            st = os.stat(native)
        except FileNotFoundError:
            return  # the agent may not have written it yet, or deleted it: keep what we have
        if m.get("mirror"):
            self._mirror(native, st)
            return
        consumed = int(m["native_end"])
        # The same file goes on where we stopped: its bytes there are the ones we read (an inode
        # can be reused at once by a recreated file; an atomic rewrite keeps the bytes, not the inode).
        mark = m.get("native_mark")
        same = st.st_size >= consumed and mark == _mark(native, start, consumed, crc=_is_crc_mark(mark))
        if not same:
            self._rebuild(native, start, upto)
            return
        end = offsets.complete_end(native) if upto is None else min(upto, st.st_size)
        if (
            end <= consumed
            and m.get("follow", True) == (upto is None)
            and m.get("native_id") == [st.st_dev, st.st_ino]
        ):
            return
        m["follow"] = upto is None
        m["native_id"] = [st.st_dev, st.st_ino]
        if end > consumed:
            self._append(native, consumed, end)
        m["native_mark"] = _mark(native, start, int(m["native_end"]))
        self._fit()
        if commit:
            self._save()

    def _mirror(self, native: str, st: os.stat_result | None) -> None:
        """A native file in a format the agent does not view: the view is a whole copy of it."""
        import zlib

        m = self.meta
        data = self.fmt.whole(native) if st is not None else None
        if data is None:
            if m.get("mirror"):
                return  # nothing readable now: keep what we have
            data = b""  # a first mirror of a file not readable yet: empty until it is
        stamp = [st.st_dev, st.st_ino, len(data), zlib.crc32(data)]  # pyright: ignore[reportOptionalMemberAccess]
        if m.get("mirror") and m.get("native_id") == stamp:
            return
        m.update(mirror=True, native_id=stamp, native_end=len(data), head_lines=0, head_bytes=0)
        self._write_whole(data, host_lines(data))

    def _upgrade(self, native: str, start: int, upto: int | None) -> None:
        """A v1 view: rebuild it as v2, keeping a turn in progress (offsets the CLI took in v1 resume there)."""
        legacy = self.legacy
        self.legacy = {}
        turn_native: int | None = None
        turn = int(legacy.get("turn", -1)) if isinstance(legacy.get("turn"), int) else -1
        if turn >= 0 and legacy.get("native") == native and not legacy.get("mirror"):
            turn_native = _legacy_turn_start(self.path, turn, legacy, native, start)
        self._rebuild(native, start, upto, new=True, resume_at=turn_native if turn_native is not None else -1)

    def _rebuild(
        self,
        native: str,
        start: int,
        upto: int | None,
        *,
        new: bool = False,
        resume_at: int | None = None,
        lead: bool | None = None,
    ) -> None:
        """Make the view anew from ``native``: a header restating what no longer fits, then the recent tail.

        Line N of the view is line N of the native file's session (shifted past the old view's end when
        one is replaced), or N - 1 in a view that starts with ``LEAD`` (``lead``; by default, when the
        view replaced did). ``resume_at`` (a v1 upgrade): the
        native byte where a turn in progress starts (-1: none), where offsets past the end resume.
        """
        # A view made anew after another (the agent replaced its file) starts its body no earlier than
        # where the old one ended: a line the CLI stored for the old view never points into the new body.
        floor = self.lines() if self.meta else 0
        shift = int(bool(self.meta.get("lead")) if lead is None else lead)
        turn_line = self._turn_line(native, start)
        m: dict[str, Any] = {"native": native, "native_start": start, "follow": upto is None, "turn": -1}
        if shift:
            m["lead"] = 1
        self.meta = m
        st: os.stat_result | None
        try:
            st = os.stat(native)
        except FileNotFoundError:
            st = None
        end = 0 if st is None else (offsets.complete_end(native) if upto is None else min(upto, st.st_size))
        if st is not None and not self.fmt.accepts(native):
            self._mirror(native, st)
            self._save()
            return
        m["native_id"] = [st.st_dev, st.st_ino] if st is not None else None
        cut = start
        if end - start > self.budget.total // REBASE_AT:
            cut = offsets.complete_end(native, max(start, end - self.budget.total // (2 * REBASE_AT)))
        if resume_at is not None and resume_at >= 0 and end - resume_at <= self.budget.total:
            cut = min(cut, resume_at)  # the turn in progress stays whole
        turn_at = (
            offsets.line_start_in(native, start, max(0, turn_line - shift)) if turn_line is not None else None
        )
        if turn_at is not None and turn_at < cut and end - turn_at <= HARD_LIMIT:
            cut = turn_at  # the turn in progress stays whole (its start is where the CLI counts from)
        lines_before = offsets.count_newlines(native, start, cut) if cut > start else 0
        stored = self.host_start()
        if stored is not None and stored - shift < lines_before:
            at = offsets.line_start_in(native, start, max(0, stored - shift))
            if end - at + self._snapshot_room() <= self.budget.total:
                cut, lines_before = at, max(0, stored - shift)
        header: list[bytes] = [LEAD] if shift else []
        opening = offsets.line_at(native, start) if st is not None and floor > lines_before + shift else None
        if opening is not None:
            cut = max(cut, start + len(opening))
            lines_before = max(offsets.count_newlines(native, start, cut), floor - shift)
        if lines_before >= 2 and st is not None:
            first = (offsets.line_at(native, start) or b"\n")[:-1].removesuffix(b"\r")
            header = self._fitted_header(
                lines_before + shift,
                LEAD if shift else first,
                lambda limit: self._snapshot(native, start, cut, first, limit, keep_first=bool(shift)),
                wrapped_first=bool(shift),
                lead=bool(shift),
            )
        else:
            cut = start
        head = b"".join(line + b"\n" for line in header)
        # A view of LEAD alone has no header: its body starts at line 0.
        body = len(header) if len(header) > shift else 0
        m.update(head_lines=body, head_bytes=len(head) if body else 0, native_end=cut)
        self._write_whole(head, len(header))
        if end > cut:
            self._append(native, cut, end)
        m["native_end"] = max(int(m["native_end"]), cut)
        m["native_mark"] = _mark(native, start, int(m["native_end"]))
        if turn_line is not None and turn_line >= len(header):
            m["turn"] = offsets.line_start_in(self.path, 0, turn_line)
        if resume_at is not None:
            if resume_at >= 0:
                resume = len(header) + offsets.count_newlines(native, cut, max(cut, resume_at))
                m["turn"] = offsets.line_start_in(self.path, 0, resume)
            else:
                resume = self.lines()
            m["resume"] = resume
            if header:
                self._set_resume(resume)
        self._fit()
        self._save()
        if new:
            self._sweep()

    def _turn_line(self, native: str, start: int) -> int | None:
        """The line the turn in progress starts at, when the view being replaced followed the same file."""
        m = self.meta
        turn = m.get("turn", -1)
        if not m or m.get("mirror") or m.get("native") != native or m.get("native_start", 0) != start:
            return None
        if not isinstance(turn, int) or turn < 0:
            return None
        try:
            return offsets.count_newlines(self.path, 0, turn) if turn else 0
        except OSError:
            return None

    def _snapshot_room(self) -> int:
        return self.budget.total // SNAPSHOT_SHARE

    def _set_resume(self, resume: int) -> None:
        """Write ``resume`` into the header's marker (so the bytes on stdin carry it too)."""
        with open(self.path, "rb") as f:
            data = f.read(int(self.meta["view_size"]))
        body = head_lines_of(data)
        at = data.find(MARKER_PREFIX)
        stop = data.find(b"\n", at)
        values = _marker_values(data[at:stop])
        new = data[:at] + marker(body, resume, values[2] if values is not None else None) + data[stop:]
        self._write_whole(new, self.lines())

    def _fitted_header(
        self,
        lines: int,
        first: bytes,
        records_for: Callable[[int], list[bytes]],
        *,
        wrapped_first: bool,
        lead: bool = False,
    ) -> list[bytes]:
        """The header of ``lines`` lines, its snapshot records asked of the format within the snapshot's
        room (``records_for(limit)``); asked again with less when wrapping took them past that room."""
        room = self._snapshot_room()
        header = self._header(lines, first, records_for(room), wrapped_first=wrapped_first, lead=lead)
        size = sum(len(line) + 1 for line in header)
        if self.fmt.wrap and size > room:
            smaller = max(MIN_BUDGET // 4, room * room // size)
            header = self._header(lines, first, records_for(smaller), wrapped_first=wrapped_first, lead=lead)
        return header

    def _snapshot(
        self, path: str, start: int, end: int, first: bytes, limit: int, *, keep_first: bool = False
    ) -> list[bytes]:
        """The agent's snapshot records (native lines) restating ``path[start:end]``, its first line dropped
        (the header's first line) unless ``keep_first`` (a header that starts with ``LEAD``)."""
        if start:
            # The agent's snapshot reads a file that starts with the session: hand it one.
            scratch = self.path + ".native"
            _copy_range(path, start, end, scratch)
            try:
                return self._snapshot(scratch, 0, end - start, first, limit, keep_first=keep_first)
            finally:
                from entire_core import fsutil

                fsutil.remove_file(scratch)
        records = snapshot_of(self.fmt, path, end, limit)
        if not records or records[0].removesuffix(b"\r") != first.removesuffix(b"\r"):
            from entire_core.errors import AgentError

            raise AgentError(f"{self.agent.name}: the view snapshot does not start with the session header")
        return records if keep_first else records[1:]

    def _header(
        self, lines: int, first: bytes, records: list[bytes], *, wrapped_first: bool, lead: bool = False
    ) -> list[bytes]:
        """Exactly ``lines`` header lines: the first line, padding, the marker, the last snapshot records that fit.

        After ``LEAD`` (``lead``, ``first``) the session's first line is the snapshot's first record, kept
        whenever there is room for one record (``qwen --resume`` checks the session's first record).
        """
        room = lines - 2
        pinned: list[bytes] = []
        if lead and records and room > 0:
            pinned, records, room = records[:1], records[1:], room - 1
        if room <= 0:
            kept: list[bytes] = []
        elif room < len(records):  # the format's leading records that must stay, then the newest ones
            keep = min(self.fmt.snapshot_keep_first, room - 1)
            kept = records[:keep] + records[len(records) - (room - keep) :]
        else:
            kept = records
        kept = pinned + kept
        if self.fmt.wrap:
            if not wrapped_first:
                first = wrap(self.fmt, first, kind=NATIVE)
            kept = [wrap(self.fmt, r, kind=NATIVE) for r in kept]
        return [first] + [b""] * (lines - 2 - len(kept)) + [marker(lines)] + kept

    def _write_whole(self, data: bytes, lines: int) -> None:
        """Replace the view with ``data`` through ``<view>.next``, committing through the metadata."""
        from entire_core import fsutil

        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fsutil.remove_file(self.next_path)
        fd = os.open(self.next_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
            st = os.fstat(fd)
        finally:
            os.close(fd)
        self.meta.update(view_id=[st.st_dev, st.st_ino], view_size=len(data), view_lines=lines, pad=0)
        self._save(durable=True)
        os.replace(self.next_path, self.path)

    def _line_for_view(self, line: bytes, limit: int) -> bytes:
        """A native line as the view holds it: shortened past ``limit``, wrapped for a wrapped format.

        A wrapped line restates the text it maps next to the native record: the native record is cut
        to half the limit when the wrapped line would be over it.
        """
        if len(line) > limit:
            short = self.fmt.shorten(line.removesuffix(b"\r"), limit)
            if short is not None and len(short) < len(line):
                line = short
        if not self.fmt.wrap:
            return line
        wrapped = wrap(self.fmt, line)
        if len(wrapped) > limit and len(line) > limit // 2:
            short = self.fmt.shorten(line.removesuffix(b"\r"), limit // 2)
            if short is not None and len(short) < len(line):
                wrapped = wrap(self.fmt, short) if self.fmt.json_records else rewrap(wrapped, short)
        return wrapped

    def _append(self, native: str, begin: int, end: int) -> None:
        """Copy native lines ``[begin, end)`` to the view, one view line each, in bounded memory.

        Every full ``_FLUSH`` of records is committed as it is written; the last, short one is left
        for the caller to commit with the rest of its update (until then the next call cuts it off).
        """
        m = self.meta
        record_limit = self.budget.record
        pending: list[bytes] = []
        size = lines = 0

        reads_text = self.fmt.wrap and not self.fmt.json_records
        if reads_text:
            self.fmt.state = m.get("wrap_state")

        def flush(*, commit: bool) -> None:
            nonlocal size, lines
            if not pending:
                return
            if reads_text:
                m["wrap_state"] = self.fmt.state
            with open(self.path, "r+b") as f:
                f.seek(int(m["view_size"]))
                f.writelines(pending)
                f.truncate()
            m["view_size"] = int(m["view_size"]) + size
            m["view_lines"] = int(m["view_lines"]) + lines
            m["pad"] = 0  # written over
            # What a commit from here on says was read: without it the next call takes the file for another.
            m["native_mark"] = _mark(native, int(m["native_start"]), int(m["native_end"]))
            pending.clear()
            size = lines = 0
            if commit:
                self._save()
            if int(m["view_size"]) > self.budget.total:
                self._fit()

        def cutter() -> object:  # only for a record over HUGE_RECORD
            from entire_core.cutting import MIN_KEEP, StringCutter, TextCutter

            keep = min(max(MIN_KEEP, record_limit // 4), HUGE_KEEP)
            return StringCutter(keep) if self.fmt.json_records else TextCutter(keep)

        for line, stop in offsets.lines_between(native, begin, end, huge=HUGE_RECORD, cutter=cutter):
            line = self._line_for_view(line, record_limit)
            pending += (line, b"\n")
            size += len(line) + 1
            lines += 1
            m["native_end"] = stop
            del line
            if size >= _FLUSH:
                flush(commit=True)
        flush(commit=False)
        m["native_end"] = max(int(m["native_end"]), begin)

    # -- the budget ----------------------------------------------------------------------------------------

    def turn_started(self) -> None:
        """A turn starts: re-base when the view holds more than half its budget, then mark the turn.

        A wrapped view that holds nothing yet (the agent writes its file after the prompt's hook) gets
        ``LEAD`` as its first line, so that the turn starts at line 1: the CLI reads a start of 0 as none
        and counts the turn from its ``checkpoint_transcript_start``, which a commit the agent makes in
        that turn moves past the turn's prompt. A native view's lines are all the agent's own.
        """
        m = self.meta
        if m.get("mirror"):
            return  # a whole copy of a file the format does not view: nothing to re-base
        if int(m.get("view_size", 0)) > self.budget.total // REBASE_AT:
            self._rebase(int(m["view_size"]))
        if self.fmt.wrap and int(m.get("view_size", 0)) == 0 and m:
            m["lead"] = 1
            self._write_whole(LEAD + b"\n", 1)
        m["turn"] = int(m["view_size"])
        self._save()

    def turn_ended(self) -> None:
        """A turn ends: keep the view larger in bytes than the CLI last stored it, when it has lines since.

        The CLI copies the view at TurnEnd, and at a later commit of an idle or ended session finds new
        work only when that copy is larger in *bytes* than the view at its last condensation
        (``checkpoint_transcript_size``; v0.10.3, ``sessionHasNewContent``). A view re-based since is
        shorter in bytes though longer in lines, and that commit would name a checkpoint the CLI never
        writes. So the view is followed by just enough spaces (``pad``) after its last line: the CLI
        counts no line there (trailing blank lines are dropped), its readers skip blank lines, and the
        next append writes over them. Set anew at every TurnEnd, the padding keeps the view a byte a
        turn past its size at the last commit, never more: the budget still bounds it.
        """
        m = self.meta
        if m.get("mirror") or not m:
            return
        pad = 0
        state = self._host_state()
        if state is not None:
            start, stored = state.get("checkpoint_transcript_start"), state.get("checkpoint_transcript_size")
            if isinstance(start, int) and isinstance(stored, int) and stored > 0 and self.lines() > start:
                pad = max(0, stored + 1 - int(m["view_size"]))
        if pad != int(m.get("pad", 0)):
            with open(self.path, "r+b") as f:
                f.seek(int(m["view_size"]))
                f.write(b" " * pad)
                f.truncate()
            m["pad"] = pad
            self._save()

    def _fit(self) -> None:
        """Keep the view within its budget: re-base at the turn's start, then shorten the turn's largest records."""
        m = self.meta
        if m.get("mirror") or int(m["view_size"]) <= self.budget.total:
            return
        turn = int(m.get("turn", -1))
        if turn > int(m["head_bytes"]):
            self._rebase(turn)
        if int(m["view_size"]) > self.budget.total:
            self._shrink()
        if int(m["view_size"]) > max(self.budget.total, HARD_LIMIT):
            # Not even shortening helps (a turn of countless small records): keep the newest part.
            cut = offsets.complete_end(
                self.path, max(int(m["head_bytes"]), int(m["view_size"]) - self.budget.total // REBASE_AT)
            )
            if cut > int(m["head_bytes"]):
                self._rebase(cut, forced=True)

    def _rebase(self, cut: int, *, forced: bool = False) -> None:
        """Replace the view's lines before ``cut`` (a line start) with a header of as many lines.

        Never below the CLI's stored ``checkpoint_transcript_start`` while what follows it fits the budget.
        """
        m = self.meta
        size = int(m["view_size"])
        lines = offsets.count_newlines(self.path, 0, cut)
        stored = self.host_start()
        if stored is not None and stored < lines and not forced:
            at = offsets.line_start_in(self.path, 0, stored)
            # What the view would hold: the lines after the stored start and a header before them.
            head = int(m["head_bytes"]) if stored <= int(m.get("head_lines", 0)) else self._snapshot_room()
            if size - at + head <= self.budget.total:
                cut, lines = at, stored
        lead = bool(m.get("lead"))
        if lines < 2 + lead or lines <= int(m.get("head_lines", 0)):
            return  # (after LEAD, a header holds at least the session's first line)
        carried_from = stored if stored is not None and stored < lines else None
        before = None
        if carried_from is not None:
            with open(self.path, "rb") as f:
                before = self._counted(f.read(size), carried_from)
        with open(self.path, "rb") as f:
            first = f.readline().removesuffix(b"\n").removesuffix(b"\r")
        if self.fmt.wrap:
            scratch = self.path + ".native"
            with open(scratch, "wb") as out:
                for line, _ in offsets.lines_between(self.path, 0, cut):
                    native = unwrap(line)
                    if native is not None:
                        out.write(native + b"\n")
            try:
                if lead:  # the session's first line follows LEAD
                    native_first = (offsets.line_at(scratch, 0) or b"\n")[:-1].removesuffix(b"\r")
                else:
                    native_first = unwrap(first) or b""
                size = os.path.getsize(scratch)
                header = self._fitted_header(
                    lines,
                    first,
                    lambda limit: self._snapshot(scratch, 0, size, native_first, limit, keep_first=lead),
                    wrapped_first=True,
                    lead=lead,
                )
            finally:
                from entire_core import fsutil

                fsutil.remove_file(scratch)
        else:
            header = self._fitted_header(
                lines,
                first,
                lambda limit: self._snapshot(self.path, 0, cut, first, limit),
                wrapped_first=True,
            )
        with open(self.path, "rb") as f:
            f.seek(cut)
            body = f.read(int(m["view_size"]) - cut)
        if carried_from is not None:
            self._carry(header, body, before, carried_from)
        head = b"".join(line + b"\n" for line in header)
        turn = int(m.get("turn", -1))
        resume = m.get("resume")
        m.update(head_lines=len(header), head_bytes=len(head))
        m["turn"] = len(head) + (turn - cut) if turn >= cut else -1
        data = head + body
        if isinstance(resume, int) and resume < lines:
            m.pop("resume", None)
        self._write_whole(data, lines + body.count(b"\n"))

    def _counted(self, data: bytes, stored: int) -> tuple[TokenUsage, TokenUsage] | None:
        """What ``calculate-tokens`` and ``calculate-total-tokens --offset stored`` answer on view bytes
        ``data`` (None for an agent that counts no tokens, or bytes it cannot count)."""
        from entire_core.errors import AgentError

        frame = frame_of(data, self.fmt.unit)
        try:
            counts = self.agent.token_counts(data, frame.local(stored))
        except (AgentError, ValueError):
            return None
        if counts is None:
            return None
        tokens = counts[0] + (frame.carried(stored) or _no_usage())
        if counts[1] is None:
            return tokens, tokens
        return tokens, counts[1] + (frame.carried(stored, total=True) or _no_usage())

    def _carry(
        self, header: list[bytes], body: bytes, before: tuple[TokenUsage, TokenUsage] | None, stored: int
    ) -> None:
        """Put into the new header's marker what a count from the CLI's stored ``stored`` loses to the
        re-base (``before``: the counts on the view being replaced), so that it answers the same on the
        new view: a session committed only at its end, past the budget, keeps its earlier turns' usage.
        The difference, not a count of the dropped lines: where a range's count depends on what precedes
        it (Codex's cumulative ``token_count``, Gemini's messages rewritten by id), those would differ."""
        at = next((i for i, line in enumerate(header) if line.startswith(MARKER_PREFIX)), None)
        if before is None or at is None:
            return
        after = self._counted(b"".join(line + b"\n" for line in header) + body, stored)
        if after is None:
            return
        tokens, total = before[0] - after[0], before[1] - after[1]
        if not (tokens.is_zero() and total.is_zero()):
            header[at] = marker(
                len(header), cut={"from": stored, "tokens": tokens.to_wire(), "total": total.to_wire()}
            )

    def _shrink(self) -> None:
        """Shorten the largest records after the turn's start (or the header), largest first, until the view fits."""
        m = self.meta
        start = max(int(m["head_bytes"]), int(m.get("turn", -1)))
        with open(self.path, "rb") as f:
            data = f.read(int(m["view_size"]))
        lines = data[start:].split(b"\n")
        trailing = lines.pop()  # b"" after the last newline
        over = len(data) - self.budget.total
        order = sorted(range(len(lines)), key=lambda i: len(lines[i]), reverse=True)
        for i in order:
            if over <= 0 or len(lines[i]) <= SHRINK_TO:
                break
            short = self._shorten_view_line(lines[i], SHRINK_TO)
            if short is not None and len(short) < len(lines[i]):
                over -= len(lines[i]) - len(short)
                lines[i] = short
        body = b"\n".join([*lines, trailing])
        new = data[:start] + body
        if len(new) < len(data):
            self._write_whole(new, self.lines())

    def _shorten_view_line(self, line: bytes, limit: int) -> bytes | None:
        if not self.fmt.wrap:
            return self.fmt.shorten(line, limit)
        native = unwrap(line)
        if native is None:
            return None
        short = self.fmt.shorten(native, limit // 2)  # the wrapped line restates what it maps
        if short is None:
            return None
        return wrap(self.fmt, short) if self.fmt.json_records else rewrap(line, short)

    # -- maintenance ------------------------------------------------------------------------------------

    def _sweep(self) -> None:
        """Remove views of sessions untouched for ``KEEP_SECONDS`` (best effort)."""
        import time

        from entire_core import fsutil

        meta_dir = os.path.dirname(self.meta_path)
        cutoff = time.time() - KEEP_SECONDS
        try:
            names = os.listdir(meta_dir)
        except OSError:
            return
        for name in names:
            if not name.endswith(".json") or os.path.join(meta_dir, name) == self.meta_path:
                continue
            meta = os.path.join(meta_dir, name)
            try:
                if os.stat(meta).st_mtime >= cutoff:
                    continue
                key = name[: -len(".json")]
                view = os.path.join(os.path.dirname(meta_dir), key + self.agent.session_file_suffix)
                for path in (view, view + ".next", meta, meta[: -len(".json")] + ".lock"):
                    fsutil.remove_file(path)
            except OSError:
                continue

    def adopt(self, native: str, data: bytes, *, native_end: int | None = None) -> None:
        """After ``write-session``: the view holds ``data``; ``native`` was just written from it (``native_bytes``).

        ``native_end``: where in ``native`` what ``data`` holds ends, when more follows (the next sync copies it).
        """
        data = unpadded(data)  # a checkpoint of a padded view: its spaces are no part of the session
        try:
            st = os.stat(native)
            native_id: list[int] | None = [st.st_dev, st.st_ino]
            native_size = st.st_size if native_end is None else min(native_end, st.st_size)
        except FileNotFoundError:
            native_id = None
            native_size = 0
        head = head_lines_of(data)
        self.legacy = {}
        lead = data.split(b"\n", 1)[0].removesuffix(b"\r") == LEAD
        self.meta = {
            # Bytes that do not end a line cannot be followed: the agent's next record would join them.
            "native": os.path.abspath(native), "native_id": native_id, "native_start": 0,
            "follow": data.endswith(b"\n") or not data,
            "native_end": native_size, "turn": -1,
            "head_lines": head, "head_bytes": offsets.line_start(data, head),
            **({"lead": 1} if lead else {}),
        }  # fmt: skip
        self.meta["native_mark"] = _mark(native, 0, native_size)
        if native_id is not None and not self.fmt.accepts(native):
            import zlib

            self.meta.update(mirror=True, native_id=[*native_id, len(data), zlib.crc32(data)])
        self._write_whole(data, host_lines(data))


def _no_usage() -> TokenUsage:
    from entire_core.types import TokenUsage

    return TokenUsage()


def _legacy_turn_start(view: str, turn: int, legacy: dict[str, Any], native: str, start: int) -> int | None:
    """Where in ``native`` the v1 view's turn in progress (its byte ``turn``) starts: that record's line."""
    line = offsets.line_at(view, turn)
    if line is None:
        return None
    consumed = int(legacy.get("native_end", 0))
    found: int | None = None
    position = start
    for native_line, stop in offsets.lines_between(native, start, consumed):
        if native_line + b"\n" == line:
            found = position
        position = stop
    if found is None:
        # Prompts are never cut, so the line is there unless the file changed: the turn's byte
        # distance from the end is kept (records after it may have been shortened, so this is late).
        found = offsets.complete_end(native, max(start, consumed - (int(legacy.get("view_size", 0)) - turn)))
    return found


def _copy_range(path: str, begin: int, end: int, target: str) -> None:
    with open(path, "rb") as src, open(target, "wb") as out:
        src.seek(begin)
        remaining = end - begin
        while remaining > 0:
            block = src.read(min(_BLOCK, remaining))
            if not block:
                break
            out.write(block)
            remaining -= len(block)


# -- reading native files ---------------------------------------------------------------------------------


def _mark(path: str, start: int, end: int, *, crc: bool = False) -> str:
    """A fingerprint of ``path`` up to ``end``: its session's first bytes and the bytes before ``end``.

    ``crc`` makes the form that views of 0.1 stored, CRC-32s; it loads zlib, which most Python builds
    keep in a shared library, so a hook paid that on every call. Today's form needs no module.
    """
    try:
        with open(path, "rb") as f:
            f.seek(start)
            head = f.read(min(4096, end - start))
            f.seek(max(start, end - 4096))
            tail = f.read(end - max(start, end - 4096))
    except OSError:
        return ""
    if crc:
        import zlib

        return f"{end}:{zlib.crc32(head):08x}:{zlib.crc32(tail):08x}"
    return f"{end}:{_fingerprint(head):016x}:{_fingerprint(tail):016x}"


_MERSENNE_61 = (1 << 61) - 1


def _fingerprint(data: bytes) -> int:
    """``data`` as a number modulo a 61-bit prime: two different blocks agree by chance once in 2**61.

    The leading 1 keeps leading zero bytes, so blocks of different lengths differ.
    """
    return int.from_bytes(b"\x01" + data, "big") % _MERSENNE_61


def _is_crc_mark(mark: object) -> bool:
    """Whether a stored mark has the 0.1 form (8 hex digits a part), checked with that form until renewed."""
    return isinstance(mark, str) and len(mark.rpartition(":")[2]) == 8


# -- what the subcommands call ----------------------------------------------------------------------------


def attach(
    agent: ViewOwner, session_id: str, native: str, kind: int, *, start: int = 0, upto: int | None = None
) -> str:
    """The view path to hand the CLI for a hook event on ``native``, brought up to date for it."""
    from entire_core.types import EventType

    fmt = agent.view_format()
    if fmt is None or not native:
        return native
    with View.for_session(agent, fmt, session_id) as view:
        turn_start = kind == EventType.TURN_START
        view.sync(native, start=start, upto=upto, commit=not turn_start)
        if turn_start:
            view.turn_started()  # commits the sync's update with its own
        elif kind == EventType.TURN_END:
            view.turn_ended()
        return view.path


def refreshed(agent: ViewOwner, path: str, *, sync: bool = True) -> View | None:
    """For a subcommand given a view path: the view, brought up to date (None for any other path).

    ``sync=False`` (``get-transcript-position``) answers the view as it stands: a v1 view is still
    rebuilt, but nothing the agent wrote since the last hook is taken in.
    """
    fmt = agent.view_format()
    if fmt is None or not is_view_path(agent, path):
        return None
    view = View(agent, fmt, path)
    with view:
        if view.exists and (sync or view.legacy):
            view.sync()
    return view


def native_of(agent: ViewOwner, path: str) -> str:
    """The native file behind a view path (the path itself for anything else)."""
    fmt = agent.view_format()
    if fmt is None or not is_view_path(agent, path):
        return path
    view = View(agent, fmt, path)
    meta = view._load() or view.legacy  # pyright: ignore[reportPrivateUsage]
    return str(meta.get("native") or path)


def native_subagents_dir(agent: ViewOwner, subagents_dir: str) -> str:
    """``<views>/<session>/subagents`` (what the CLI derives from a view) as ``<dir of native>/<session>/subagents``."""
    norm = os.path.normpath(subagents_dir)
    session_dir = os.path.dirname(norm) if os.path.basename(norm) == "subagents" else norm
    view = os.path.join(
        os.path.dirname(session_dir), os.path.basename(session_dir) + agent.session_file_suffix
    )
    if not is_view_path(agent, view):
        return subagents_dir
    native = native_of(agent, view)
    if native == view:
        return subagents_dir
    return os.path.join(os.path.dirname(native), os.path.basename(session_dir), "subagents")
