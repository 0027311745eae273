"""Telling a real chat compression apart from Gemini's PreCompress before every model call.

Gemini 0.61 fires PreCompress (trigger ``auto``) at the start of every compression check, before the
token threshold is even tested, so the hook alone means nothing. A compression that happens restarts
the chat with a ``$set.messages`` checkpoint whose first user message is a ``<state_snapshot>`` under a
new id. The hook runs before the compression it announces, so that evidence is seen at the next
PreCompress. A small state file per session remembers which snapshots were reported and how far the
chat file was scanned: each compression is reported once, and a check reads only the new bytes.
"""

from __future__ import annotations

import os

from entire_agent_google_gemini.transcript import SNAPSHOT_TAG

_RESCAN_SAVE_BYTES = 1 << 20
"""Save the scan position after this many quiet bytes, so later checks stay O(new bytes)."""


def _load(state_file: str) -> object:
    import json

    try:
        with open(state_file, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _save(state_file: str, transcript_path: str, offset: int, seen: list[str]) -> None:
    import json

    from entire_core import fsutil

    state = {"path": transcript_path, "offset": offset, "seen": seen}
    fsutil.atomic_write(state_file, json.dumps(state).encode("utf-8"))


def _scan(transcript_path: str, offset: int) -> tuple[list[str], int] | None:
    """Snapshot ids in the complete lines after byte ``offset`` and the new offset; None if no file."""
    from entire_core.offsets import read_lines

    if not os.path.isfile(transcript_path):
        return None
    lines, end = read_lines(transcript_path, offset, restart=True)  # replaced or rewritten: all again
    tag = SNAPSHOT_TAG.encode()
    tagged = [line for line in lines if tag in line]
    if not tagged:
        return [], end
    from entire_agent_google_gemini import transcript

    return transcript.snapshot_ids(transcript.parse(b"\n".join(tagged) + b"\n").records()), end


def compressed_since_last_check(repo_root: str, session_id: str, transcript_path: str) -> bool:
    """True once for every chat compression recorded since the previous check of this session.

    The first check of a session only sets the baseline: compressions before it are not news (a
    session's first PreCompress comes before any compression; a resumed one's are old).
    """
    from entire_core import sessions, validate

    state_dir = os.path.join(sessions.default_session_dir(repo_root, "google-gemini"), "compactions")
    state_file = os.path.join(state_dir, validate.session_id(session_id) + ".json")
    from entire_core.jsonvalues import obj

    state = _load(state_file)
    known = obj(state)
    raw_seen: list[object] = known.get("seen") or []
    seen = [s for s in raw_seen if isinstance(s, str)]
    offset = known.get("offset")
    same_file = state is not None and known.get("path") == transcript_path
    start = offset if same_file and isinstance(offset, int) and offset >= 0 else 0
    scanned = _scan(transcript_path, start)
    if scanned is None:
        return False
    found, end = scanned
    new = [i for i in found if i not in seen]
    if state is None or new or not same_file or end - start > _RESCAN_SAVE_BYTES:
        _save(state_file, transcript_path, end, seen + new)
    return state is not None and bool(new)
