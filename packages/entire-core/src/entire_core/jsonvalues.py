"""Typed views of loosely shaped JSON (hook payloads, transcript records) that never raise.

Agents read other programs' JSON, whose shape changes between versions; these helpers give a value
of the expected type or an empty one, so parsing code stays short, total and type-checked.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def obj(value: object) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty dict."""
    if isinstance(value, dict):
        result: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
        return result
    return {}


def array(value: object) -> list[Any]:
    """``value`` if it is a JSON array, else an empty list."""
    if isinstance(value, list):
        result: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        return result
    return []


def text(value: object) -> str:
    """``value`` if it is a string, else ""."""
    return value if isinstance(value, str) else ""


def integer(value: object) -> int:
    """``value`` if it is an integer (not a bool), a float with no fraction, else 0."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return 0


def objects(value: object) -> list[dict[str, Any]]:
    """The objects in a JSON array (none for anything else)."""
    return [o for o in map(obj, array(value)) if o]


def strings(value: object) -> list[str]:
    """The strings in a JSON array (none for anything else)."""
    return [item for item in array(value) if isinstance(item, str)]
