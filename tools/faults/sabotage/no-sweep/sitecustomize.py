"""Sabotage for ``make faults --pythonpath``: atomic_write no longer sweeps what killed writers left."""

from entire_core import fsutil

fsutil.sweep = lambda directory, name="": []
