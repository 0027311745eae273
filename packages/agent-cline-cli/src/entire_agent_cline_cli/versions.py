"""The Cline CLI versions this plugin supports: read by ``doctor``, ``install-hooks`` and the README.

Both were run offline against the scripted server (``tests/e2e``), their payloads and session files
captured in ``tests/data/v<version>``: the same hook runner, payloads and session layout.
"""

from __future__ import annotations

from entire_core.versions import Release, SupportWindow

BINARY = "cline"
WINDOW = SupportWindow(
    agent="Cline CLI",
    tested=(
        Release(
            "3.0.64",
            "hook files in `.cline/hooks`, run detached but for the tool hooks; messages in `<id>.messages.json`",
            "none known",
        ),
        Release("3.0.65", "as 3.0.64 (`@cline/*` 0.0.86)", "none known"),
    ),
    upgrade="npm install -g cline@{newest}",
)
"""Oldest first: install-hooks refuses anything older than the oldest; ``upgrade`` installs the newest."""
