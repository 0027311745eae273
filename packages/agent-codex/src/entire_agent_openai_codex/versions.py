"""The Codex CLI versions this plugin supports: read by ``doctor``, the end-to-end tests and the README."""

from __future__ import annotations

from entire_core.versions import Release, SupportWindow

WINDOW = SupportWindow(
    agent="Codex CLI",
    tested=(
        Release(
            "0.130.0",
            "end to end: two turns with a resume and a compaction, a subagent, trust, restore; a rollout fixture",
            "No SessionEnd and no SubagentStart/SubagentStop hooks. A subagent's thread fires SessionStart, "
            "UserPromptSubmit and Stop as a session of its own, without `agent_id`: the plugin reads the "
            "rollout's `session_meta` (`source.subagent`) and ignores them; the child's files and tokens count "
            "in the parent's turn. The multi-agent tools have no namespace.",
        ),
        Release(
            "0.139.0",
            "end to end, the same scenario; a rollout fixture",
            "SubagentStart/SubagentStop fire (task checkpoints); still no SessionEnd hook. Rollouts record "
            "prompts as `event_msg` `user_message` too (until 0.148); the plugin reads the `response_item` "
            "messages, which every version writes.",
        ),
        Release(
            "0.171.0",
            "end to end, the same scenario; hook payload and rollout fixtures",
            "Every hook fires, SessionEnd included. Rollouts add `item_completed`, `token_usage_record` and "
            "`world_state` lines and no longer write `user_message`.",
        ),
    ),
    upgrade="npm install -g @openai/codex@{newest}",
)
"""Below 0.130 Codex has no per-hook trust and no ``hooks`` feature name (before 0.116, no hooks at all)."""

SUBAGENT_HOOKS = (0, 139, 0)
"""The first version that fires SubagentStart and SubagentStop."""
