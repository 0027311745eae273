"""A small JSON encoder for the answers the hot subcommands print.

``import json`` pulls in ``re`` and costs several milliseconds, a large share of a hook's start-up, for
answers that are a handful of strings, ints and bools. This encoder writes what Go's decoder accepts:
ints as ints, floats refused, and strings with only the escapes JSON requires (non-ASCII kept).
"""

from __future__ import annotations

_ESCAPES = {i: f"\\u{i:04x}" for i in range(0x20)}
_ESCAPES.update({ord('"'): '\\"', ord("\\"): "\\\\", ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})


def _string(value: str) -> str:
    text = value.translate(_ESCAPES)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates (undecodable file names) become escapes; Go reads them as U+FFFD.
        text = "".join(c if not 0xD800 <= ord(c) <= 0xDFFF else f"\\u{ord(c):04x}" for c in text)
    return f'"{text}"'


def dumps(value: object) -> str:
    """Serialize dicts, lists, tuples, strings, ints, bools and None as compact JSON."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, dict):
        mapping: dict[object, object] = value  # pyright: ignore[reportUnknownVariableType]
        return "{" + ",".join(f"{_string(str(k))}:{dumps(v)}" for k, v in mapping.items()) + "}"
    if isinstance(value, (list, tuple)):
        items: list[object] | tuple[object, ...] = value  # pyright: ignore[reportUnknownVariableType]
        return "[" + ",".join(dumps(v) for v in items) + "]"
    raise TypeError(f"cannot encode {type(value).__name__} for the Entire CLI")
