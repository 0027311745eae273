"""The wire shape of a view: native lines wrapped in generic JSONL and back, the header's marker, ``LEAD``.

Pure functions of bytes: what the CLI reads in a view, and how the agent's own lines are read out of it.
"""

from __future__ import annotations

from entire_core.views.format import ASSISTANT, NATIVE, USER

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from typing import Any

    from entire_core.views.format import Mapped, ViewFormat

MARKER_PREFIX = b'{"type":"entire_view","v":2,"body":'
"""How the header's marker line starts; it follows the padding and precedes the snapshot records."""
LEAD = b'{"type":"entire_view","v":2,"lead":1}'
"""The first line of a wrapped view that held no line when a turn started (``View.turn_started``): that
turn starts at line 1, not 0, which the CLI reads as no start at all (v0.10.3 ``lifecycle.go``,
``resolveTranscriptOffset``: ``TranscriptOffset > 0``, else ``checkpoint_transcript_start``). The view's
line N is then the session's line N - 1."""
VIEW_LINE = b'{"type":"entire_view",'
"""How the view's own lines start (the marker, ``LEAD``): no record of the agent's."""


def _dumps(value: object) -> str:
    # Core's own writer: a hook path never imports json (and with it re, enum, functools).
    from entire_core import _json

    return _json.dumps_state(value)


def wrap(fmt: ViewFormat, line: bytes, *, kind: str | None = None) -> bytes:
    """One native line (without its newline) as one generic-JSONL line that carries it losslessly.

    ``kind="native"`` forces a record the compactor skips (snapshot records restate older turns);
    a text format's ``record`` is then not asked (it reads the lines it is given in order).
    """
    from entire_core import _json

    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        import base64

        return _dumps({"type": NATIVE, "native_b64": base64.b64encode(line).decode("ascii")}).encode()
    if not fmt.json_records:
        mapped = fmt.record(text.removesuffix("\r")) if kind is None else None
        return _wrapped(fmt, mapped, None, False, text, kind)
    value: Any = None
    parsed = False
    if text.strip():
        try:
            value = _json.loads(text)
            parsed = True
        except (ValueError, RecursionError):
            parsed = False
    mapped = fmt.record(value) if parsed else None
    try:
        same = parsed and _dumps(value) == text
    except (ValueError, RecursionError):
        same = False
    return _wrapped(fmt, mapped, value, same, text, kind)


def _wrapped(
    fmt: ViewFormat, mapped: Mapped | None, value: Any, same: bool, text: str, kind: str | None
) -> bytes:
    out: dict[str, Any] = {"type": NATIVE}
    if mapped is not None:
        mtype, blocks, stamp = mapped
        if kind is None and mtype in (USER, ASSISTANT) and blocks:
            out["type"] = mtype
        if stamp:
            out["timestamp"] = stamp
        if out["type"] != NATIVE:
            message: dict[str, Any] = {"role": mtype, "content": blocks}
            if mtype == ASSISTANT:
                message.update(fmt.message_extra(value if fmt.json_records else text))
            out["message"] = message
    if same:
        out["native"] = value
    else:
        out["native_text"] = text
    return _dumps(out).encode("utf-8", "surrogatepass")


def rewrap(line: bytes, native: bytes) -> bytes:
    """A wrapped view line carrying ``native`` instead of its own native line, its mapping kept.

    For text formats, whose mapping depends on the lines before (``ViewFormat.state``): a record
    shortened after it was mapped keeps what it restates.
    """
    from entire_core import _json
    from entire_core.jsonvalues import obj

    try:
        value = obj(_json.loads(line))
    except (ValueError, RecursionError):
        value = {}
    for key in ("native", "native_text", "native_b64"):
        value.pop(key, None)
    value.setdefault("type", NATIVE)
    try:
        value["native_text"] = native.decode("utf-8")
    except UnicodeDecodeError:
        import base64

        value["native_b64"] = base64.b64encode(native).decode("ascii")
    return _dumps(value).encode("utf-8", "surrogatepass")


def unwrap(line: bytes) -> bytes | None:
    """The native line a wrapped view line carries; None for header padding, the marker and ``LEAD``.

    A line that is not a wrapped record is returned as it is (a native view's own lines).
    """
    stripped = line.strip()
    if not stripped or stripped.startswith(VIEW_LINE):
        return None
    if b'"native' not in line:
        return line
    from entire_core import _json
    from entire_core.jsonvalues import obj

    try:
        parsed: object = _json.loads(line)
    except (ValueError, RecursionError):
        return line
    value = obj(parsed)
    if not value:
        return line
    if "native" in value:
        return _dumps(value["native"]).encode("utf-8", "surrogatepass")
    if isinstance(value.get("native_text"), str):
        return str(value["native_text"]).encode("utf-8", "surrogatepass")
    if isinstance(value.get("native_b64"), str):
        import base64
        import binascii

        try:
            return base64.b64decode(str(value["native_b64"]), validate=True)
        except (ValueError, binascii.Error):
            return line
    return line


def native_lines(lines: Iterator[bytes] | list[bytes], wrapped: bool) -> Iterator[bytes]:
    """The agent's own lines in view lines: unwrapped (wrapped views), the view's own lines skipped."""
    for line in lines:
        if wrapped:
            native = unwrap(line)
            if native is not None:
                yield native
        elif line.strip() and not line.startswith(VIEW_LINE):
            yield line


def record_of(line: bytes) -> dict[str, Any]:
    """The JSON object on one line of a wrapped view or of the agent's own file, ``{}`` for none: a wrapped
    line is read as the native line it carries, the view's own lines (padding, marker, ``LEAD``) as none."""
    from entire_core import _json
    from entire_core.jsonvalues import obj

    if line.startswith(b'{"type":"'):
        line = unwrap(line) or b""
    try:
        return obj(_json.loads(line)) if line.strip() else {}
    except (ValueError, RecursionError):
        return {}


def lines_as_native(lines: Iterable[bytes]) -> Iterator[bytes]:
    """Each view line as the agent's own line, one for one (line N stays line N): wrapped lines
    unwrapped, header padding, the marker and ``LEAD`` as empty lines. For text formats, whose parsers count lines."""
    for line in lines:
        native = unwrap(line)
        yield b"" if native is None else native


def unpadded(data: bytes) -> bytes:
    """View bytes without the spaces ``View.turn_ended`` may leave after the last line."""
    tail = data.rfind(b"\n") + 1
    return data[:tail] if tail and not data[tail:].strip() else data


def native_bytes(data: bytes, wrapped: bool) -> bytes:
    """The agent's own file restored from view bytes (``write-session``): the view's own lines dropped."""
    if not data or (wrapped and not data.startswith(b'{"type":"')):
        return data  # not a wrapped view (a mirror of a file the format does not view): as it is
    lines = data.split(b"\n")
    tail = lines.pop()  # what follows the last newline (b"" for a complete view)
    body = head_lines_of(data)
    out: list[bytes] = []
    for i, line in enumerate(lines):
        if wrapped:
            native = unwrap(line)
            if native is not None:
                out.append(native + b"\n")
        elif (i == 0 and line != LEAD) or i >= body or (line.strip() and not line.startswith(VIEW_LINE)):
            out.append(line + b"\n")
    if tail.strip():  # not the spaces ``View.turn_ended`` may leave after the last line
        out.append(unwrap(tail) or b"" if wrapped else tail)
    return b"".join(out)


def head_lines_of(data: bytes) -> int:
    """Where the body of view bytes starts (0 without a header): read from the marker after the padding."""
    first_end = data.find(b"\n")
    if first_end < 0:
        return 0
    position = first_end + 1
    while position < len(data) and data[position : position + 1] in (b"\n", b"\r"):
        position = data.find(b"\n", position) + 1 or len(data)
    end = data.find(b"\n", position)
    values = marker_values(data[position : len(data) if end < 0 else end].rstrip(b"\r"))
    return values[0] if values is not None else 0


def marker(body: int, resume: int | None = None, cut: dict[str, Any] | None = None) -> bytes:
    """The header's marker line: the body starts at line ``body``; ``cut``: the usage of the lines a
    re-base dropped after the start the CLI stored (``views.rebase``)."""
    extra = b"" if resume is None else b',"resume":%d' % resume
    if cut is not None:
        extra += b',"cut":' + _dumps(cut).encode("utf-8")
    return MARKER_PREFIX + b"%d%s}" % (body, extra)


def marker_values(line: bytes) -> tuple[int, int | None, dict[str, Any] | None] | None:
    """A marker line's body start, resume line and carried usage (None for a line that is no marker)."""
    if not line.startswith(MARKER_PREFIX):
        return None
    from entire_core import _json
    from entire_core.jsonvalues import obj

    try:
        value = obj(_json.loads(line))
    except (ValueError, RecursionError):
        return None
    body = value.get("body")
    if not isinstance(body, int) or body < 2:
        return None
    resume = value.get("resume")
    cut = obj(value.get("cut"))
    start = cut.get("from")
    valid = (
        isinstance(start, int)
        and 0 <= start < body
        and all(isinstance(cut.get(k), dict) for k in ("tokens", "total"))
    )
    return body, resume if isinstance(resume, int) else None, cut if valid else None


def with_resume(data: bytes, resume: int) -> bytes:
    """View bytes ``data`` with ``resume`` written into their header's marker, every other byte kept."""
    at = data.find(MARKER_PREFIX)
    stop = data.find(b"\n", at)
    values = marker_values(data[at:stop])
    return (
        data[:at]
        + marker(head_lines_of(data), resume, values[2] if values is not None else None)
        + data[stop:]
    )
