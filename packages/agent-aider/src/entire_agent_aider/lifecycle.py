"""Lifecycle events recovered from the chat-history file, one event per ``parse-hook`` call.

Aider tells nobody when a session or a turn starts or ends. Every trigger (the notification command,
the launcher's start, tail and exit calls) runs ``parse-hook``, which reads the history file from
where it last stopped and appends the events that the new lines imply to a queue kept in the state:

- a session header starts a session (SessionStart) and ends the one before (TurnEnd, SessionEnd);
- an input block for the model starts a turn (TurnStart, with the prompt);
- a turn ends (TurnEnd) when a later input block, a new header or the process exit shows it is over,
  or at a notification when the turn has no edits still waiting to be applied: Aider also rings at a
  mid-turn confirm ("Create new file?"), before the edits of the reply are applied and committed.

``parse-hook`` then answers the oldest queued event, which leaves the queue only once that answer is
on stdout (``entire_core.eventqueue``: a call killed before then leaves it to the next call); the
caller (``notify``) calls again while the queue is not empty. Before answering, the event's session transcript (``session_ref``, the view of
that session's slice of the history file, ``entire_agent_aider.view``) is brought to where the event
stands, and no further, so that the CLI's positions and file lists see exactly the turn: TurnStart
at the end of the previous turn, TurnEnd at the end of this one.
"""

from __future__ import annotations

import os

from entire_core.types import EventType

from entire_agent_aider import transcript
from entire_agent_aider.markdown import HEADER_PREFIX

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_agent_aider.parser import History, Session

CATCH_UP_LIMIT = 8 * 1024 * 1024
"""Beyond this much unread history, skip to the last session instead of replaying everything."""
RECENT_ENDED = 32

HOOK_OF_TYPE = {
    EventType.SESSION_START: "session-start",
    EventType.TURN_START: "turn-start",
    EventType.TURN_END: "turn-end",
    EventType.SESSION_END: "session-end",
}


class Trigger:
    """What made this ``parse-hook`` call: a notification, the launcher's tail, start or exit."""

    __slots__ = ("claim_start", "exited", "launcher", "notification", "session", "time", "turn_over")

    def __init__(
        self,
        *,
        time: str,
        notification: bool = False,
        session: str = "",
        claim_start: int | None = None,
        exited: bool = False,
        turn_over: bool = False,
        launcher: bool = False,
    ) -> None:
        self.time = time
        self.notification = notification
        self.session = session
        """The launcher's session id (``ENTIRE_AIDER_SESSION``), or ""."""
        self.claim_start = claim_start
        """At the launcher's start: the history file's size before Aider runs."""
        self.exited = exited
        """At the launcher's end: the Aider process of ``session`` has exited."""
        self.turn_over = turn_over
        self.launcher = launcher
        """From the launcher (or its Aider): sessions it did not start are read past, never reported."""
        """From inside the launcher's Aider: it asks for the next input, so the open turn is over."""


def stable_session_id(history: str, header: str, ordinal: int) -> str:
    """The id of a session found in the history: its file, its header time and its rank among equal headers."""
    from entire_core._digest import sha256_hex

    key = f"{os.path.realpath(history)}\0{header}\0{ordinal}".encode("utf-8", "surrogateescape")
    stamp = header.replace("-", "").replace(":", "").replace(" ", "-")
    return f"aider-{stamp}-{sha256_hex(key)[:10]}"


class Machine:
    """The state machine over one history file's state dict (``state.load`` format)."""

    def __init__(self, history: str, state: dict[str, Any], trigger: Trigger) -> None:
        self.history = history
        self.st = state
        self.trigger = trigger
        self.queue: list[dict[str, Any]] = state.setdefault("queue", [])
        self.claims: list[dict[str, Any]] = state.setdefault("claims", [])
        self.ended: list[str] = state.setdefault("ended", [])

    # -- queue ------------------------------------------------------------------------------------------

    def _emit(self, type: int, cur: dict[str, Any], upto: int, prompt: str = "") -> None:
        if cur.get("quiet"):
            return  # a plain Aider's session, found by the launcher: its turns reached no one in time
        self.queue.append(
            {
                "type": type,
                "session": cur["id"],
                "start": cur["start"],
                "upto": upto,
                "prompt": prompt,
                "model": cur.get("model") or "",
                "time": self.trigger.time,
            }
        )

    def take(self, delivery: str = "") -> dict[str, Any] | None:
        """The oldest undelivered event, marked as this call's to answer (``entire_core.eventqueue``), or as
        ``delivery``'s, the deliverer that acknowledges it once the host has it (``notify.deliver``).

        It stays queued until the answer is out; ``eventqueue.Busy`` while another call answers it.
        """
        from entire_core.eventqueue import EventQueue

        item = EventQueue(self.queue).take(delivery)
        if item is not None:
            self.st["delivered"] = int(self.st.get("delivered", 0)) + 1
        return item

    # -- sessions and turns -----------------------------------------------------------------------------

    def _settle(self, cur: dict[str, Any], end: int) -> None:
        """The open turn is over at ``end``: TurnEnd if it started and has not ended."""
        turn = cur.get("open")
        if turn is None:
            return
        if turn.get("started") and not turn.get("ended"):
            self._emit(EventType.TURN_END, cur, end)
            cur["last_end"] = end
        cur["open"] = None
        cur["done"] = max(int(cur.get("done", 0)), end)

    def _finish(self, cur: dict[str, Any], end: int) -> None:
        self._settle(cur, end)
        self._emit(EventType.SESSION_END, cur, max(end, int(cur.get("last_end", cur["start"]))))
        self.ended.append(cur["id"])
        del self.ended[:-RECENT_ENDED]
        self.st["current"] = None

    def _begin(self, session: Session, start: int) -> dict[str, Any]:
        claim = next((c for c in self.claims if not c.get("bound") and c["start"] <= start), None)
        if claim is not None:
            claim["bound"] = True
            cur: dict[str, Any] = {"id": claim["session"], "start": claim["start"], "started": True}
        else:
            ordinal = self._ordinal(session.header or "", start)
            cur = {"id": stable_session_id(self.history, session.header or "", ordinal), "start": start}
            if self.trigger.launcher:
                # Plain Aider ran here (its notification reports nothing): its commits are made, and
                # its turns told now would land on the launched session's commits.
                cur["quiet"] = True
        cur.update({"header": session.header, "model": session.model or "", "open": None, "done": start})
        cur["last_end"] = cur["start"]
        if not cur.get("started"):
            cur["started"] = True
            self._emit(EventType.SESSION_START, cur, cur["start"])
        self.st["current"] = cur
        return cur

    def _ordinal(self, header: str, start: int) -> int:
        """How many sessions just before this one share its header time (runs started in one second)."""
        needle = ("\n" + HEADER_PREFIX + header + "\n").encode()
        ordinal = 0
        with open(self.history, "rb") as f:
            position = start
            while position > 0:
                lower = max(0, position - 65536)
                f.seek(lower)
                window = f.read(position - lower)
                previous = window.rfind(b"\n" + HEADER_PREFIX.encode())
                if previous < 0 or not window.startswith(needle, previous):
                    break
                ordinal += 1
                position = lower + previous
        return ordinal

    # -- the scan -------------------------------------------------------------------------------------

    def add_claim(self, session: str, start: int) -> bool:
        """The launcher starts Aider as ``session``; its header will appear at or after ``start``.

        Returns False when the claim is already known (a repeated call).
        """
        if any(c["session"] == session for c in self.claims) or session in self.ended:
            return False
        self.claims.append({"session": session, "start": start, "bound": False})
        del self.claims[:-8]
        return True

    def claim_started(self, session: str, start: int) -> None:
        """Queue the SessionStart of a new launcher claim (after older pending events)."""
        self._emit(EventType.SESSION_START, {"id": session, "start": start}, start)

    def scan(self) -> None:
        """Read the history from the anchor and queue every event the new lines imply."""
        try:
            info = os.stat(self.history)
        except FileNotFoundError:
            info = None
        size = info.st_size if info is not None else 0
        identity = [info.st_dev, info.st_ino] if info is not None else None
        anchor = self.st.get("anchor")
        if anchor is not None and (
            identity != self.st.get("identity") or size < int(self.st.get("scanned", 0))
        ):
            self._reset()  # the file was replaced or truncated
            anchor = None
        self.st["identity"] = identity
        if info is None:
            if self.trigger.exited:
                self._exited(0)
            return
        if anchor is None or size - int(anchor) > CATCH_UP_LIMIT:
            cur = self.st.get("current")
            last = self._first_anchor(size)
            if cur is not None and anchor is not None and last <= int(cur["start"]):
                pass  # one huge write (a 20 MB tool output) in the current session: read on
            else:
                if cur is not None and anchor is not None:
                    self._finish(cur, int(self.st.get("scanned", cur["start"])))
                anchor = last
        with open(self.history, "rb") as f:
            # Block by block, long lines cut: one huge write (a 20 MB tool output) costs no memory.
            history, end = transcript.parse_range(f, anchor, size)
        self._apply(history, anchor, anchor + end)
        self.st["scanned"] = anchor + end

    def _reset(self) -> None:
        cur = self.st.get("current")
        if cur is not None:
            self._finish(cur, int(cur.get("last_end", cur["start"])))
        self.st["anchor"] = None
        self.st["scanned"] = 0

    def _first_anchor(self, size: int) -> int:
        """Where to start reading a history file never read before: an unbound launcher claim, else the
        last session (older sessions happened before Entire was watching)."""
        claim = next((c for c in self.claims if not c.get("bound")), None)
        if claim is not None and claim["start"] <= size:
            return int(claim["start"])
        marker = b"\n" + HEADER_PREFIX.encode()
        with open(self.history, "rb") as f:
            position = size
            while position > 0:
                lower = max(0, position - 65536)
                f.seek(lower)
                # Overlap the next window by a marker's length so a marker cut in two is still found.
                window = f.read(min(size, position + len(marker)) - lower)
                found = window.rfind(marker)
                if found >= 0:
                    return lower + found  # the blank line before the header
                position = lower
        return 0

    def _apply(self, history: History, anchor: int, end: int) -> None:
        cur: dict[str, Any] | None = self.st.get("current")
        sessions = history.sessions
        for index, session in enumerate(sessions):
            start = anchor + session.start
            if session.header is not None and (cur is None or start != cur["start"]):
                if cur is not None and start > int(cur["start"]):
                    self._finish(cur, start)
                cur = self._begin(session, start)
            if cur is None:
                continue  # lines before any header: not a session we can name
            if session.model:
                cur["model"] = session.model
            for turn in session.turns:
                offset = anchor + turn.offset
                if offset < int(cur.get("done", 0)):
                    continue
                open_turn = cur.get("open")
                if open_turn is not None and open_turn["offset"] != offset:
                    self._settle(cur, offset)
                    open_turn = None
                if not turn.is_llm:
                    cur["done"] = offset
                    continue
                if open_turn is None:
                    open_turn = {"offset": offset, "started": False, "ended": False}
                    cur["open"] = open_turn
                if not open_turn["started"]:
                    open_turn["started"] = True
                    self._emit(EventType.TURN_START, cur, int(cur.get("last_end", cur["start"])), turn.prompt)
            if index == len(sessions) - 1:
                self._at_end(cur, session, end)
        self.st["current"] = cur
        open_turn = cur.get("open") if cur is not None else None
        self.st["anchor"] = int(open_turn["offset"]) if open_turn is not None else end
        if self.trigger.exited:
            self._exited(end)

    def _at_end(self, cur: dict[str, Any], session: Session, end: int) -> None:
        """End the open turn of the last session: Aider asks for the next input (``turn_over``), or, at a
        notification, unless edits are still pending."""
        open_turn = cur.get("open")
        if open_turn is None or open_turn.get("ended"):
            return
        if not (self.trigger.notification or self.trigger.turn_over):
            return
        last = session.turns[-1] if session.turns else None
        if last is not None and last.is_llm and (self.trigger.turn_over or not last.pending_edits):
            self._emit(EventType.TURN_END, cur, end)
            cur["last_end"] = end
            open_turn["ended"] = True

    def _exited(self, end: int) -> None:
        """The launcher's Aider process has exited: its open turn and its session are over."""
        session = self.trigger.session
        if not session or session in self.ended:
            return
        cur = self.st.get("current")
        if cur is not None and cur["id"] == session:
            self._finish(cur, end)
            self.st["anchor"] = end
            return
        claim = next((c for c in self.claims if c["session"] == session), None)
        if claim is None:
            return
        claim["bound"] = True  # Aider exited before writing its header
        self._emit(EventType.SESSION_END, {"id": session, "start": claim["start"]}, claim["start"])
        self.ended.append(session)
        del self.ended[:-RECENT_ENDED]
