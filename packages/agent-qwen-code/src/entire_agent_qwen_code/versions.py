"""The Qwen Code versions this plugin supports: read by ``doctor``, ``install-hooks``, the e2e tests and the README.

Hooks are stable and on by default since 0.14.0 (0.12 had them experimental with two events, 0.13 not
stable); npm has no 0.13.x or 0.14.x, so 0.15.6 is the oldest version that can be tested.
"""

from __future__ import annotations

from entire_core.versions import Release, SupportWindow

WINDOW = SupportWindow(
    agent="Qwen Code",
    tested=(
        Release(
            "0.15.6",
            "end to end: four turns, the later three resuming the session (a read, an edit, a shell delete, "
            "a subagent from a prompt starting with `<`); transcript and hook payload fixtures",
            "The oldest on npm with stable hooks. Hook timeouts are milliseconds. A subagent runs in the "
            "foreground and has no recording of its own: its calls and writes are telemetry records in the "
            "parent's file.",
        ),
        Release(
            "0.23.4",
            "end to end, the same scenario; transcript and hook payload fixtures",
            "Hook `timeout` is read in seconds from here on, except values of 1000 and more, still "
            "milliseconds. Subagents run in the background: the `agent` tool returns at once, the result "
            "comes back as a notification with another model call and a second Stop in the same turn.",
        ),
        Release(
            "0.24.4",
            "end to end, the same scenario; transcript and hook payload fixtures",
            "The reference: as 0.23.4, with an `attribution_snapshot` system record per turn.",
        ),
    ),
    upgrade="npm install -g @qwen-code/qwen-code@{newest}",
)
