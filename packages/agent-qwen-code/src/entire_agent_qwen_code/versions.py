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
            "end to end: four turns with a resume each (a read, an edit, a shell delete, a subagent, a prompt "
            "starting with `<`)",
            "The oldest on npm with stable hooks. Hook timeouts are milliseconds; the plugin writes values of "
            "at least 1000, which every version reads as milliseconds.",
        ),
        Release(
            "0.23.4",
            "end to end, the same scenario",
            "Hook `timeout` is read in seconds from here on, except values of 1000 and more, still milliseconds.",
        ),
        Release(
            "0.24.4",
            "end to end, the same scenario; transcript and hook payload fixtures",
            "Subagents run in the background by default: the `agent` tool returns at once, the result comes "
            "back as a notification with a second model call and a second Stop in the same turn.",
        ),
    ),
    upgrade="npm install -g @qwen-code/qwen-code@{newest}",
)
