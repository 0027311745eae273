"""Where Qwen Code keeps its files: the project config our hooks go into.

AGENT AUTHOR: put every location the agent uses here (its home directory, where it writes its
transcripts, its user-level config), so that the other modules never spell a path themselves.
"""

from __future__ import annotations

import os

CONFIG_FILE = os.path.join(".qwen", "settings.json")
"""The project's config file, relative to the repository root, that holds Qwen Code's hooks."""


def config_file(repo_root: str) -> str:
    """The project config file of the repository at ``repo_root``."""
    return os.path.join(repo_root, CONFIG_FILE)
