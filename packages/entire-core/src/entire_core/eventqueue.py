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

That leaves one kill: after the answer is wholly written and its removal saved, as the process exits.
The host throws a killed call's answer away, so the event is lost. Only whoever reads the host's own
outcome can close that: a *deliverer* of ours, which runs ``entire hooks <agent> <hook>`` itself and
reads its exit status (Aider's ``notify`` and launcher). It names itself to the calls it causes in
``DELIVERY_ENV`` (its ``liveness`` token; the host hands its environment on to the plugin), and then:

- ``take(delivery=...)`` marks the event as that deliverer's, and the call leaves it queued when its
  answer is out (no ``confirm_when_answered``);
- the deliverer removes it once ``entire hooks`` exited 0, the host having dispatched it
  (``acknowledge``), or clears the mark when it failed (``release``), so that the next call answers
  it again: the host may hear an event twice (it failed after the event was dispatched, or the
  deliverer was killed before its acknowledgement was saved), never not at all. An event released
  ``MAX_TRIES`` times leaves the queue all the same, so that one the host refuses every time does not
  hold back every later one; each of those failures was the host's, shown where the hook ran.

Events are JSON objects; the queue is a list inside the caller's state, whose lock and writes are the
caller's. The marks are more keys in the event (``MARK``, ``TRIES``), which readers of the queue ignore.

The deliverer's side is one for every agent: an agent keeps its queue at ``KEY`` of a state file of its
scratch area (``entire_core.scratch.Scratch.file``), locked by ``<file>.lock``, and lists core's
``delivered`` command (``entire_core.agent.DELIVERED``), which a deliverer runs after each ``entire
hooks`` call it made; ``settle`` finds the event that call took by the deliverer's token alone, in
whichever state file holds it. Aider's launcher and Cline's hook scripts (``entire_core.hooks.
delivering_script``) are such deliverers.
"""

from __future__ import annotations

import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, TypeVar

    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags
    from entire_core.scratch import Scratch

    T = TypeVar("T")

MARK = "answering"
"""The key of an event being answered: the token of the process answering it, or of its deliverer."""
TRIES = "tries"
"""The key of the number of times a deliverer released an event its ``entire hooks`` call failed on."""
MAX_TRIES = 3
"""Deliveries an event gets before it leaves the queue without the host's acknowledgement."""
DELIVERY_ENV = "ENTIRE_EVENT_DELIVERY"
"""Set by a deliverer of ours for the ``entire hooks`` call it runs: its ``liveness`` token."""
KEY = "queue"
"""Where an agent's state holds its queue: ``settle`` looks there."""
POLL_SECONDS = 0.01


def delivery(env: Mapping[str, str]) -> str:
    """The deliverer named in ``env`` (``DELIVERY_ENV``), when it is a token of a process that runs; else ``""``."""
    from entire_core import liveness

    token = env.get(DELIVERY_ENV, "")
    if not is_token(token) or liveness.gone(token):
        return ""
    return token


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

    def take(self, delivery: str = "") -> dict[str, Any] | None:
        """The oldest event, marked as being answered by this process, or for ``delivery`` (a deliverer's
        token, ``DELIVERY_ENV``); None when there is none.

        An event this process marked before (an earlier call in the same process, as tests make them)
        was answered: it leaves now. One marked for ``delivery`` before was neither acknowledged nor
        released by it (its acknowledgement failed): it is answered again. One marked by a process that
        has ended is answered again. Raises ``Busy`` when a process that still runs is answering the oldest.
        """
        from entire_core import liveness

        mine = delivery or liveness.token()
        while self.events:
            oldest = self.events[0]
            owner = oldest.get(MARK)
            if isinstance(owner, str) and owner:
                if owner == mine:
                    if delivery:
                        return oldest
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

    def acknowledge(self, delivery: str) -> bool:
        """The host has the event taken for ``delivery`` (its ``entire hooks`` call exited 0): it leaves.
        False when none is marked so."""
        for index, event in enumerate(self.events):
            if event.get(MARK) == delivery:
                del self.events[index]
                return True
        return False

    def release(self, delivery: str) -> bool:
        """The ``entire hooks`` call of ``delivery`` failed: its event is answered again by the next call,
        or leaves after ``MAX_TRIES`` deliveries. False when none is marked so."""
        for index, event in enumerate(self.events):
            if event.get(MARK) == delivery:
                tries = event.get(TRIES)
                tries = (tries if isinstance(tries, int) else 0) + 1
                if tries >= MAX_TRIES:
                    del self.events[index]
                else:
                    del event[MARK]
                    event[TRIES] = tries
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


def is_token(value: str) -> bool:
    """Whether ``value`` has a ``liveness`` token's form, ``<pid>.<start>`` (whether or not it runs)."""
    pid, dot, start = value.partition(".")
    return bool(dot and pid.isdigit() and start.isdigit())


def settle(scratch: Scratch, delivery: str, *, delivered: bool) -> int:
    """After the ``entire hooks`` call a deliverer ran as ``delivery`` (``DELIVERY_ENV``): the event that
    call took leaves its queue when the call exited 0 (``delivered``: the host dispatched it), and is
    answered again by the next call when it failed (``EventQueue.acknowledge``, ``release``).

    The event is found by its mark in the state files of ``scratch`` (each under its lock), so the
    deliverer needs to know nothing but its token. Returns how many events were settled: 0 when the
    call took none (Entire not enabled here, or the call failed before the plugin answered).
    """
    from entire_core import _json, fsutil, locks
    from entire_core.jsonvalues import obj

    needle = delivery.encode("utf-8")
    settled = 0
    for path in scratch.states():
        try:
            with open(path, "rb") as f:
                if needle not in f.read():
                    continue
        except OSError:
            continue
        with locks.exclusive(path + ".lock"):
            try:
                with open(path, "rb") as f:
                    state = obj(_json.loads(f.read()))
            except (OSError, ValueError):
                continue
            queue = EventQueue(events_of(state, KEY))
            if queue.acknowledge(delivery) if delivered else queue.release(delivery):
                fsutil.atomic_write(path, _json.dumps_state(state).encode("utf-8"))
                settled += 1
    return settled


def delivered(agent: Agent, flags: Flags) -> int:
    """Core's ``delivered --delivery TOKEN --status N`` command (``entire_core.agent.DELIVERED``), which a
    deliverer runs after each ``entire hooks`` call it made as ``TOKEN``: ``settle`` the event that call
    took by its exit status ``N``."""
    token = flags.str_("delivery")
    if not is_token(token) or "status" not in flags.given:
        from entire_core.errors import UsageError

        why = f"--delivery {token!r} is not a process token (<pid>.<start>)"
        raise UsageError("--status is required" if is_token(token) else why, "see `delivered --help`")
    settle(agent.scratch(), token, delivered=flags.int_("status") == 0)
    return 0
