"""JSON for the hot subcommands without ``import json``.

``import json`` pulls in ``re`` (and with it ``enum``, ``functools``, ``collections``) and costs several
milliseconds, a large share of a hook's start-up. ``dumps`` writes the answers, a handful of strings,
ints and bools, as Go's decoder accepts them: ints as ints, floats refused, and strings with only the
escapes JSON requires (non-ASCII kept). ``loads`` reads with the same C scanner ``json.loads`` uses,
built without the ``re``-based module around it; where that accelerator is missing it is ``json.loads``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

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


def dumps_state(value: object) -> str:
    """Compact JSON for our own state files, which may hold what an answer never does (a float,
    read back from a file someone edited): ``dumps``, and the json package only for such values."""
    try:
        return dumps(value)
    except TypeError:
        import json

        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


_WHITESPACE = " \t\n\r"
"""JSON's whitespace; ``str.strip()`` would also take characters JSON refuses."""


def loads(text: str | bytes) -> object:
    """Decode one JSON document as ``json.loads`` does (``ValueError`` for anything else)."""
    if isinstance(text, bytes):
        if text.startswith(_BOMS_16_32) or b"\x00" in text[:2]:
            return _json_loads(text)  # UTF-16 and UTF-32 documents, which json.loads detects
        try:
            text = text.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
        except UnicodeDecodeError:
            return _json_loads(text)  # json.loads lets encoded surrogates through
    scan = _scanner()
    if scan is None:
        return _json_loads(text)
    document = text.lstrip(_WHITESPACE)
    try:
        value, end = scan(document, 0)
    except StopIteration:
        raise ValueError("not a JSON document") from None
    except SystemError:
        # The scanner reports a syntax error inside a value with json.decoder's JSONDecodeError, which it
        # looks up among the loaded modules: without json loaded, Python 3.11 fails this way instead.
        # A malformed document is the rare case: json.loads reads it again and raises its own error.
        return _json_loads(text)
    if document[end:].strip(_WHITESPACE):
        raise ValueError(f"extra data after the JSON value at {end}")
    return value


_BOMS_16_32 = (b"\xff\xfe", b"\xfe\xff")
"""The byte-order marks of UTF-16 and UTF-32 (whose little-endian mark starts with UTF-16's)."""


def _json_loads(text: str | bytes) -> object:
    import json

    return json.loads(text)


def _scanner() -> Callable[[str, int], tuple[object, int]] | None:
    global _scan
    if _scan is None:
        try:
            from _json import make_scanner
        except ImportError:
            return None
        # The C scanner reads a decoder's attributes only; typeshed asks for a JSONDecoder.
        _scan = make_scanner(_DecoderSettings())  # pyright: ignore[reportArgumentType]
    return _scan


class _DecoderSettings:
    """The attributes ``_json.make_scanner`` reads from a ``json.JSONDecoder``, set as its defaults are."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> float:
        return float(name.replace("Infinity", "inf"))  # NaN, Infinity, -Infinity, as json.loads


_scan: Callable[[str, int], tuple[object, int]] | None = None
