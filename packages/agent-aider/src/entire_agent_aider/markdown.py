"""What each line of Aider's chat-history markdown (``.aider.chat.history.md``) is.

Aider appends to this file with ``append_chat_history``: a session header
``# aider chat started at YYYY-MM-DD HH:MM:SS`` after a blank line, user input as a blank line and
``#### <line>  `` lines (two trailing spaces each), assistant replies as a blank line, the stripped
reply and a blank line, and tool output as ``> <text>  ``. Only the first line of a multi-line tool
message is quoted; its last line carries the two trailing spaces. Those trailing spaces are what tell
a user line from a ``####`` heading in a reply, and a tool line from a ``>`` quote in a reply.

This module knows single lines and input texts: headers, user lines, ``Tokens:`` lines, slash
commands and what they do, and whether a reply carries edits. ``entire_agent_aider.parser`` puts the
lines together into sessions and turns. Used by ``parse-hook``: standard library only.
"""

from __future__ import annotations

HEADER_PREFIX = "# aider chat started at "
VIEW_TAG = "entire-view:v1:"
"""How the tag of a view's snapshot starts (the name core's views v1 gave their headers, kept by Aider's)."""
VIEW_TAG_LINE = "> " + VIEW_TAG
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
    logged as typed, then ``<text>`` is logged once more when the new mode's coder takes it. ``/help
    <text>`` hands its help coder a message that starts with ``# Question: <text>`` (Aider's
    ``Help.ask``), followed by the docs it found: for it, the echo is that block's first line
    (``echo_matches``).
    """
    if classify(prompt) != LLM_COMMAND:
        return None
    name = command_name(prompt.strip())
    if name == "help":
        return HELP_QUESTION + command_text(prompt)
    if name not in CHAT_MODE_COMMANDS:
        return None
    return command_text(prompt)


HELP_QUESTION = "# Question: "
"""How Aider's ``/help <text>`` starts the message it logs and sends for ``<text>``."""


def echo_matches(prompt: str, echo: str) -> bool:
    """Whether an input block is Aider's own echo ``echo`` of the command before it (``echoed_text``)."""
    if echo.startswith(HELP_QUESTION):
        return prompt.split("\n", 1)[0] == echo
    return prompt.strip() == echo


def is_lint_command(prompt: str) -> bool:
    """``/lint`` (or a prefix of it): Aider logs each file's lint errors as an input block of their own
    when its lint coder takes them (``Commands.cmd_lint``, ``Coder.run``), after showing them as tool
    output; those blocks belong to the ``/lint`` turn."""
    return classify(prompt) == LLM_COMMAND and command_name(prompt.strip()) == "lint"


def header_time(line: str) -> str | None:
    """The ``YYYY-MM-DD HH:MM:SS`` of a session header line, or None if the line is not one."""
    if not line.startswith(HEADER_PREFIX) or len(line) != len(HEADER_PREFIX) + 19:
        return None
    stamp = line[len(HEADER_PREFIX) :]
    shape = "dddd-dd-dd dd:dd:dd"
    if all((c.isdigit() and c.isascii()) if s == "d" else c == s for c, s in zip(stamp, shape, strict=True)):
        return stamp
    return None


def is_user_line(line: str) -> bool:
    """Whether a line is user input: ``####`` alone or ``#### <text>``, with two trailing spaces."""
    return line.startswith("####") and line.endswith("  ") and (len(line) == 6 or line[4] == " ")


def user_text(line: str) -> str:
    """The input text of a user line."""
    return line[5:-2] if len(line) > 6 else ""


OUTCOMES = (
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
