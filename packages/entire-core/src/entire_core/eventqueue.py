"""An ordered queue of events in an agent's state file, from which no event is ever lost.

Some agents learn several events at once while the Entire CLI takes one per ``parse-hook`` call (Aider
finds a session's start, a turn's start and its end in one read of its chat history). Those events
wait in a queue kept in the agent's state file, and each call answers the oldest. But each call is a
process the host may kill at any instruction, and an event taken off the queue before its answer is
on stdout is lost with it: no checkpoint for that turn, ever. So an event leaves in two steps:

- ``EventQueue.take`` marks the oldest event as this process's (``liveness.token``) and the caller
  saves its state: the event stays queued while it is answered;
- ``confirm_when_answered`` removes it, under the state's lock, once the answer is wholly on stdout
  (``cli_stdio.when_answered``).

A process killed in between leaves its event marked by a process that no longer runs, and the next
``take`` answers it again, first, as it was: the host may hear an event twice (a kill after the answer,
before its removal was saved), never not at all, and never out of order. While the oldest event is
being answered by a process that still runs, ``take`` raises ``Busy``: the caller lets go of its lock
and asks again (``take_in_order`` does), so that a later event never overtakes it.

Events are JSON objects; the queue is a list inside the caller's state, whose lock and writes are the
caller's. The mark is one more key in the event (``MARK``), which readers of the queue ignore.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")

MARK = "answering"
"""The key of an event being answered: the token of the process answering it."""
POLL_SECONDS = 0.01


class Busy(Exception):
    """The oldest event is being answered by another process, which still runs."""


class EventQueue:
    """The events of a list in the caller's state, oldest first."""

    __slots__ = ("events",)

    def __init__(self, events: list[dict[str, Any]]) -> None:
        self.events = events

    def __len__(self) -> int:
        return len(self.events)

    def put(self, event: dict[str, Any]) -> None:
        """Queue ``event`` after every other."""
        self.events.append(event)

    def take(self) -> dict[str, Any] | None:
        """The oldest event, marked as being answered by this process; None when there is none.

        An event this process marked before (an earlier call in the same process, as tests make them)
        was answered: it leaves now. One marked by a process that has ended is answered again. Raises
        ``Busy`` when a process that still runs is answering the oldest.
        """
        from entire_core import liveness

        mine = liveness.token()
        while self.events:
            oldest = self.events[0]
            owner = oldest.get(MARK)
            if isinstance(owner, str) and owner:
                if owner == mine:
                    del self.events[0]
                    continue
                if not liveness.gone(owner):
                    raise Busy(f"another process ({owner.partition('.')[0]}) is answering the oldest event")
            oldest[MARK] = mine
            return oldest
        return None

    def done(self) -> bool:
        """Remove the event this process took, now that its answer is out; False when it is not queued."""
        from entire_core import liveness

        mine = liveness.token()
        for index, event in enumerate(self.events):
            if event.get(MARK) == mine:
                del self.events[index]
                return True
        return False


def events_of(state: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The list at ``state[key]``, made where missing or not a list (a damaged or older state)."""
    found = state.get(key)
    if not isinstance(found, list):
        found = state[key] = []
    return found  # pyright: ignore[reportUnknownVariableType]


def take_in_order(attempt: Callable[[], T], wait: float) -> T:
    """``attempt()`` (which takes the state's lock, then an event), again while it raises ``Busy``.

    Gives up after ``wait`` seconds with an ``AgentError``: the call fails, and the event waits for the
    next one, still queued.
    """
    deadline = time.monotonic() + wait
    while True:
        try:
            return attempt()
        except Busy as busy:
            if time.monotonic() > deadline:
                from entire_core.errors import AgentError

                raise AgentError(f"{busy} for more than {wait:.0f}s", "the next hook delivers it") from None
        time.sleep(POLL_SECONDS)


def confirm_when_answered(
    lock: str, load: Callable[[], dict[str, Any]], save: Callable[[dict[str, Any]], object], key: str
) -> None:
    """Once the answer is out, remove this process's event from the queue at ``key`` of the state that
    ``load`` reads, under ``lock``, and ``save`` it. A failure leaves the event to be answered again."""
    from entire_core.cli_stdio import when_answered

    def confirm() -> None:  # a failure (a full disk, the lock's timeout) is ignored by when_answered
        from entire_core import locks

        with locks.exclusive(lock):
            state = load()
            if EventQueue(events_of(state, key)).done():
                save(state)

    when_answered(confirm)
