"""The session's journal: Cline's rewritten ``<id>.messages.json`` as a file that only ever grows.

Cline rewrites the whole document on every change, so the host cannot read it by lines, nor core's
views follow it. The journal is what they read instead, one way only: its first line is the session's
header (``HEADER``: the document without its messages, and the manifest ``<id>.json``), then one line
per message (``JSON.stringify`` of Cline's own message), appended in order as messages appear and
never rewritten; a later header line holds the document's fields that changed since (``header``). A message already journaled (by ``id``) is not written again, so a document Cline
rewrote (a compaction) only appends what is new. The journal lives in the plugin's scratch area
(``entire_core.scratch``); ``restore`` writes it back as Cline's two files, byte for byte as Cline
writes them (``JSON.stringify(value, null, 2)`` and a newline).
"""

from __future__ import annotations

import os

from entire_core.jsonvalues import obj, objects, text
from entire_core.offsets import read_all

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HEADER = "cline_session"
"""The header line's key: ``{"cline_session": {"document": {...}, "manifest": {...}}}``."""


def path(repo_root: str, agent_name: str, session_id: str) -> str:
    """The journal of a session (``session_id`` validated by the caller)."""
    from entire_core.scratch import Scratch

    return Scratch(repo_root, agent_name).path(f"journal-{session_id}.jsonl")


def line(value: object) -> bytes:
    from entire_core._json import dumps_state  # the json package only for a float

    return dumps_state(value).encode("utf-8", "surrogatepass") + b"\n"


def header(lines: list[bytes]) -> dict[str, Any]:
    """The session's header as of the journal's ``lines``: the first line's, with the document's fields
    that later header lines changed (Cline rewrites ``updated_at`` on every write)."""
    from entire_core.views import record_of

    heads = [h for h in (obj(record_of(raw).get(HEADER)) for raw in lines) if h]
    fields = {k: v for h in heads for k, v in obj(h.get("document")).items()}
    return {**heads[0], "document": fields} if heads else {}


def update(lines: list[bytes], fields: dict[str, Any]) -> list[dict[str, Any]]:
    """The header line of the document ``fields`` changed since the header of ``lines`` (none if none did)."""
    was = obj(header(lines).get("document"))
    changed = {k: v for k, v in fields.items() if k != "messages" and was.get(k) != v}
    return [{HEADER: {"document": changed}}] if changed else []


def sync(messages_file: str, journal: str, upto: int | None = None, data: bytes | None = None) -> int:
    """Append the messages of ``messages_file`` (its bytes ``data``, when read already) not journaled yet,
    of its first ``upto`` when given; the number of messages journaled. Where none is left out, a header
    line follows with the document's fields that changed."""
    from entire_core import fsutil, locks

    from entire_agent_cline_cli.transcript import document, lines_of, messages

    doc = document(read_all(messages_file) if data is None else data)
    every = objects(doc.get("messages"))
    fields = {k: ([] if k == "messages" else v) for k, v in doc.items()}
    with locks.exclusive(journal + ".lock"):
        data = read_all(journal)
        whole = data[: data.rfind(b"\n") + 1]  # a line torn by a kill is written again
        if not whole:
            if not doc:
                return 0
            manifest_path = os.path.join(os.path.dirname(messages_file), text(doc.get("sessionId")) + ".json")
            found = every[:upto]
            first = {HEADER: {"document": fields, "manifest": document(read_all(manifest_path))}}
            fsutil.atomic_write(journal, line(first) + b"".join(line(m) for m in found), durable=False)
            return len(found)
        lines = lines_of(whole)
        known = messages(lines)
        ids = {text(m.get("id")) for m in known}
        rest = [(i, m) for i, m in enumerate(every)
                if (text(m.get("id")) not in ids if m.get("id") else i >= len(known))]  # fmt: skip
        new = [m for i, m in rest if upto is None or i < upto]
        tail = update(lines, fields) if len(new) == len(rest) else []
        if len(whole) != len(data):
            with open(journal, "r+b") as f:
                f.truncate(len(whole))
        if new or tail:
            with open(journal, "ab") as f:
                f.write(b"".join(line(m) for m in [*new, *tail]))
                f.flush()
                os.fsync(f.fileno())
        return len(known) + len(new)


def restore(data: bytes, sessions: str, session_id: str) -> str:
    """Write journal ``data`` back as Cline's session files in ``sessions``; the messages file's path.

    The manifest is written only where there is none: Cline keeps it up to date itself.
    """
    from entire_core import fsutil

    from entire_agent_cline_cli import paths
    from entire_agent_cline_cli.transcript import lines_of, messages

    lines = lines_of(data)
    head = header(lines)
    doc: dict[str, Any] = dict(obj(head.get("document"))) or {"version": 1, "sessionId": session_id}
    doc["messages"] = messages(lines)
    target = paths.messages_file(sessions, session_id)
    fsutil.atomic_write(target, _pretty(doc))
    manifest = dict(obj(head.get("manifest")))
    manifest_file = paths.manifest_file(sessions, session_id)
    if manifest and not os.path.exists(manifest_file):
        if "messages_path" in manifest:
            manifest["messages_path"] = target
        fsutil.atomic_write(manifest_file, _pretty(manifest))
    return target


def _pretty(value: object) -> bytes:
    import json

    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8", "surrogatepass")
