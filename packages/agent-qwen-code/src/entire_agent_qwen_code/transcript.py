"""Qwen Code's chat recording: one JSON record per line, a tree linked by ``parentUuid``.

Records carry ``uuid``, ``parentUuid``, ``type`` (``user``, ``assistant``, ``tool_result``,
``system``), ``provenance`` and a GenAI ``message`` (``{role, parts}``); assistant records carry the
model call's ``usageMetadata``. ``/rewind`` appends records that hang off an earlier parent, leaving
what it abandoned on a dead branch: the **live branch** is found by walking ``parentUuid`` back from the
last record, and only it is the session's work. Positions are line counts, as the Entire CLI counts
the file's lines (a view's lines, one per chat line); a scope is the live records on lines at or after
the offset.
"""

from __future__ import annotations

from entire_core.jsonvalues import obj, text
from entire_core.offsets import lines_of as lines_of  # the transcript's complete lines

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from entire_core.types import TokenUsage

WRITING_TOOLS = frozenset(["write_file", "edit", "notebook_edit", "replace"])
"""Tools that write the file named by their ``file_path`` argument (``replace``: the name before ``edit``)."""
SUBAGENT_TOOLS = frozenset(["agent", "task"])
"""The tool that runs a subagent (``task`` in older builds)."""
PATH_ARGS = ("file_path", "notebook_path", "absolute_path", "path")


def decode(line: bytes) -> dict[str, Any]:
    """One line's record, or ``{}``: a view's line (wrapped generic JSONL, ``view``) is read as the record
    it carries, its header padding and marker as no record. Qwen's own records start with their uuid."""
    from entire_core.views import record_of

    return record_of(line)


def records(lines: Iterable[bytes]) -> list[dict[str, Any]]:
    """Each line's record, or ``{}`` where a line holds none (kept, so indexes stay line numbers)."""
    return [decode(line) for line in lines]


def live(items: list[dict[str, Any]]) -> list[bool]:
    """For each record, whether it lies on the live branch (records without a ``uuid`` count as live)."""
    by_id = {text(r.get("uuid")): i for i, r in enumerate(items) if text(r.get("uuid"))}
    alive = [not text(r.get("uuid")) for r in items]
    tips = [i for i, r in enumerate(items) if text(r.get("uuid"))]
    at: int | None = tips[-1] if tips else None
    while at is not None and not alive[at]:
        alive[at] = True
        at = by_id.get(text(items[at].get("parentUuid")))
    return alive


def split(data: bytes, offset: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The live records on the lines before ``offset``, and those on lines ``offset`` and after."""
    items = records(lines_of(data))
    alive = live(items)
    at = max(offset, 0)
    kept = [(i, r) for i, r in enumerate(items) if alive[i] and r]
    return [r for i, r in kept if i < at], [r for i, r in kept if i >= at]


def scope(data: bytes, offset: int) -> list[dict[str, Any]]:
    """The live records on lines ``offset`` and after (an offset past the end: none)."""
    return split(data, offset)[1]


def _parts(record: dict[str, Any]) -> object:
    return obj(record.get("message")).get("parts")


def prompt_of(record: dict[str, Any]) -> str:
    """What the user typed in a ``user`` record; "" for notifications, slash commands and tool results."""
    from entire_core.genai import only_function_responses, text_of

    if (
        record.get("type") != "user"
        or record.get("subtype")
        or record.get("provenance") not in (None, "real_user")
    ):
        return ""
    parts = _parts(record)
    return "" if only_function_responses(parts) else text_of(parts).strip()


def prompts(items: Iterable[dict[str, Any]]) -> list[str]:
    """What the user typed, oldest first."""
    return [p for p in map(prompt_of, items) if p]


def calls(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The function calls of the assistant records, in order."""
    from entire_core.genai import function_calls

    return [c for r in items if r.get("type") == "assistant" for c in function_calls(_parts(r))]


def _failed(items: Iterable[dict[str, Any]]) -> set[str]:
    """Ids of the calls whose tool result says they did not succeed."""
    failed: set[str] = set()
    for r in items:
        result = obj(r.get("toolCallResult"))
        if r.get("type") == "tool_result" and result.get("status") not in (None, "success"):
            failed.add(text(result.get("callId")))
    return failed


def modified_files(items: list[dict[str, Any]]) -> list[str]:
    """Paths written by successful file-writing calls, first occurrence first, as recorded."""
    from entire_core.hookinput import first_text

    failed = _failed(items)
    files: dict[str, None] = {}
    for call in calls(items):
        path = first_text(obj(call.get("args")), *PATH_ARGS)
        if call.get("name") in WRITING_TOOLS and path and text(call.get("id")) not in failed:
            files[path] = None
    return list(files)


def subagent_calls(items: list[dict[str, Any]]) -> list[str]:
    """Ids of the subagent calls in ``items`` (a background subagent belongs to the turn that started it)."""
    return [text(c.get("id")) for c in calls(items) if c.get("name") in SUBAGENT_TOOLS and text(c.get("id"))]


def summary(items: Iterable[dict[str, Any]]) -> str:
    """The last model text ("" before the model said anything)."""
    from entire_core.genai import text_of

    last = ""
    for r in items:
        said = text_of(_parts(r)).strip() if r.get("type") == "assistant" else ""
        last = said or last
    return last


GOOGLE_BACKENDS = frozenset(["gemini", "vertex-ai"])
"""Auth types whose calls Qwen sends to Google's own API and records as Google reports them: the
candidates exclude the thoughts. Every other backend's converter (``openai``, ``qwen-oauth``,
``openai-responses``, ``anthropic``) stores a completion count that already holds the reasoning as the
candidates, and repeats the reasoning part as the thoughts (the README's table, per version)."""

Backends = dict[str, str]
"""Model name to the auth type Qwen logged for the latest call to it; ``""`` to that of the latest call."""


def logged_call(record: dict[str, Any]) -> tuple[str, str] | None:
    """``(model, auth type)`` of the ``api_response`` telemetry record Qwen writes for each model call,
    just before the call's assistant record (in 0.15.6 to 0.24.4 alike); None for any other record."""
    if record.get("type") != "system" or record.get("subtype") != "ui_telemetry":
        return None
    event = obj(obj(record.get("systemPayload")).get("uiEvent"))
    auth = text(event.get("auth_type"))
    if event.get("event.name") != "qwen-code.api_response" or not auth:
        return None
    return text(event.get("model")), auth


def backends(items: Iterable[dict[str, Any]], known: Backends | None = None) -> Backends:
    """``known`` updated with the model calls logged in ``items`` (``logged_call``)."""
    seen = dict(known or {})
    for r in items:
        _note(seen, r)
    return seen


def _note(seen: Backends, record: dict[str, Any]) -> None:
    logged = logged_call(record)
    if logged is not None:
        seen[logged[0]] = seen[""] = logged[1]


def usage_of(record: dict[str, Any], seen: Backends) -> TokenUsage | None:
    """One model call from an assistant record's ``usageMetadata``, by the backend that answered it: the
    auth type logged for its model (``seen``), else for the latest call; a call with none logged is
    counted as every backend but Google's counts (the candidates hold the thoughts)."""
    from entire_core.genai import usage_metadata

    if record.get("type") != "assistant":
        return None
    auth = seen.get(text(record.get("model")), seen.get("", ""))
    return usage_metadata(record.get("usageMetadata"), thoughts_in_candidates=auth not in GOOGLE_BACKENDS)


def tokens(items: Iterable[dict[str, Any]], known: Backends | None = None) -> TokenUsage:
    """One API call per assistant record with ``usageMetadata`` (telemetry records repeat them, and
    count the subagents' calls too, so they are not counted), each by the backend Qwen logged for it
    (``known``: the calls logged before ``items``)."""
    from entire_core.types import TokenUsage

    seen = dict(known or {})
    total = TokenUsage()
    for r in items:
        _note(seen, r)
        call = usage_of(r, seen)
        if call is not None:
            total += call
    return total


def _subagent_events(items: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The telemetry events a subagent logged in the parent's recording (its ``prompt_id`` names the
    agent between the session id and the call number: ``<session>#general-purpose-5aj40q#0``)."""
    found: list[dict[str, Any]] = []
    for r in items:
        event = obj(obj(r.get("systemPayload")).get("uiEvent"))
        middle = text(event.get("prompt_id")).split("#")[1:-1]
        if r.get("subtype") == "ui_telemetry" and (event.get("subagent_name") or any(middle)):
            found.append(event)
    return found


def telemetry_subagents(items: list[dict[str, Any]]) -> tuple[list[str], TokenUsage]:
    """Files and tokens of the subagents that left no recording of their own (before 0.24, a subagent
    is recorded only as telemetry in the parent's file): its successful writes and its model calls."""
    from entire_core.genai import call_usage
    from entire_core.jsonvalues import integer
    from entire_core.types import TokenUsage

    files: dict[str, None] = {}
    total = TokenUsage()
    for event in _subagent_events(items):
        name = event.get("event.name")
        if name == "qwen-code.api_response":
            total += call_usage(prompt=integer(event.get("input_token_count")),
                                cached=integer(event.get("cached_content_token_count")),
                                output=integer(event.get("output_token_count")),
                                thoughts=integer(event.get("thoughts_token_count")),
                                thoughts_in_candidates=text(event.get("auth_type")) not in GOOGLE_BACKENDS)  # fmt: skip
        path = text(obj(event.get("function_args")).get("file_path"))
        if name == "qwen-code.tool_call" and event.get("function_name") in WRITING_TOOLS and path:
            files.update({path: None} if event.get("success") is True else {})
    return list(files), total
