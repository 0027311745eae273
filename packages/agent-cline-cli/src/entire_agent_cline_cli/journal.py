"""The session's journal: Cline's rewritten ``<id>.messages.json`` as a file that only ever grows.

Cline rewrites the whole document on every change, so the host cannot read it by lines, nor core's
views follow it. The journal is what they read instead, one way only: its first line is the session's
header (``HEADER``: the document without its messages, and the manifest ``<id>.json``), then one line
per message (``JSON.stringify`` of Cline's own message), appended in order as messages appear and
never rewritten. A message already journaled (by ``id``) is not written again, so a document Cline
rewrote (a compaction) only appends what is new. The journal lives in the plugin's scratch area
(``entire_core.scratch``); ``restore`` writes it back as Cline's two files, byte for byte as Cline
writes them (``JSON.stringify(value, null, 2)`` and a newline).
"""

from __future__ import annotations

import os

from entire_core.jsonvalues import obj, objects, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HEADER = "cline_session"
"""The header line's key: ``{"cline_session": {"document": {...}, "manifest": {...}}}``."""


def path(repo_root: str, agent_name: str, session_id: str) -> str:
    """The journal of a session (``session_id`` validated by the caller)."""
    from entire_core.scratch import Scratch

    return Scratch(repo_root, agent_name).path(f"journal-{session_id}.jsonl")


def _line(value: object) -> bytes:
    from entire_core._json import dumps_state  # the json package only for a float

    return dumps_state(value).encode("utf-8", "surrogatepass") + b"\n"


def _read(file: str) -> bytes:
    try:
        with open(file, "rb") as f:
            return f.read()
    except OSError:
        return b""


def sync(messages_file: str, journal: str, upto: int | None = None) -> int:
    """Append the messages of ``messages_file`` not journaled yet (of its first ``upto``, when given); the
    number of messages journaled."""
    from entire_core import fsutil, locks

    from entire_agent_cline_cli.transcript import document, lines_of, messages

    doc = document(_read(messages_file))
    found = objects(doc.get("messages"))[:upto]
    with locks.exclusive(journal + ".lock"):
        data = _read(journal)
        whole = data[: data.rfind(b"\n") + 1]  # a line torn by a kill is written again
        if not whole:
            if not found:
                return 0
            manifest_path = os.path.join(os.path.dirname(messages_file), text(doc.get("sessionId")) + ".json")
            header = {"document": {k: ([] if k == "messages" else v) for k, v in doc.items()},
                      "manifest": document(_read(manifest_path))}  # fmt: skip
            fsutil.atomic_write(
                journal, _line({HEADER: header}) + b"".join(_line(m) for m in found), durable=False
            )
            return len(found)
        known = messages(lines_of(whole))
        ids = {text(m.get("id")) for m in known}
        new = [
            m
            for i, m in enumerate(found)
            if (text(m.get("id")) not in ids if m.get("id") else i >= len(known))
        ]
        if len(whole) != len(data):
            with open(journal, "r+b") as f:
                f.truncate(len(whole))
        if new:
            with open(journal, "ab") as f:
                f.write(b"".join(_line(m) for m in new))
                f.flush()
                os.fsync(f.fileno())
        return len(known) + len(new)


def restore(data: bytes, sessions: str, session_id: str) -> str:
    """Write journal ``data`` back as Cline's session files in ``sessions``; the messages file's path.

    The manifest is written only where there is none: Cline keeps it up to date itself.
    """
    from entire_core import fsutil

    from entire_agent_cline_cli import paths
    from entire_agent_cline_cli.transcript import decode, lines_of, messages

    lines = lines_of(data)
    header = obj(decode(lines[0]).get(HEADER)) if lines else {}
    doc: dict[str, Any] = dict(obj(header.get("document"))) or {"version": 1, "sessionId": session_id}
    doc["messages"] = messages(lines)
    target = paths.messages_file(sessions, session_id)
    fsutil.atomic_write(target, _pretty(doc))
    manifest = obj(header.get("manifest"))
    manifest_file = paths.manifest_file(sessions, session_id)
    if manifest and not os.path.exists(manifest_file):
        if "messages_path" in manifest:
            manifest["messages_path"] = target
        fsutil.atomic_write(manifest_file, _pretty(manifest))
    return target


def _pretty(value: object) -> bytes:
    import json

    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8", "surrogatepass")
