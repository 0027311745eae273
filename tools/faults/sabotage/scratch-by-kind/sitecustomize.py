"""Sabotage for ``make faults --pythonpath``: an agent's scratch state is one file per kind, not per
session or file (``Scratch.file`` forgets its key): two sessions in one repository overwrite each other's
(case sessions-one-repo)."""

from entire_core import scratch

scratch.Scratch.file = lambda self, kind, key: self.path(f"{kind}.json")  # type: ignore[method-assign]
