"""Gemini CLI chat recordings: the append-only JSONL of 0.39+ and the single JSON document before it.

JSONL records, replayed in order as Gemini's ``loadConversationRecord`` does: a metadata header (first
line, repeated after a same-minute resume), message records upserted by ``id`` (a ``gemini`` message
is written when the response arrives and again when its tool calls finish), ``{"$set": {...}}``
metadata updates (with ``messages`` a checkpoint that restates the whole history) and
``{"$rewindTo": id}``, which drops that message and everything after it.

Offsets: a JSONL position is the number of complete lines, a legacy position the number of messages.
What happened after an offset is the message records written after it, the last write of each id
winning; checkpoints are left out because they only restate history. An offset past the end means
the file was replaced (or recreated after Gemini deleted it), so reading starts again from 0.
"""

from __future__ import annotations

from entire_core import _json
from entire_core.jsonvalues import array as items
from entire_core.jsonvalues import obj
from entire_core.jsonvalues import objects as dicts
from entire_core.validate import is_tool_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from entire_core.types import TokenUsage

JSONL = "jsonl"
LEGACY = "json"

MODIFYING_TOOLS = frozenset(["write_file", "replace", "edit", "edit_file", "save_file"])
"""Tools that write a file: today's ``write_file``/``replace`` and the names older builds used."""
SUBAGENT_TOOLS = frozenset(["invoke_agent", "delegate_to_agent"])
"""The tool that runs a subagent (``delegate_to_agent`` before ``invoke_agent``)."""
PATH_ARGS = ("file_path", "path", "filename", "absolute_path")
INJECTED_PREFIXES = ("<session_context>", "<hook_context>")
"""User-typed messages Gemini itself writes: the start-up context and hook-added context."""
SNAPSHOT_TAG = "<state_snapshot>"
"""The summary a chat compression puts in place of the history it compressed."""


class Chat:
    """A chat recording: its format, its position and its records."""

    __slots__ = ("_document", "_lines", "_parsed", "kind", "position")

    def __init__(
        self, kind: str, position: int, lines: list[bytes], document: dict[str, Any] | None = None
    ) -> None:
        self.kind = kind
        self.position = position
        self._lines = lines
        self._document = document
        self._parsed: list[object] | None = items(document.get("messages")) if document is not None else None

    def records(self, offset: int = 0) -> list[object]:
        """The records after ``offset`` (from 0 when ``offset`` is past the end)."""
        start = offset if 0 <= offset <= self.position else 0
        if self._parsed is not None:
            return self._parsed[start:]
        return [decode(line) for line in self._lines[start:]]

    def messages(self, offset: int = 0) -> list[dict[str, Any]]:
        """The messages written after ``offset``, in first-write order, rewinds applied."""
        return replay(self.records(offset))

    def checkpoint(self) -> list[dict[str, Any]]:
        """The messages of the last ``$set.messages`` checkpoint (what a resume or a view restates)."""
        for record in reversed(self.records()):
            update = obj(obj(record).get("$set"))
            if isinstance(update.get("messages"), list):
                return list(dicts(update["messages"]))
        return []

    def metadata(self) -> dict[str, Any]:
        """Session metadata: the headers and every ``$set`` merged in order (checkpoint lists left out)."""
        merged: dict[str, Any] = {}
        for record in [self._document] if self._document is not None else self.records():
            r = obj(record)
            if "sessionId" in r and "projectHash" in r:
                merged.update(r)
            merged.update(obj(r.get("$set")))
        merged.pop("messages", None)
        return merged


def decode(line: bytes) -> object:
    """One JSONL record, or None for a blank or broken line.

    A line of a view (``entire_core.views``, wrapped generic JSONL) is read as the chat record it
    carries; the view's header padding and marker are no record.
    """
    if not line.strip():
        return None
    if line.startswith(b'{"type":"'):  # Gemini's own records start with their id, a header or an operator
        from entire_core.views import unwrap

        native = unwrap(line)
        if native is None:
            return None
        line = native
    try:
        return _json.loads(line)
    except (ValueError, RecursionError):
        return None


def parse(data: bytes) -> Chat:
    """Split a chat file into records; the format comes from the content, never from the file name."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    document = _legacy_document(data)
    if document is not None:
        return Chat(LEGACY, len(items(document["messages"])), [], document)
    end = data.rfind(b"\n") + 1
    lines = data[:end].split(b"\n")[:-1] if end else []
    return Chat(JSONL, len(lines), lines)


def _legacy_document(data: bytes) -> dict[str, Any] | None:
    """The document of a pre-0.39 chat file (one JSON object with a ``messages`` list), else None."""
    text = data.lstrip()
    if not text.startswith(b"{"):
        return None
    first, _, rest = text.partition(b"\n")
    value = decode(first)
    if value is None:  # pretty-printed: the first line alone is not JSON
        value = decode(text)
    elif rest.strip():  # a JSONL header followed by more records
        return None
    document = obj(value)
    return document if isinstance(document.get("messages"), list) else None


def rewind(messages: dict[str, Any], target: str) -> None:
    """Apply ``$rewindTo``: drop ``target`` and every message after it; all of them when it is not there.

    A target missing from ``messages`` was rewound to before the records read so far.
    """
    if target not in messages:
        messages.clear()
        return
    ids = list(messages)
    for gone in ids[ids.index(target) :]:
        del messages[gone]


def replay(records: Iterable[object]) -> list[dict[str, Any]]:
    """Messages in first-write order, each the last write of its id; ``$rewindTo`` applied.

    Checkpoints (``$set.messages``) restate history with copies that lack tokens and tool calls, so
    they are not activity; a header that carries ``messages`` (a one-line legacy record) is.
    """
    messages: dict[str, dict[str, Any]] = {}
    for record in records:
        r = obj(record)
        target = r.get("$rewindTo")
        if isinstance(target, str):
            rewind(messages, target)
        elif isinstance(r.get("id"), str):
            messages[r["id"]] = r
        elif isinstance(r.get("sessionId"), str):
            for m in dicts(r.get("messages")):
                if isinstance(m.get("id"), str):
                    messages[m["id"]] = m
    return list(messages.values())


# -- message content --------------------------------------------------------------------------------


def text_of(content: object) -> str:
    """The visible text of a message's content: a string, or its text parts without thoughts."""
    from entire_core import genai

    return genai.text_of(content)


def prompt_of(message: dict[str, Any]) -> str:
    """What the user typed in a ``user`` message, or "" for tool results and Gemini's own injections."""
    if message.get("type") != "user":
        return ""
    content = message.get("content")
    from entire_core.genai import only_function_responses

    if only_function_responses(content):
        return ""
    # displayContent is the text as typed, before @-file expansion
    source = message.get("displayContent") or content
    parts = items(source)
    if parts:
        source = [p for p in parts if not _is_injected(p)]
    text = text_of(source).strip()
    if not text or text.startswith(INJECTED_PREFIXES) or SNAPSHOT_TAG in text:
        return ""
    return text


def _is_injected(part: object) -> bool:
    text = part if isinstance(part, str) else obj(part).get("text")
    return isinstance(text, str) and text.lstrip().startswith(INJECTED_PREFIXES)


def tool_calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The tool calls recorded on a ``gemini`` message."""
    if message.get("type") != "gemini":
        return []
    return list(dicts(message.get("toolCalls")))


def _succeeded(call: dict[str, Any]) -> bool:
    status = call.get("status")
    return status is None or status == "success"


def _path_of(call: dict[str, Any]) -> str:
    from entire_core.hookinput import first_text  # here: reading a position or a view needs none of it

    written = first_text(obj(call.get("args")), *PATH_ARGS)
    if written:
        return written
    shown = obj(call.get("resultDisplay")).get("filePath")
    return shown if isinstance(shown, str) else ""


# -- what the analyzers report ----------------------------------------------------------------------


def modified_files(messages: Iterable[dict[str, Any]]) -> list[str]:
    """Paths written by successful file-writing tool calls, first occurrence first, as recorded."""
    files: dict[str, None] = {}
    for message in messages:
        for call in tool_calls(message):
            if call.get("name") in MODIFYING_TOOLS and _succeeded(call):
                path = _path_of(call)
                if path:
                    files[path] = None
    return list(files)


def prompts(messages: Iterable[dict[str, Any]]) -> list[str]:
    """What the user typed, oldest first."""
    return [text for text in map(prompt_of, messages) if text]


def summary(messages: Iterable[dict[str, Any]]) -> str:
    """The last model text, thoughts left out ("" when the model has not said anything yet)."""
    last = ""
    for message in messages:
        if message.get("type") == "gemini":
            text = text_of(message.get("content")).strip()
            if text:
                last = text
    return last


def _count(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def usage(messages: Iterable[dict[str, Any]]) -> TokenUsage:
    """Token usage by Entire's formula for GenAI counts (``entire_core.genai.call_usage``): one API
    call per ``gemini`` message with tokens."""
    from entire_core.genai import call_usage
    from entire_core.types import TokenUsage

    total = TokenUsage()
    for message in messages:
        t = obj(message.get("tokens"))
        if message.get("type") != "gemini" or not t:
            continue
        total += call_usage(
            prompt=_count(t.get("input")),
            cached=_count(t.get("cached")),
            output=_count(t.get("output")),
            thoughts=_count(t.get("thoughts")),
            tool=_count(t.get("tool")),
        )
    return total


def subagent_ids(messages: Iterable[dict[str, Any]]) -> list[str]:
    """The session ids of the subagents the main agent ran (``agentId`` of ``invoke_agent`` calls)."""
    ids: dict[str, None] = {}
    for message in messages:
        for call in tool_calls(message):
            agent_id = call.get("agentId")
            if call.get("name") in SUBAGENT_TOOLS and isinstance(agent_id, str) and is_tool_id(agent_id):
                ids[agent_id] = None
    return list(ids)


def legacy_subagent_tasks(messages: Iterable[dict[str, Any]]) -> list[str]:
    """The tasks of the subagents Gemini before 0.39 ran as tools named after the agent (``generalist``).

    Such a call has no ``agentId``; its ``resultDisplay`` is subagent progress, and its only link to the
    subagent's chat (``chats/<session id>/<random id>.json``) is the task, that chat's first prompt.
    """
    tasks: list[str] = []
    for message in messages:
        for call in tool_calls(message):
            if call.get("agentId") or obj(call.get("resultDisplay")).get("isSubagentProgress") is not True:
                continue
            task = obj(call.get("args")).get("request")
            if isinstance(task, str) and task:
                tasks.append(task)
    return tasks


def snapshot_ids(records: Iterable[object]) -> list[str]:
    """Ids of the ``<state_snapshot>`` messages chat compressions wrote, one per compression.

    A compression restarts the chat with a checkpoint whose first user message is the snapshot under a
    new id; later checkpoints (a resume, tool-output masking) repeat it under the same id. Only
    checkpoints count: a prompt that mentions the tag is not a compression.
    """
    ids: dict[str, None] = {}
    for record in records:
        for m in dicts(obj(obj(record).get("$set")).get("messages")):
            if (
                m.get("type") == "user"
                and isinstance(m.get("id"), str)
                and SNAPSHOT_TAG in text_of(m.get("content"))
            ):
                ids[m["id"]] = None
    return list(ids)
