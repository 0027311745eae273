"""Aider's chat history as sessions and turns: the ``Parser`` that builds them line by line.

Every offset is a byte offset into the parsed bytes, always at a line start. A turn is one ``####``
input block and everything Aider logged until the next one, except the blocks Aider logs again on
its own (a chat-mode command's text, an architect's plan handed to the editor), which continue the
turn they belong to. Used by ``parse-hook``: standard library only.
"""

from __future__ import annotations

from entire_agent_aider.markdown import (
    LLM_COMMAND,
    OUTCOMES,
    PROMPT,
    VIEW_TAG_LINE,
    Tokens,
    classify,
    echo_matches,
    echoed_text,
    has_edits,
    header_time,
    is_lint_command,
    is_user_line,
    parse_tokens_line,
    user_text,
)


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
        self.lint_output: list[list[str]] | None = None
        """In a ``/lint`` turn, the lines of each tool message since the last input block: the lint errors
        Aider then logs again as input."""
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
            self.lint_output = None
            self.mode = _NONE
            self._advance(end)
        elif is_user_line(line) and (self.prev_blank or self.mode == _USER):
            self._close_reply()
            if self.mode != _USER:
                self._ensure_session(offset)
                self.user_lines = []
                self._start_turn(offset)
                self.mode = _USER
            self.user_lines.append(user_text(line))
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
        lint_output, self.lint_output = self.lint_output, [] if is_lint_command(turn.prompt) else None
        if len(session.turns) < 2:
            return
        # A chat-mode command's text (or /help's question), logged again right after the command
        # (nothing but tool lines between), is the command's one model call: it continues its turn.
        repeated = echo is not None and echo_matches(turn.prompt, echo)
        # Architect mode hands its reply to the editor model by logging it again as input: that block
        # continues the architect's turn instead of starting one.
        handed_on = turn.kind == PROMPT and bool(self.last_reply) and turn.prompt.strip() == self.last_reply
        # /lint shows each file's errors as tool output, then logs them again as the lint coder's input.
        linted = lint_output is not None and turn.prompt.strip() in {
            "\n".join(m).strip() for m in lint_output
        }
        if repeated or handed_on or linted:
            self.echo = None
            # The next file's errors may follow: shown again as tool output before they are logged.
            self.lint_output = [] if linted else None
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
        if self.lint_output is not None:
            if continuation and self.lint_output:
                self.lint_output[-1].append(text)
            elif not continuation:
                self.lint_output.append([text])
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
                add_once(session.files_created, text[len("Creating empty file ") :].strip())
            elif " --analytics-log " in text and not continuation:
                words = text.split()
                at = words.index("--analytics-log")
                if at + 1 < len(words):
                    session.analytics_log = words[at + 1]
            return
        if continuation:
            return
        if text.startswith(OUTCOMES) or "failed to match" in text:
            turn.outcome = True
        if text.startswith("Applied edit to "):
            add_once(turn.files, text[len("Applied edit to ") :].strip())
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


def add_once(items: list[str], item: str) -> None:
    """Append ``item`` unless it is empty or already there (first-occurrence order)."""
    if item and item not in items:
        items.append(item)
