"""The chat compressions Gemini recorded in a session's file: a real one told apart from Gemini's
PreCompress before every model call.

Gemini 0.61 fires PreCompress (trigger ``auto``) at the start of every compression check, before the
token threshold is even tested, so the hook alone means nothing. A compression that happens restarts
the chat with a ``$set.messages`` checkpoint whose first user message is a ``<state_snapshot>`` under a
new id. The hook runs before the compression it announces, so that evidence is seen at the next
PreCompress. Scratch state per session (core's ``Scratch``, kind ``compaction``) remembers which
snapshots were reported and how far the chat file was scanned: each compression is reported once, and
a check reads only the new bytes.
"""

from __future__ import annotations

import os

from entire_agent_google_gemini.transcript import SNAPSHOT_TAG

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.scratch import Scratch

STATE = "compaction"
"""The kind of this module's scratch state, keyed by session id (its name on disk, kept from before the
module was named for what it holds)."""

_RESCAN_SAVE_BYTES = 1 << 20
"""Save the scan position after this many quiet bytes, so later checks stay O(new bytes)."""


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


def compressed_since_last_check(scratch: Scratch, session_id: str, transcript_path: str) -> bool:
    """True once for every chat compression recorded since the previous check of this session.

    The first check of a session only sets the baseline: compressions before it are not news (a
    session's first PreCompress comes before any compression; a resumed one's are old).
    """
    known = scratch.load(STATE, session_id)
    raw_seen: list[object] = known.get("seen") or []
    seen = [s for s in raw_seen if isinstance(s, str)]
    offset = known.get("offset")
    same_file = bool(known) and known.get("path") == transcript_path
    start = offset if same_file and isinstance(offset, int) and offset >= 0 else 0
    scanned = _scan(transcript_path, start)
    if scanned is None:
        return False
    found, end = scanned
    new = [i for i in found if i not in seen]
    if not known or new or not same_file or end - start > _RESCAN_SAVE_BYTES:
        scratch.save(STATE, session_id, {"path": transcript_path, "offset": end, "seen": seen + new})
    return bool(known) and bool(new)
