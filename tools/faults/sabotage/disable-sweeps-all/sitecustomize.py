"""Sabotage for ``make faults --pythonpath``: an agent's ``uninstall-hooks`` clears the repository's whole
scratch area (``.entire/tmp``), every agent's, not its own: another agent's session in the same
repository loses its state mid-session (case two-agents)."""

import os
import shutil

from entire_core import commands

_uninstall = commands.uninstall_hooks


def uninstall_hooks(agent, flags, stdin):  # type: ignore[no-untyped-def]
    _uninstall(agent, flags, stdin)
    shutil.rmtree(os.path.join(agent.repo_root, ".entire", "tmp"), ignore_errors=True)


commands.uninstall_hooks = uninstall_hooks
