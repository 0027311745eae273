"""The Aider versions this plugin supports: read by ``doctor``, the end-to-end tests and the README."""

from __future__ import annotations

from entire_core.versions import Release, SupportWindow

WINDOW = SupportWindow(
    agent="Aider",
    tested=(
        Release(
            "0.82.3",
            "end to end: a launcher session and a plain session, three turns each (edit, new file, answer); "
            "a chat history fixture",
            "The same notifications, chat history and analytics log as 0.86.2, except Aider's rounding of "
            "estimated tokens. Its commits name the author `<name> (aider)` instead of adding a Co-authored-by "
            "trailer (the default since 0.85); the plugin reads neither.",
        ),
        Release(
            "0.86.2",
            "end to end, the same scenario; chat history, analytics and notification fixtures",
            "The reference: every format as documented.",
        ),
    ),
    upgrade="python -m pip install --upgrade aider-chat=={newest}",
)
"""``--notifications-command``, the plugin's only hook, exists since 0.76."""
