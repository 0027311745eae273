"""Qwen Code's transcript: one JSON record per line.

AGENT AUTHOR: replace the record shapes with the agent's own. This stub reads
``{"type": "user", "text": ...}``, ``{"type": "assistant", "text": ..., "usage": {"input", "cached",
"output"}}`` and ``{"type": "tool", "path": ...}`` (a file the tool wrote). Positions are byte offsets of
complete lines (``entire_core.offsets``), so only the functions below know the format.
"""

from __future__ import annotations

from entire_core.types import TokenUsage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


def records(lines: Iterable[bytes]) -> list[dict[str, Any]]:
    """The JSON objects among ``lines``; a line that is not one is skipped (a torn or foreign line)."""
    from entire_core import _json  # not json: these run at every turn's end, and json pulls in re
    from entire_core.jsonvalues import obj

    found: list[dict[str, Any]] = []
    for line in lines:
        try:
            record = obj(_json.loads(line))
        except (ValueError, RecursionError):
            continue
        if record:
            found.append(record)
    return found


def prompts(items: list[dict[str, Any]]) -> list[str]:
    """What the user typed, in order."""
    from entire_core.jsonvalues import text

    return [text(r.get("text")) for r in items if r.get("type") == "user"]


def modified_files(items: list[dict[str, Any]]) -> list[str]:
    """The files the agent's tools wrote, as recorded (core makes them repo-relative)."""
    from entire_core.jsonvalues import text

    return [text(r.get("path")) for r in items if r.get("type") == "tool" and text(r.get("path"))]


def summary(items: list[dict[str, Any]]) -> str | None:
    """The agent's last answer, or None before it answered."""
    from entire_core.jsonvalues import text

    answers = [text(r.get("text")) for r in items if r.get("type") == "assistant"]
    return answers[-1] if answers else None


def tokens(items: list[dict[str, Any]]) -> TokenUsage:
    """Token usage summed over the model calls in ``items``."""
    from entire_core.jsonvalues import integer, obj

    total = TokenUsage()
    for record in items:
        usage = obj(record.get("usage"))
        if record.get("type") == "assistant" and usage:
            cached = integer(usage.get("cached"))
            total += TokenUsage(
                integer(usage.get("input")) - cached, 0, cached, integer(usage.get("output")), 1
            )
    return total
