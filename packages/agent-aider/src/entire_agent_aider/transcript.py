"""Aider's chat-history markdown (``.aider.chat.history.md``): sessions, turns and their records.

Aider appends to this file with ``append_chat_history``: a session header
``# aider chat started at YYYY-MM-DD HH:MM:SS`` after a blank line, user input as a blank line and
``#### <line>  `` lines (two trailing spaces each), assistant replies as a blank line, the stripped
reply and a blank line, and tool output as ``> <text>  ``. Only the first line of a multi-line tool
message is quoted; its last line carries the two trailing spaces. Those trailing spaces are what tell
a user line from a ``####`` heading in a reply, and a tool line from a ``>`` quote in a reply.

Every offset is a byte offset into the parsed bytes, always at a line start. This module is used by
``parse-hook``, so it imports nothing beyond the standard library's cheapest modules.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import BinaryIO

HEADER_PREFIX = "# aider chat started at "
VIEW_TAG_LINE = "> entire-view:v1:"
"""The last line of a view's snapshot (``entire_agent_aider.view``): a paragraph break, nothing more."""

LLM_COMMANDS = frozenset(["ask", "code", "architect", "context", "ok", "help", "lint", "test"])
"""Slash commands whose text reaches the model (``/lint`` and ``/test`` reflect their output to it)."""

CHAT_MODE_COMMANDS = frozenset(["ask", "code", "architect", "context"])
"""Commands that, given text, send it to the model in that mode (Aider's ``_generic_chat_command``)
and, without text, only switch the chat mode. Aider logs the text a second time, as its own input
block, when it hands it to the new mode's coder: the echo is part of the command's turn."""

ALL_COMMANDS = (
    "add", "architect", "ask", "chat-mode", "clear", "code", "commit", "context", "copy", "copy-context",
    "diff", "drop", "edit", "editor", "editor-model", "exit", "git", "help", "lint", "load", "ls", "map",
    "map-refresh", "model", "models", "multiline-mode", "ok", "paste", "quit", "read-only",
    "reasoning-effort", "report", "reset", "run", "save", "settings", "test", "think-tokens", "tokens",
    "undo", "voice", "weak-model", "web",
)  # fmt: skip
"""Aider 0.86's slash commands; Aider accepts any unambiguous prefix of one (``/as`` is ``/ask``)."""

# Turn kinds.
PROMPT = "prompt"
"""Text for the model."""
LLM_COMMAND = "llm_command"
"""A slash command whose text reaches the model (``/ask ...``)."""
COMMAND = "command"
"""A local slash command (``/add``, ``/undo``, ``/exit``, ...) or a shell escape (``!ls``)."""
BLANK = "blank"
"""Empty input, logged as ``#### <blank>``; Aider ignores it."""


class Tokens:
    """One ``Tokens:`` line: what one model call sent and received, as Aider rounded it."""

    __slots__ = ("cache_hit", "cache_write", "received", "sent")

    def __init__(self, sent: int, received: int, cache_write: int = 0, cache_hit: int = 0) -> None:
        self.sent = sent
        self.received = received
        self.cache_write = cache_write
        self.cache_hit = cache_hit

    def as_dict(self) -> dict[str, int]:
        """The four counts by name (for tests and reports)."""
        return {
            "sent": self.sent,
            "received": self.received,
            "cache_write": self.cache_write,
            "cache_hit": self.cache_hit,
        }


class Turn:
    """One ``####`` input block and everything Aider logged until the next one."""

    __slots__ = (
        "commits",
        "end",
        "files",
        "kind",
        "offset",
        "outcome",
        "prompt",
        "reply",
        "tokens",
        "undone",
    )

    def __init__(self, offset: int, prompt: str) -> None:
        self.offset = offset
        """Offset of the first ``####`` line."""
        self.end = offset
        """Offset just after the last line that belongs to the turn."""
        self.prompt = prompt
        self.kind = PROMPT
        self.reply = ""
        """The last assistant reply of the turn, stripped."""
        self.files: list[str] = []
        """Paths of ``Applied edit to`` lines, first occurrence order."""
        self.commits: list[tuple[str, str]] = []
        self.undone: list[str] = []
        self.tokens: list[Tokens] = []
        self.outcome = False
        """Whether Aider logged what became of the edits in the last reply (applied, refused, failed)."""

    @property
    def pending_edits(self) -> bool:
        """True when the last reply proposes edits and Aider has not logged their outcome yet.

        Aider rings the notification at the first prompt after a model call, and that prompt can be a
        confirm ("Create new file?") asked before the edits are applied: such a turn is not over.
        """
        return not self.outcome and has_edits(self.reply)

    @property
    def is_llm(self) -> bool:
        """True when the input went to the model (a real turn for Entire)."""
        return self.kind in (PROMPT, LLM_COMMAND)


class Session:
    """One Aider process's part of the file, from its header (or from the parse start)."""

    __slots__ = (
        "analytics_log",
        "edit_format",
        "end",
        "files_created",
        "header",
        "model",
        "offset",
        "start",
        "turns",
        "version",
    )

    def __init__(self, start: int, offset: int, header: str | None) -> None:
        self.start = start
        """Where the session's bytes begin: the blank line before the header when there is one."""
        self.offset = offset
        """Offset of the header line (or of the first line parsed, for a session cut by the start)."""
        self.header = header
        """``YYYY-MM-DD HH:MM:SS`` in Aider's local time, or None for a session cut by the start."""
        self.end = offset
        self.version: str | None = None
        self.model: str | None = None
        self.edit_format: str | None = None
        self.files_created: list[str] = []
        """``Creating empty file`` paths logged before the first turn."""
        self.analytics_log: str | None = None
        """The ``--analytics-log`` file named on Aider's logged command line."""
        self.turns: list[Turn] = []

    @property
    def reply(self) -> str:
        """The session's last assistant reply, or ""."""
        return next((t.reply for t in reversed(self.turns) if t.reply), "")


class History:
    """The result of parsing: sessions in file order and where parsing stopped."""

    __slots__ = ("end", "sessions")

    def __init__(self, sessions: list[Session], end: int) -> None:
        self.sessions = sessions
        self.end = end

    def turns(self) -> list[Turn]:
        """Every turn of every session, in file order."""
        return [turn for session in self.sessions for turn in session.turns]


def parse_tokens(count: str) -> int | None:
    """Undo Aider's ``format_tokens``: ``"817"`` -> 817, ``"2.6k"`` -> 2600, ``"26k"`` -> 26000."""
    scale = 1
    if count.endswith(("k", "K")):
        count, scale = count[:-1], 1000
    elif count.endswith(("m", "M")):
        count, scale = count[:-1], 1_000_000
    if not count or count.count(".") > 1 or not count.replace(".", "").isdigit():
        return None
    return round(float(count) * scale) if "." in count or scale != 1 else int(count)


def parse_tokens_line(text: str) -> Tokens | None:
    """A ``Tokens: <S> sent[, <W> cache write][, <H> cache hit], <R> received.`` line, or None."""
    if not text.startswith("Tokens: "):
        return None
    body = text[len("Tokens: ") :].split(" Cost: ", 1)[0].strip().removesuffix(".")
    values: dict[str, int] = {}
    for part in body.split(", "):
        count, _, label = part.partition(" ")
        value = parse_tokens(count)
        if value is None or label not in ("sent", "received", "cache write", "cache hit"):
            return None
        values[label] = value
    if "sent" not in values or "received" not in values:
        return None
    return Tokens(
        values["sent"], values["received"], values.get("cache write", 0), values.get("cache hit", 0)
    )


def command_name(prompt: str) -> str | None:
    """The full name of the slash command a prompt starts with, or None for plain text or ambiguity."""
    if not prompt.startswith("/"):
        return None
    word = prompt[1:].split(None, 1)[0].lower() if prompt[1:].strip() else ""
    if word in ALL_COMMANDS:
        return word
    matches = [name for name in ALL_COMMANDS if name.startswith(word)] if word else []
    return matches[0] if len(matches) == 1 else None


def command_text(prompt: str) -> str:
    """What follows a slash command's name, stripped, as Aider hands it to the command (``rest_inp``)."""
    stripped = prompt.strip()
    words = stripped.split(None, 1)
    return stripped[len(words[0]) :].strip() if words else ""


def classify(prompt: str) -> str:
    """The kind of an input block: PROMPT, LLM_COMMAND, COMMAND or BLANK."""
    stripped = prompt.strip()
    if not stripped or stripped == "<blank>":
        return BLANK
    if stripped.startswith("!"):
        return COMMAND  # Aider runs "!cmd" as /run
    if not stripped.startswith("/"):
        return PROMPT
    name = command_name(stripped)
    if name is None:
        return COMMAND  # Aider answers "Invalid command" without calling the model
    if name in (*CHAT_MODE_COMMANDS, "help") and not command_text(stripped):
        return COMMAND  # "/ask" alone switches the mode, "/help" alone lists the commands
    return LLM_COMMAND if name in LLM_COMMANDS else COMMAND


def echoed_text(prompt: str) -> str | None:
    """The text Aider logs again as an input block of its own after this input, or None.

    ``/ask <text>`` (and ``/code``, ``/architect``, ``/context``, or an unambiguous prefix of one) is
    logged as typed, then ``<text>`` is logged once more when the new mode's coder takes it.
    """
    if classify(prompt) != LLM_COMMAND or command_name(prompt.strip()) not in CHAT_MODE_COMMANDS:
        return None
    return command_text(prompt)


def header_time(line: str) -> str | None:
    """The ``YYYY-MM-DD HH:MM:SS`` of a session header line, or None if the line is not one."""
    if not line.startswith(HEADER_PREFIX) or len(line) != len(HEADER_PREFIX) + 19:
        return None
    stamp = line[len(HEADER_PREFIX) :]
    shape = "dddd-dd-dd dd:dd:dd"
    if all((c.isdigit() and c.isascii()) if s == "d" else c == s for c, s in zip(stamp, shape, strict=True)):
        return stamp
    return None


def _is_user_line(line: str) -> bool:
    return line.startswith("####") and line.endswith("  ") and (len(line) == 6 or line[4] == " ")


def _user_text(line: str) -> str:
    return line[5:-2] if len(line) > 6 else ""


_USER, _AFTER_USER, _TOOL, _TOOL_CONT, _REPLY, _NONE = range(6)


class Parser:
    """An incremental parser: feed complete lines with their offsets, then ``finish``."""

    def __init__(self, start: int = 0) -> None:
        self.sessions: list[Session] = []
        self.session: Session | None = None
        self.turn: Turn | None = None
        self.mode = _NONE
        self.prev_blank = True  # a parse starts at a line start, as if after a blank line
        self.prev_offset = -1
        self.user_lines: list[str] = []
        self.reply_lines: list[str] = []
        self.last_reply = ""
        self.echo: str | None = None
        """The text of the chat-mode command just logged, until Aider logs it again (``echoed_text``)."""
        self.end = start

    def feed(self, line: str, offset: int, end: int) -> None:
        """Take one complete line (without its line break) that spans ``offset`` to ``end``."""
        if self.mode == _TOOL_CONT:
            if header_time(line) is None and not line.startswith((">", "####")):
                self._advance(end)
                self._tool_text(line.removesuffix("  "), continuation=True)
                if line.endswith("  "):
                    self.mode = _TOOL
                self.prev_blank = not line.strip()
                return
            self.mode = _TOOL
        if line.startswith(VIEW_TAG_LINE):
            # What follows a view's snapshot reads as it did after the blank line it replaces.
            self._close_user()
            self._close_reply()
            self.echo = None
            self.mode = _NONE
            self._advance(end)
            self.prev_blank = True
            self.prev_offset = offset
            return
        stamp = header_time(line) if self.prev_blank or offset == 0 else None
        if stamp is not None:
            self._close_user()
            self._close_reply()
            start = offset - 1 if self.prev_blank and self.prev_offset == offset - 1 else offset
            if self.session is not None and self.session.end > start:
                self.session.end = start
            if self.turn is not None and self.turn.end > start:
                self.turn.end = start
            self.session = Session(start, offset, stamp)
            self.sessions.append(self.session)
            self.turn = None
            self.last_reply = ""
            self.echo = None
            self.mode = _NONE
            self._advance(end)
        elif _is_user_line(line) and (self.prev_blank or self.mode == _USER):
            self._close_reply()
            if self.mode != _USER:
                self._ensure_session(offset)
                self.user_lines = []
                self._start_turn(offset)
                self.mode = _USER
            self.user_lines.append(_user_text(line))
            self._advance(end)
        elif not line.strip():
            if self.mode == _USER:
                self._close_user()
                self.mode = _AFTER_USER
            elif self.mode == _REPLY:
                self.reply_lines.append("")
            self._advance(end)
        elif line.startswith(">") and (
            self.mode != _REPLY or line.endswith("  ") or self._usage_after_reply(line)
        ):
            self._close_user()
            self._close_reply()
            self._ensure_session(offset)
            if line.endswith("  "):
                self._tool_text(line[1:-2].removeprefix(" "), continuation=False)
                self.mode = _TOOL
            else:
                self._tool_text(line[1:].removeprefix(" "), continuation=False)
                self.mode = _TOOL_CONT
            self._advance(end)
        else:
            self._close_user()
            self.echo = None  # a reply: the command's text went to the model without an echo
            if self.mode != _REPLY:
                self._ensure_session(offset)
                self.reply_lines = []
                self.mode = _REPLY
            self.reply_lines.append(line)
            self._advance(end)
        self.prev_blank = not line.strip()
        self.prev_offset = offset

    def finish(self) -> History:
        """Close what is open and return the sessions."""
        self._close_user()
        self._close_reply()
        return History(self.sessions, self.end)

    # -- internals -------------------------------------------------------------------------------------

    def _usage_after_reply(self, line: str) -> bool:
        # With both cache write and cache hit, the usage report is two lines and its first line has no
        # trailing spaces; after a reply's closing blank line it is still Aider's, not a quote.
        return self.prev_blank and line.startswith("> Tokens: ")

    def _advance(self, end: int) -> None:
        self.end = end
        if self.session is not None:
            self.session.end = end
        if self.turn is not None:
            self.turn.end = end

    def _ensure_session(self, offset: int) -> None:
        if self.session is None:
            self.session = Session(offset, offset, None)
            self.sessions.append(self.session)

    def _start_turn(self, offset: int) -> None:
        assert self.session is not None
        self.turn = Turn(offset, "")
        self.session.turns.append(self.turn)

    def _close_user(self) -> None:
        if self.mode != _USER or self.turn is None:
            return
        self.mode = _AFTER_USER
        turn = self.turn
        turn.prompt = "\n".join(self.user_lines)
        turn.kind = classify(turn.prompt)
        session = self.session
        assert session is not None
        echo, self.echo = self.echo, echoed_text(turn.prompt)
        if len(session.turns) < 2:
            return
        # A chat-mode command's text, logged again right after the command (nothing but tool lines
        # between), is the command's one model call: the block continues the command's turn.
        repeated = echo is not None and turn.prompt.strip() == echo
        # Architect mode hands its reply to the editor model by logging it again as input: that block
        # continues the architect's turn instead of starting one.
        handed_on = turn.kind == PROMPT and bool(self.last_reply) and turn.prompt.strip() == self.last_reply
        if repeated or handed_on:
            self.echo = None
            session.turns.pop()
            self.turn = session.turns[-1]
            self.turn.end = turn.end

    def _close_reply(self) -> None:
        if self.mode != _REPLY:
            return
        self.mode = _NONE
        text = "\n".join(self.reply_lines).strip()
        if text and self.turn is not None:
            self.turn.reply = text
            self.turn.outcome = False
            self.last_reply = text

    def _tool_text(self, text: str, *, continuation: bool) -> None:
        session, turn = self.session, self.turn
        if session is None:
            return
        if turn is None:
            if text.startswith("Aider v"):
                session.version = text[len("Aider v") :].strip()
            elif text.startswith(("Main model: ", "Model: ")):
                model, _, rest = text.split(": ", 1)[1].partition(" with ")
                session.model = model.strip()
                session.edit_format = rest.split(" edit format", 1)[0].strip() or None
            elif text.startswith("Creating empty file "):
                _add(session.files_created, text[len("Creating empty file ") :].strip())
            elif " --analytics-log " in text and not continuation:
                words = text.split()
                at = words.index("--analytics-log")
                if at + 1 < len(words):
                    session.analytics_log = words[at + 1]
            return
        if continuation:
            return
        if text.startswith(_OUTCOMES) or "failed to match" in text:
            turn.outcome = True
        if text.startswith("Applied edit to "):
            _add(turn.files, text[len("Applied edit to ") :].strip())
        elif text.startswith("Commit "):
            sha, _, message = text[len("Commit ") :].partition(" ")
            if sha and all(c in "0123456789abcdef" for c in sha):
                turn.commits.append((sha, message))
        elif text.startswith("Removed: "):
            sha = text[len("Removed: ") :].split(" ", 1)[0]
            if sha:
                turn.undone.append(sha)
        elif text.startswith("Tokens: "):
            tokens = parse_tokens_line(text)
            if tokens is not None:
                turn.tokens.append(tokens)
                self.echo = None  # the model was called: what the user types next is a new turn


_OUTCOMES = (
    "Applied edit to ",
    "Did not apply edit to ",
    "Skipping edits to ",
    "Commit ",
    "The LLM did not conform",
    "Only 3 reflections allowed",
    "No changes made to git tracked files",
    "Unable to ",
)


def has_edits(reply: str) -> bool:
    """Whether a reply looks like it carries file edits (search/replace, unified diff or whole file)."""
    if "<<<<<<< SEARCH" in reply or ">>>>>>> REPLACE" in reply:
        return True
    if "```diff" in reply and "\n@@" in reply:
        return True
    lines = reply.split("\n")
    for name, fence in zip(lines, lines[1:], strict=False):  # noqa: RUF007 - itertools costs an import
        # The whole-file format names the file on the line before the opening fence.
        candidate = name.strip()
        if (
            fence.startswith("```")
            and candidate
            and " " not in candidate
            and ("." in candidate or "/" in candidate)
        ):
            return True
    return False


def _add(items: list[str], item: str) -> None:
    if item and item not in items:
        items.append(item)


def iter_lines(data: bytes, start: int = 0) -> list[tuple[str, int, int]]:
    """The complete lines of ``data`` from ``start``: text without line break, start and end offsets."""
    out: list[tuple[str, int, int]] = []
    pos = start
    size = len(data)
    while pos < size:
        newline = data.find(b"\n", pos)
        if newline < 0:
            break
        raw = data[pos:newline]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        out.append((raw.decode("utf-8", "replace"), pos, newline + 1))
        pos = newline + 1
    return out


def parse(data: bytes, start: int = 0) -> History:
    """Parse the complete lines of ``data`` from byte ``start`` (a line start); a cut final line is left.

    Offsets in the result are exact byte offsets into ``data``, whatever its line endings.
    """
    parser = Parser(start)
    for line, offset, end in iter_lines(data, start):
        parser.feed(line, offset, end)
    return parser.finish()


def parse_lines(lines: Iterable[bytes]) -> History:
    """Parse complete lines given without their line breaks (as ``entire_core.offsets`` reads them).

    For prompts, files, replies and tokens. Offsets in the result count one byte per line break from
    the first line, so they are only exact for ``\n`` files: use ``parse`` where offsets matter.
    """
    parser = Parser()
    offset = 0
    for raw in lines:
        end = offset + len(raw) + 1
        parser.feed(raw.decode("utf-8", "replace"), offset, end)
        offset = end
    return parser.finish()


LONG_LINE = 1 << 16
"""A line longer than this is parsed from its start and its last bytes (``parse_range``)."""
_TAIL = 16


def parse_range(f: BinaryIO, begin: int, stop: int, *, block: int = 1 << 20) -> tuple[History, int]:
    """Parse the complete lines of the open file ``f`` in ``[begin, stop)``, reading block by block.

    Returns the history (offsets from ``begin``, exact bytes) and where the last complete line ends.
    Memory stays bounded whatever a line's size: a line longer than ``LONG_LINE`` (a 20 MB tool output)
    is fed as its first ``LONG_LINE`` bytes and its last few, which is all the lifecycle reads of it
    (a tool line's kind is its start, its end says whether the tool message goes on). User lines
    (``####``) are kept whole: prompts are never cut.
    """
    parser = Parser(0)
    f.seek(begin)
    remaining = stop - begin
    base = 0  # offset of the current block from ``begin``
    start = 0  # offset of the current line
    head = bytearray()
    tail = b""
    cut = False
    while remaining > 0:
        chunk = f.read(min(block, remaining))
        if not chunk:
            break
        remaining -= len(chunk)
        at = 0
        view = memoryview(chunk)
        while True:
            newline = chunk.find(b"\n", at)
            piece = view[at : newline if newline >= 0 else len(chunk)]
            if cut:
                tail = (tail + bytes(piece[-_TAIL:]))[-_TAIL:]
            elif len(head) + len(piece) <= LONG_LINE or (bytes(head[:4]) + bytes(piece[:4]))[:4] == b"####":
                head += piece
            else:
                tail = (bytes(head[-_TAIL:]) + bytes(piece[-_TAIL:]))[-_TAIL:]
                head += piece[: LONG_LINE - len(head)]
                cut = True
            if newline < 0:
                break
            raw = bytes(head) + b" [...] " + tail if cut else bytes(head)
            if raw.endswith(b"\r"):
                raw = raw[:-1]
            end = base + newline + 1
            parser.feed(raw.decode("utf-8", "replace"), start, end)
            start, at = end, newline + 1
            head.clear()
            tail, cut = b"", False
        base += len(chunk)
    return parser.finish(), start


def complete_end(data: bytes) -> int:
    """The offset just after the last line break of ``data``."""
    return data.rfind(b"\n") + 1


def prompts(history: History) -> list[str]:
    """What the user asked the model, oldest first: local commands and architect echoes left out."""
    return [turn.prompt for turn in history.turns() if turn.is_llm]


def modified_files(history: History) -> list[str]:
    """Every ``Applied edit to`` path (and file created at launch), first occurrence order."""
    files: list[str] = []
    for session in history.sessions:
        for path in session.files_created:
            _add(files, path)
        for turn in session.turns:
            for path in turn.files:
                _add(files, path)
    return files
