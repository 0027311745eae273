"""Sabotage for ``make faults --pythonpath``: atomic_write leaves its temporary file behind when a write fails
(a full disk), as a writer that does not clean up after an error does (case full-disk)."""

from entire_core import fsutil

fsutil._discard = lambda tmp: None
