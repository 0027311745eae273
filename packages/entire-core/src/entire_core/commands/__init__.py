"""Handlers of the protocol subcommands, imported one module at a time by ``entire_core.cli``.

Each handler takes ``(agent, flags, stdin)`` and returns raw bytes (written exactly), a dict (written
as one JSON value and a newline) or None (nothing on stdout). A handler's ``agent`` is typed as the
narrowest piece it uses: the capability mixin when that is all (the dispatcher has checked that the
agent declares it), ``Agent`` where it also needs the base class (views, session storage).
"""
