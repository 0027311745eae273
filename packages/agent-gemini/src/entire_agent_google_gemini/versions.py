"""The Gemini CLI versions this plugin supports: read by ``doctor``, the end-to-end tests and the README."""

from __future__ import annotations

from entire_core.versions import Release, SupportWindow

WINDOW = SupportWindow(
    agent="Gemini CLI",
    tested=(
        Release(
            "0.38.2",
            "end to end: two turns with a resume, a subagent, a four-call turn, a compression, restore and "
            "resume; a chat fixture",
            "Chats are one JSON document (`session-*.json`), read by the legacy reader. A subagent is a tool "
            "named after the agent (`generalist`), which the `invoke_agent` hooks do not match: no task "
            "checkpoint. Its chat (`chats/<session>/<random id>.json`) is not named in the main chat; the plugin "
            "finds it by its first prompt, the task, so the turn still gets its files and tokens. A compression "
            "leaves no trace in the chat: no Compaction event. `-o json` is followed by hook log lines on stdout.",
        ),
        Release(
            "0.45.2",
            "end to end, the same scenario; a chat fixture",
            "JSONL chats (since 0.39) and `invoke_agent` with linked subagent chats: the same results as 0.61.0.",
        ),
        Release(
            "0.61.0",
            "end to end, the same scenario; hook payload and chat fixtures",
            "The reference: every hook and format as documented.",
        ),
    ),
    upgrade="npm install -g @google/gemini-cli@{newest}",
)
"""Before 0.26 there is no ``hooksConfig`` and the hook settings have another schema."""
