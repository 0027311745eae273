"""Sabotage for ``make faults --pythonpath``: ``process.Guard``'s watchdog no longer kills the children of a
call killed mid-run (``generate-text``: the agent's CLI lives on, orphaned)."""

from entire_core import process

assert "os.killpg(group, signal.SIGKILL)" in process._WATCHDOG
process._WATCHDOG = process._WATCHDOG.replace("os.killpg(group, signal.SIGKILL)", "pass")
