"""Sabotage for ``make faults --pythonpath``: ``process.Guard``'s watchdog no longer removes the scratch
directory of a call killed mid-run (``generate-text``: the checkpoint's transcript stays in TMPDIR)."""

from entire_core import process

assert "shutil.rmtree(path, ignore_errors=True)" in process._WATCHDOG
process._WATCHDOG = process._WATCHDOG.replace("shutil.rmtree(path, ignore_errors=True)", "pass")
