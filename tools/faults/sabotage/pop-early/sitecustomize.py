"""Sabotage for ``make faults --pythonpath``: an event leaves its queue as it is taken, before its answer is out
(what Aider's parse-hook did before issue 37)."""

from entire_core import eventqueue


def take(self: eventqueue.EventQueue, delivery: str = "") -> dict | None:
    return self.events.pop(0) if self.events else None


eventqueue.EventQueue.take = take
