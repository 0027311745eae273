"""Reading a session's chat file so that what Entire stores is complete, whatever Gemini did to it.

Three things go wrong with the file a hook names:

- After a resume across a minute boundary, start-up first writes a stray
  ``session-<new minute>-<id8>.jsonl`` (a header and a context checkpoint, no conversation) and only
  then switches to the real file. The SessionStart payload names the stray file.
- Gemini's start-up clean-up deletes non-resumable sessions *and every file sharing their 8-character
  id*, which after the stray file above is the resumed session itself; retention deletes old ones.
- A running Gemini appends with ``appendFileSync``, so after such a deletion it recreates the file
  holding only the lines written since, without a header.

So every read prefers a file that has a header and conversation; falls back to a sibling file of the
same session that has both; and otherwise to the copy ``prepare-transcript`` kept at the last turn end,
joined with whatever was appended since. ``prepare`` refreshes that copy and puts a lost file back.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.offsets import LinePositions
    from entire_core.scratch import Scratch


def copy_path(scratch: Scratch, path: str) -> str:
    """Where ``prepare`` keeps the copy of the chat file ``path``, in the agent's scratch directory."""
    return os.path.join(scratch.path("transcripts"), os.path.basename(path))


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def header_session(data: bytes) -> str | None:
    """The ``sessionId`` of the metadata header a JSONL chat file starts with, else None."""
    first = data.removeprefix(b"\xef\xbb\xbf").split(b"\n", 1)[0]
    if not first.startswith(b'{"sessionId":'):
        return None
    from entire_core import _json

    try:
        header = _json.loads(first)
    except ValueError:
        return None
    from entire_core.jsonvalues import obj

    session_id = obj(header).get("sessionId")
    return session_id if isinstance(session_id, str) and "projectHash" in obj(header) else None


def has_conversation(data: bytes) -> bool:
    """True if the file records at least one message (Gemini writes message records id first)."""
    return b'\n{"id":' in data or data.startswith(b'{"id":')


def _is_legacy(data: bytes) -> bool:
    from entire_agent_google_gemini import transcript

    return transcript.parse(data).kind == transcript.LEGACY


def _complete(data: bytes) -> bytes:
    return data[: data.rfind(b"\n") + 1]


def _healthy(data: bytes) -> bool:
    return (header_session(data) is not None and has_conversation(data)) or _is_legacy(data)


def _sibling(path: str, session_id: str | None) -> bytes | None:
    """A healthy chat file of the same session next to ``path`` (the real one behind a stray file)."""
    from entire_agent_google_gemini import paths

    name = os.path.basename(path)
    if not name.startswith(paths.SESSION_PREFIX):
        return None
    stem = name.rsplit(".", 1)[0]
    wanted = session_id or stem.rsplit("-", 1)[-1]
    for candidate in session_candidates(os.path.dirname(path), wanted):
        if os.path.normcase(candidate) == os.path.normcase(path):
            continue
        data = _read(candidate)
        if data is None or not _healthy(data):
            continue
        found = header_session(data)
        if found is None or found == wanted or (session_id is None and found.startswith(wanted)):
            return data
    return None


def stitch(kept: bytes, current: bytes) -> bytes:
    """``kept`` followed by the lines of ``current`` it does not already end with."""
    first = current[: current.find(b"\n") + 1]
    if first:
        at = kept.find(first)
        while at > 0 and kept[at - 1 : at] != b"\n":
            at = kept.find(first, at + 1)
        if at >= 0:
            return kept[:at] + current
    return kept + current


def read(path: str, scratch: Scratch | None) -> bytes | None:
    """The most complete bytes of the chat ``path`` names, or None when nothing of it is left.

    Without ``scratch`` there is no kept copy to fall back to.
    """
    data = _read(path)
    if data is not None and (_healthy(data) or not data.strip()):
        return data
    session_id = header_session(data) if data is not None else None
    sibling = _sibling(path, session_id)
    if sibling is not None:
        return sibling
    kept = _read(copy_path(scratch, path)) if scratch is not None else None
    if kept is None:
        return data
    return kept if data is None else stitch(kept, data)


HEAD_BYTES = 1 << 16
"""Enough of a chat file to see its header and its first message."""


def _head(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read(HEAD_BYTES)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _positions(scratch: Scratch) -> LinePositions:
    from entire_core import offsets

    return offsets.LinePositions(scratch.path("positions.json"))


def _plainly_healthy(path: str) -> bool:
    """The file starts with a session header and a message: ``read`` would return it unchanged."""
    head = _head(path)
    return head is not None and header_session(head) is not None and has_conversation(head)


def quick_position(path: str, *, trusted: bool = False) -> int | None:
    """The line count of a healthy chat file, counted without parsing.

    None when the file needs ``read``'s repairs (stray, recreated or legacy): the caller parses then.
    A ``trusted`` file (a view, always a healthy chat) is counted as it is. Only reads: a reading
    subcommand changes no file (issue 37), so nothing is remembered here.
    """
    if not (trusted or _plainly_healthy(path)):
        return None
    from entire_core import offsets

    return offsets.count_lines(path)[0]


def tail_lines(path: str, scratch: Scratch, offset: int, *, trusted: bool = False) -> list[bytes] | None:
    """The complete lines after line ``offset``, without parsing what comes before it.

    A TurnEnd reads only the turn's bytes: where line ``offset`` ends is counted from the nearest mark
    ``prepare`` left at an earlier turn's end (``LinePositions.line_end``), or from the start at memory
    speed. Only reads. None when the file has fewer lines or needs ``read``'s repairs.
    """
    if offset <= 0 or not (trusted or _plainly_healthy(path)):
        return None
    byte = _positions(scratch).line_end(path, offset)
    if byte is None:
        return None
    try:
        with open(path, "rb") as f:
            f.seek(byte)
            tail = f.read()
    except OSError:
        return None
    end = tail.rfind(b"\n") + 1
    return tail[:end].split(b"\n")[:-1] if end else []


def prepare(path: str, scratch: Scratch) -> None:
    """Keep a copy of the chat file and put it back if Gemini deleted or truncated it.

    The Entire CLI requires the file to exist after this; the copy is what a later read falls back to.
    """
    from entire_core import fsutil

    best = read(path, scratch)
    if best is None:
        from entire_core.errors import AgentError

        raise AgentError(f"transcript {path} does not exist and no copy of it was kept")
    if not _healthy(best):
        return  # not a Gemini chat file we can vouch for; leave it alone
    current = _read(path)
    written = current is None or (header_session(current) is None and not _is_legacy(current))
    if written:
        fsutil.atomic_write(path, best)
    copy = copy_path(scratch, path)
    legacy = _is_legacy(best)
    complete = _complete(best) if not legacy else best
    if _read(copy) != complete:
        fsutil.atomic_write(copy, complete)
    if not legacy and (written or current == best):
        # Where this turn's end falls, for the next turn's reads to count from (``tail_lines``).
        _positions(scratch).remember(path, complete.count(b"\n"), len(complete))


def session_candidates(chats: str, session_id: str) -> list[str]:
    """Chat files in ``chats`` whose name could hold ``session_id``: ``.jsonl`` first, newest first."""
    from entire_agent_google_gemini import paths

    try:
        names = os.listdir(chats)
    except OSError:
        return []
    tails = (
        f"-{paths.short_id(session_id)}.jsonl",
        f"-{paths.short_id(session_id)}.json",
        f"-{session_id}.jsonl",
    )
    found = [
        os.path.join(chats, n) for n in names if n.startswith(paths.SESSION_PREFIX) and n.endswith(tails)
    ]

    def order(path: str) -> tuple[bool, float]:
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            mtime = 0.0
        return (path.endswith(".jsonl"), mtime)

    return sorted(found, key=order, reverse=True)
