"""Aider's side of the bounded transcript view (``entire_core.views``): its snapshot and its cuts.

The view of a session is its slice of the chat-history markdown (from the blank line before its
``# aider chat started at`` header to where the event stands), kept under the plugin's state
directory. A record is a line. The view is wrapped (``ViewFormat.wrap``): each line is a JSON line
carrying the markdown line, and ``Restater`` restates each prompt and reply as one record the host's
compactor reads. The analyzers read the markdown back with ``view_lines``; positions are lines.

What may be cut: a line longer than the per-record budget (a huge tool output, a pasted blob, a long
reply line) keeps its start and its end, with ``entire_core.views.MARKER`` between them on the same
line, so its markdown role (``> `` tool line, reply text, the two trailing spaces that end a tool
message) is unchanged. What never is: user input (``####`` lines), the session header, and the
``Applied edit to``, ``Commit``, ``Removed:`` and ``Tokens:`` lines.

The snapshot that replaces what earlier checkpoints stored is a valid chat history: the session
header and its start-up lines, then every earlier turn as Aider logs it (the prompt in full, the
reply shortened with the marker; the last reply kept whole when it fits), then a ``> `` tool line
with the view's tag and the number of model calls it restates. ``aider --restore-chat-history``
turns the ``####`` lines into user messages, so an Aider resumed from a view sees the earlier
prompts; tool lines are dropped by Aider and mean nothing to the plugin's analyzers.
"""

from __future__ import annotations

import os

from entire_core import offsets, views

from entire_agent_aider.markdown import (
    HEADER_PREFIX,
    LLM_COMMAND,
    PROMPT,
    VIEW_TAG,
    VIEW_TAG_LINE,
    classify,
    echo_matches,
    echoed_text,
    header_time,
    is_lint_command,
    is_user_line,
    user_text,
)
from entire_agent_aider.parser import Parser

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    from entire_core.agent import Agent

    from entire_agent_aider.parser import Turn

_TAG = VIEW_TAG.encode()
HEADER_LINES = 1 << 16
"""At most this many records in a snapshot (the oldest turns are left out beyond it)."""
CALLS_NOTE = " model calls before it"
NOTE = (
    "Entire's view of this session starts here: the turns above restate the earlier turns,"
    " which earlier checkpoints stored in full."
)
_PROTECTED = (b"####", HEADER_PREFIX.encode(), b"> Applied edit to ", b"> Commit ", b"> Removed: ",
              b"> Tokens: ")  # fmt: skip
LINT_INPUT = "# Fix any errors below"
"""How Aider's ``/lint`` hands a file's errors to its coder (logged as input)."""
_MIN_REPLY = 384
"""A reply cut shorter than this is left out (its turn keeps its prompt)."""


class AiderView(views.ViewFormat):
    """Snapshots as restated turns; each markdown line wrapped, prompts and replies restated (``Restater``)."""

    json_records = False  # markdown lines: a line too long to hold is cut as text
    wrap = True
    header_lines = HEADER_LINES
    snapshot_keep_first = 2  # views v2: a header short of room keeps the blank line and the session header

    def __init__(self, native: str = "", start: int = 0) -> None:
        self._id = ""
        self._restater: Restater | None = None
        self._given: object = None
        self.native = os.path.abspath(native) if native else ""
        self.start = start
        """Where the session begins in ``native`` (a view's session begins at 0)."""

    def snapshot(self, path: str, end: int, limit: int) -> list[bytes]:
        begin = self.start if self.native and os.path.abspath(path) == self.native else 0
        first, *rest = Snapshot(limit).build(path, begin, end, snapshot_tag(path))
        # Views v2 put a marker line after the first one: a session header still follows a blank line.
        return [first, b"", *rest] if rest and rest[0] else [first, *rest]

    def record(self, value: Any) -> views.Mapped | None:
        # One reader for a run of lines: made anew only when core hands back a state it kept (a new call),
        # so an open block is not copied at every line of a long reply.
        restater = self._restater
        if restater is None or self.state is not self._given:
            restater = self._restater = Restater(self.state, self.record_budget // 4)
        mapped = restater.feed(str(value))
        self.state = self._given = restater.state()
        self._id = restater.reply_id
        return mapped

    def message_extra(self, value: Any) -> dict[str, Any]:
        return {"id": self._id}

    def shorten(self, record: bytes, limit: int) -> bytes | None:
        if record.startswith(_PROTECTED) or _TAG in record:
            return None
        short = cut_line(record.decode("utf-8", "surrogateescape"), limit)
        out = short.encode("utf-8", "surrogateescape")
        return out if len(out) < len(record) else None


class Restater:
    """Reads markdown lines in order, as ``Parser.feed`` does, and restates each prompt and reply whole.

    The host's compactor reads one generic-JSONL record per prompt and per reply, and Aider logs
    a prompt as several ``####`` lines and a reply as many lines (with blank ones): a block is
    restated on the line that ends it (the blank line after a prompt; the tool, prompt or header
    line after a reply), when all of it is known. Every line is still carried as it is. Local
    commands, and what Aider logs again as input (a chat-mode command's text, ``/lint``'s errors,
    an architect's reply handed to its editor), are not prompts. A block longer than ``limit`` bytes is restated cut.

    Its state (mode, whether the last line was blank, the open block, the pending echo, the last
    reply's start, the reply count) is JSON, so that the view keeps it between hook calls.
    """

    def __init__(self, state: object, limit: int) -> None:
        from entire_core import jsonvalues

        st = jsonvalues.obj(state)
        # "" | "user" | "reply" | "tool" | "more" (a tool message goes on)
        self.mode = jsonvalues.text(st.get("m"))
        self.blank = st.get("b", True) is not False
        self.block = jsonvalues.strings(st.get("t"))
        self.size = sum(len(t) + 1 for t in self.block)
        self.echo: str | None = st["e"] if isinstance(st.get("e"), str) else None
        self.last = jsonvalues.text(st.get("r"))
        self.replies = jsonvalues.integer(st.get("n"))
        self.lint = st.get("l") is True
        self.limit = max(1024, limit)
        self.reply_id = ""

    def state(self) -> dict[str, Any]:
        return {
            "m": self.mode, "b": self.blank, "t": self.block, "e": self.echo, "r": self.last,
            "n": self.replies, "l": self.lint,
        }  # fmt: skip

    def feed(self, line: str) -> views.Mapped | None:
        """The record ``line`` carries: the block it ends, restated, or None."""
        mode, blank = self.mode, self.blank
        self.blank = not line.strip()
        if mode == "more" and header_time(line) is None and not line.startswith((">", "####")):
            self.mode = "tool" if line.endswith("  ") else "more"  # a tool message's next line
            return None
        if line.startswith(VIEW_TAG_LINE) or (header_time(line) is not None and blank):
            kind, self.echo = "", None
        elif is_user_line(line) and (blank or mode == "user"):
            kind = "user"
        elif not line.strip():
            kind = "reply" if mode == "reply" else ""
        elif line.startswith(">") and (
            mode != "reply" or line.endswith("  ") or (blank and line.startswith("> Tokens: "))
        ):
            kind = "tool" if line.endswith("  ") else "more"
            if line.startswith("> Tokens: "):
                self.echo = None  # the model was called: what is typed next is a new turn
        else:
            kind = "reply"
            if mode != "reply":
                self.echo = None
        mapped = self._close(mode) if kind != mode and mode in ("user", "reply") else None
        self.mode = kind
        if kind in ("user", "reply"):
            self._add(user_text(line) if kind == "user" else line if line.strip() else "")
        return mapped

    def _add(self, text: str) -> None:
        if self.size <= self.limit:
            self.block.append(text)
        self.size += len(text) + 1

    def _close(self, mode: str) -> views.Mapped | None:
        text = "\n".join(self.block)
        if self.size > self.limit:
            text = text[: self.limit] + "\n" + views.MARKER
        self.block, self.size = [], 0
        if mode == "reply":
            text = text.strip()
            if not text:
                return None
            self.replies += 1
            self.reply_id = f"aider-reply-{self.replies}"
            self.last = text[:256]
            return views.ASSISTANT, [{"type": "text", "text": text}], None
        echo, self.echo = self.echo, echoed_text(text)
        if echo is not None and echo_matches(text, echo):
            self.echo = None
            return None  # the command's text, logged again as the new mode's input
        linted, self.lint = self.lint and text.startswith(LINT_INPUT), is_lint_command(text)
        if linted:
            self.lint = True
            return None  # /lint's errors, logged again as its coder's input
        if classify(text) not in (PROMPT, LLM_COMMAND) or (self.last and text.strip()[:256] == self.last):
            return None  # a local command, or an architect's reply handed to its editor
        return views.USER, [{"type": "text", "text": text}], None


def cut_line(text: str, limit: int) -> str:
    """``text`` (one line) cut to about ``limit`` bytes: its start and end, with the marker between."""
    keep = limit
    short = text
    for _ in range(4):
        short = views.cut_text(text, keep).replace("\n", " ")
        size = len(short.encode("utf-8", "surrogateescape"))
        if size <= limit + len(views.MARKER) + 40 or keep <= views.MIN_KEEP:
            break
        keep = max(views.MIN_KEEP, keep * limit // size)
    return short


def view_lines(data: bytes) -> list[bytes]:
    """The complete lines of view bytes as Aider's own lines, one for one: line N of the view is
    ``view_lines(data)[N]`` (wrapped lines unwrapped, a header's padding and marker empty)."""
    lines = data.split(b"\n")
    lines.pop()  # what follows the last line break is not a complete line
    return [line.removesuffix(b"\r") for line in views.lines_as_native(lines)]


def snapshot_tag(path: str) -> str:
    """The tag a snapshot of ``path`` ends with: ``entire-view:v1:0:`` and the CRC-32 of the file's first
    line, the tag views v1 gave a header (before the count of model calls the snapshot restates)."""
    import zlib

    with open(path, "rb") as f:
        first = f.readline().removesuffix(b"\n").removesuffix(b"\r")
    return f"{VIEW_TAG}0:{zlib.crc32(first):08x}"


def earlier_calls(lines: list[bytes], head: int) -> int:
    """How many model calls of the session a view's snapshot (its first ``head`` lines) stands for."""
    return next((_calls_in_tag(line) for line in reversed(lines[:head]) if _TAG in line), 0)


def _calls_in_tag(data: bytes) -> int:
    at = data.rfind(_TAG)
    if at < 0:
        return 0
    line_end = data.find(b"\n", at)
    line = data[at : line_end if line_end >= 0 else len(data)]
    words = line.decode("utf-8", "replace").split(CALLS_NOTE, 1)[0].split()
    return int(words[-1]) if len(words) > 1 and words[-1].isdigit() else 0


class _Turn:
    __slots__ = ("prompt", "reply")

    def __init__(self, prompt: str, reply: str) -> None:
        self.prompt = prompt
        self.reply = reply


class Snapshot:
    """Reads a session's lines once and writes the header that restates them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.first = b""
        self.header_line = b""
        self.preamble: list[bytes] = []
        self.turns: list[_Turn] = []
        self.calls = 0

    def build(self, path: str, begin: int, end: int, tag: str) -> list[bytes]:
        parser = Parser()
        first_turn_seen = False
        preamble_size = 0
        for index, (raw, offset, stop) in enumerate(_lines(path, begin, end)):
            if index == 0:
                self.first = raw.removesuffix(b"\r")
            if _TAG in raw:
                self.calls += _calls_in_tag(raw)
                continue  # an older snapshot's tag: its count is carried on, the line is not
            line = raw.decode("utf-8", "surrogateescape")
            parser.feed(line, offset, stop)
            session = parser.session
            if not first_turn_seen and session is not None and session.turns:
                first_turn_seen = True
            if index == 0 or first_turn_seen:
                pass  # the first line is the snapshot's first record; turns are restated apart
            elif not self.header_line and header_time(line.rstrip("\r")) is not None:
                self.header_line = raw.rstrip(b"\r")
            elif raw.startswith(b"> ") and (preamble_size < self.limit or _essential(raw)):
                # Tool lines only, each ending a tool message (a continuation line would read as a reply).
                kept = raw.rstrip(b"\r").rstrip(b" ") + b"  "
                if len(kept) > self.limit // 4:
                    kept = _analytics_only(kept) if _essential(kept) else _shortened(kept, self.limit // 4)
                self.preamble.append(kept)
                preamble_size += len(kept) + 1
            self._drain(parser)
        history = parser.finish()
        for session in history.sessions:
            for turn in session.turns:
                self._take(turn)
        return self._header(tag)

    def _drain(self, parser: Parser) -> None:
        """Restate the turns the parser is done with, so memory stays bounded on a long session."""
        for session in parser.sessions[:-1]:
            for turn in session.turns:
                self._take(turn)
            session.turns.clear()
        session = parser.session
        if session is not None and len(session.turns) > 2:
            # The last two stay: an architect's echo merges into the turn before it.
            for turn in session.turns[:-2]:
                self._take(turn)
            del session.turns[:-2]
        del parser.sessions[:-1]

    def _take(self, turn: Turn) -> None:
        self.calls += len(turn.tokens)
        if not turn.is_llm:
            return  # local commands (/add, /undo, ...) are not prompts
        reply = turn.reply
        if len(reply) > 4 * self.limit:
            reply = views.cut_text(reply, 4 * self.limit)
        self.turns.append(_Turn(turn.prompt, reply))
        while len(self.turns) > 2 and sum(len(t.prompt) for t in self.turns) > 2 * self.limit:
            self.turns.pop(0)

    def _header(self, tag: str) -> list[bytes]:
        records: list[bytes] = [self.first]
        if self.header_line and self.header_line != self.first:
            records.append(self.header_line)
        records += _preamble(self.preamble, self.limit // 8)
        tag_line = f"> {tag} {self.calls}{CALLS_NOTE}. {NOTE}  ".encode()
        fixed = sum(len(r) + 1 for r in records) + len(tag_line) + 2
        turns = self._fit(self.limit - fixed, HEADER_LINES - len(records) - 2)
        for prompt_lines, reply_lines in turns:
            records.append(b"")
            records += prompt_lines
            if reply_lines:
                records.append(b"")
                records += reply_lines
        records += [b"", tag_line]
        return records

    def _fit(self, room: int, lines_left: int) -> list[tuple[list[bytes], list[bytes]]]:
        """The turns to restate, oldest first: prompts whole (the newest that fit), replies cut to share."""
        prompts: list[list[bytes]] = []
        size = 0
        for turn in reversed(self.turns):
            lines = _prompt_lines(turn.prompt, room // 4)
            cost = sum(len(line) + 1 for line in lines) + 1
            if prompts and (size + cost > room or sum(map(len, prompts)) + len(lines) + 1 > lines_left // 2):
                break
            prompts.append(lines)
            size += cost
        kept = self.turns[len(self.turns) - len(prompts) :]
        prompts.reverse()
        replies: list[list[bytes]] = [[] for _ in kept]
        left = room - size
        lines_budget = lines_left - sum(len(p) + 1 for p in prompts)
        for rank, index in enumerate(reversed(range(len(kept)))):
            reply = kept[index].reply
            if not reply:
                continue
            share = left // 2 if rank == 0 else left // max(1, index + 1)
            if len(reply.encode("utf-8", "surrogateescape")) > share:
                if share < _MIN_REPLY:
                    continue
                reply = views.cut_text(reply, share * 3 // 4)
            lines = [line.encode("utf-8", "surrogateescape") for line in reply.split("\n")]
            cost = sum(len(line) + 1 for line in lines) + 1
            if cost > left or len(lines) + 1 > lines_budget:
                continue
            replies[index] = lines
            left -= cost
            lines_budget -= len(lines) + 1
        return list(zip(prompts, replies, strict=True))


def _prompt_lines(prompt: str, limit: int) -> list[bytes]:
    """A prompt as Aider logs it: one ``#### `` line per input line, each with two trailing spaces.

    The snapshot restates prompts whole; only a line too long for the snapshot on its own is cut
    (the turn itself, stored by an earlier checkpoint, had it whole).
    """
    out: list[bytes] = []
    for line in prompt.split("\n"):
        if len(line) > limit:
            line = cut_line(line, max(views.MIN_KEEP, limit))
        out.append((f"#### {line}  " if line else "####   ").encode("utf-8", "surrogateescape"))
    return out


def _essential(line: bytes) -> bool:
    """Start-up lines the analyzers read: the logged command line (its ``--analytics-log``), the model."""
    return line.startswith(b"> ") and (
        b" --analytics-log " in line or line.startswith((b"> Aider v", b"> Main model: ", b"> Model: "))
    )


def _preamble(lines: list[bytes], limit: int) -> list[bytes]:
    """The session's start-up lines within ``limit`` bytes: the essential ones first, in file order."""
    keep = [_essential(line) for line in lines]
    size = 0
    for index, line in enumerate(lines):
        if keep[index]:
            if len(line) > limit:
                lines[index] = line = _analytics_only(line)
            size += len(line) + 1
    for index, line in enumerate(lines):
        if not keep[index] and size + len(line) + 1 <= limit:
            keep[index] = True
            size += len(line) + 1
    return [line for line, kept in zip(lines, keep, strict=True) if kept]


def _analytics_only(line: bytes) -> bytes:
    """A long logged command line cut to what the token counter reads from it (``--analytics-log <file>``)."""
    words = line.rstrip(b" ").split(b" ")
    if b"--analytics-log" not in words:
        return _shortened(line, views.MIN_KEEP)
    at = words.index(b"--analytics-log")
    return b" ".join([*words[:2], b"...", *words[at : at + 2]]) + b"  "


def _shortened(record: bytes, limit: int) -> bytes:
    if len(record) <= limit:
        return record
    return AiderView().shorten(record, limit) or record


def _lines(path: str, begin: int, end: int) -> Iterator[tuple[bytes, int, int]]:
    """Each complete line of ``path`` in ``[begin, end)`` (without its newline), with its offsets from ``begin``."""
    for line, stop in offsets.lines_between(path, begin, end):
        yield line, stop - begin - len(line) - 1, stop - begin


def attach(agent: Agent, session_id: str, history: str, kind: int, *, start: int, upto: int) -> str:
    """The view of one session's slice ``[start, upto)`` of ``history``, brought to ``upto`` (parse-hook).

    Like ``entire_core.views.attach``, with a format that knows where the session starts in the
    history file (the file holds every session of the repository).
    """
    from entire_core.types import EventType

    fmt = AiderView(history, start)
    with views.View.for_session(agent, fmt, session_id) as view:
        view.sync(history, start=start, upto=upto)
        if kind == EventType.TURN_START:
            view.turn_started()
        elif kind == EventType.TURN_END:
            view.turn_ended()
        return view.path
