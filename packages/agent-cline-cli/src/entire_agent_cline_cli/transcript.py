"""Cline's messages as our journal keeps them: one JSON line per message (``journal``), read here.

A message is Cline's own (``<id>.messages.json``'s ``messages[i]``): ``{"id", "role", "content": [parts],
"ts"}``; a part is ``text``, ``tool_use`` (``id``, ``name``, ``input``) or ``tool_result``
(``tool_use_id``, ``content``, ``is_error``). The user's text is stored as ``<user_input mode="act">…
</user_input>``; tool results are ``user`` messages. Each model call's usage is the assistant message's
``metrics``: ``inputTokens`` is the whole prompt (the AI SDK's ``inputTokens.total``: cache reads and
writes included), ``outputTokens`` the whole completion (reasoning included), ``cacheReadTokens`` and
``cacheWriteTokens`` apart. The journal's first line is the session's header (``journal.HEADER``).
A view line (wrapped generic JSONL, ``view``) is read as the line it carries.
"""

from __future__ import annotations

from entire_core import _json
from entire_core.jsonvalues import integer, obj, objects, text
from entire_core.offsets import lines_of as lines_of  # the transcript's complete lines
from entire_core.views import record_of  # a line's message (or header); a view line's, unwrapped

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from entire_core.types import TokenUsage

WRITING_TOOLS = frozenset(["editor", "apply_patch"])
"""The tools that write files: ``editor`` (``path``) and ``apply_patch`` (its patch's file lines)."""
SUBAGENT_TOOL = "spawn_agent"
_OPEN, _CLOSE = "<user_input", "</user_input>"
_PATCH_FILE = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
"""The lines of an ``apply_patch`` patch that name a file."""


def messages(lines: Iterable[bytes]) -> list[dict[str, Any]]:
    """The messages on ``lines``, in order (the header and blank lines left out)."""
    return [m for m in (record_of(line) for line in lines) if isinstance(m.get("role"), str)]


def scope(data: bytes, offset: int) -> list[dict[str, Any]]:
    """The messages on lines ``offset`` and after."""
    return messages(lines_of(data)[max(offset, 0) :])


def _texts(message: dict[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    return [text(p.get("text")) for p in objects(content) if p.get("type") == "text"]


def prompt_of(message: dict[str, Any]) -> str:
    """What the user typed, unwrapped from ``<user_input>``; "" for tool results and anything else."""
    if message.get("role") != "user" or any(
        p.get("type") == "tool_result" for p in objects(message.get("content"))
    ):
        return ""
    if obj(message.get("metadata")).get("displayRole") == "system":
        return ""
    said = "".join(_texts(message)).strip()
    tag_end = said.find(">")
    if said.startswith(_OPEN) and said.endswith(_CLOSE) and tag_end > 0 and said[len(_OPEN)] in " >":
        return said[tag_end + 1 : -len(_CLOSE)]
    return said


def prompts(items: list[dict[str, Any]]) -> list[str]:
    """The user's prompts among ``items``."""
    return [p for p in (prompt_of(m) for m in items) if p]


def reply_of(message: dict[str, Any]) -> str:
    """An assistant message's text."""
    return "".join(_texts(message)).strip() if message.get("role") == "assistant" else ""


def summary(items: list[dict[str, Any]]) -> str:
    """The last reply with text."""
    return next((r for r in (reply_of(m) for m in reversed(items)) if r), "")


def tool_calls(items: list[dict[str, Any]], name: frozenset[str] | str) -> list[dict[str, Any]]:
    """The ``tool_use`` parts of ``name`` (a name or a set) whose result was not an error."""
    failed = {text(p.get("tool_use_id")) for m in items for p in objects(m.get("content"))
              if p.get("type") == "tool_result" and p.get("is_error") is True}  # fmt: skip
    names = {name} if isinstance(name, str) else name
    return [p for m in items if m.get("role") == "assistant" for p in objects(m.get("content"))
            if p.get("type") == "tool_use" and p.get("name") in names and text(p.get("id")) not in failed]  # fmt: skip


def modified_files(items: list[dict[str, Any]]) -> list[str]:
    """The files the writing tools wrote, in order, once each (as Cline named them)."""
    found: list[str] = []
    for call in tool_calls(items, WRITING_TOOLS):
        given = obj(call.get("input"))
        if call.get("name") == "editor":
            found.append(text(given.get("path")))
        else:
            patch = text(given.get("input")) or text(given.get("patch"))
            found += [
                line[len(p) :] for line in patch.splitlines() for p in _PATCH_FILE if line.startswith(p)
            ]
    return list(dict.fromkeys(f.strip() for f in found if f.strip()))


def subagent_tasks(items: list[dict[str, Any]]) -> list[str]:
    """The tasks of the subagents ``items`` started (``spawn_agent``'s ``task``)."""
    return [text(obj(c.get("input")).get("task")) for c in tool_calls(items, SUBAGENT_TOOL)]


def call_usage(message: dict[str, Any]) -> TokenUsage | None:
    """One model call's usage in Entire's units, or None for a message that is no model call."""
    from entire_core.types import TokenUsage

    metrics = message.get("metrics")
    if message.get("role") != "assistant" or not isinstance(metrics, dict):
        return None
    m = obj(metrics)
    read, written = integer(m.get("cacheReadTokens")), integer(m.get("cacheWriteTokens"))
    fresh = max(0, integer(m.get("inputTokens")) - read - written)
    return TokenUsage(fresh, written, read, integer(m.get("outputTokens")), 1)


def tokens(items: list[dict[str, Any]]) -> TokenUsage:
    """The usage of the model calls among ``items``."""
    from entire_core.types import TokenUsage

    total = TokenUsage()
    for message in items:
        call = call_usage(message)
        if call is not None:
            total = total + call
    return total


def document(data: bytes) -> dict[str, Any]:
    """A messages document (``<id>.messages.json``), ``{}`` when it does not parse (being rewritten)."""
    try:
        return obj(_json.loads(data))
    except (ValueError, RecursionError):
        return {}


def subagent_messages(files: list[str], tasks: list[str]) -> list[list[dict[str, Any]]]:
    """The messages of the subagents among ``files`` that ``tasks`` started (their first prompt is the task)."""
    wanted = list(tasks)
    found: list[list[dict[str, Any]]] = []
    from entire_core.offsets import read_all

    for path in files:
        items = objects(document(read_all(path)).get("messages"))
        first = next((m for m in items if m.get("role") == "user"), {})
        task = "".join(_texts(first)).strip()
        if task in wanted:
            wanted.remove(task)
            found.append(items)
    return found
