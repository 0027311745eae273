"""Sabotage for ``make faults --pythonpath``: an agent's ``uninstall-hooks`` clears what every agent keeps,
not its own: the repository's whole scratch area (``.entire/tmp``) and every agent's install records
(``$XDG_DATA_HOME/entire-agent-*``). Another agent's session in the same repository loses its state
mid-session, and its own uninstall no longer knows what it installed (case two-agents)."""

import glob
import os
import shutil

from entire_core import commands
from entire_core.paths import xdg_home

_uninstall = commands.uninstall_hooks


def uninstall_hooks(agent, flags, stdin):  # type: ignore[no-untyped-def]
    _uninstall(agent, flags, stdin)
    shutil.rmtree(os.path.join(agent.repo_root, ".entire", "tmp"), ignore_errors=True)
    for records in glob.glob(
        os.path.join(xdg_home(agent.env, "XDG_DATA_HOME", ".local", "share"), "entire-agent-*")
    ):
        shutil.rmtree(records, ignore_errors=True)


commands.uninstall_hooks = uninstall_hooks
