"""Handlers of the protocol subcommands, imported one module at a time by ``entire_core.cli``.

Each handler takes ``(agent, flags, stdin)`` and returns raw bytes (written exactly), a dict (written
as one JSON value and a newline) or None (nothing on stdout).
"""
