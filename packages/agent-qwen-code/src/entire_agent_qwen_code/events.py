"""Qwen Code's hook payloads -> Entire lifecycle events.

Every payload carries ``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name`` and
``timestamp``; inside a subagent also ``agent_id`` (with the parent's session). SessionStart,
UserPromptSubmit, Stop and SessionEnd map one to one; PreCompact is a Compaction; SubagentStart and
SubagentStop bracket a subagent (its ``agent_id`` ends in the ``agent`` call's id).

UserPromptSubmit fires again, with ``prompt: ""``, after each tool result of the same turn: only a
prompt starts a turn. Headless ``qwen -p`` never fires SessionEnd; a background subagent's result
brings a second Stop in the same turn, which ends the turn again with the later work included.
"""

from __future__ import annotations

from entire_core.types import Event, EventType

HOOK_EVENTS = {
    "session-start": EventType.SESSION_START,
    "user-prompt-submit": EventType.TURN_START,
    "stop": EventType.TURN_END,
    "session-end": EventType.SESSION_END,
    "pre-compact": EventType.COMPACTION,
    "subagent-start": EventType.SUBAGENT_START,
    "subagent-stop": EventType.SUBAGENT_END,
}
"""Our hook names and the lifecycle event each one means."""


def parse(hook: str, payload: object) -> Event | None:
    """The event a payload of ``hook`` means, or None (no session id, a repeated empty prompt, a hook we
    do not know)."""
    from entire_core.hookinput import first_text, transcript_ref
    from entire_core.jsonvalues import obj

    p = obj(payload)
    kind = HOOK_EVENTS.get(hook)
    session_id = first_text(p, "session_id")
    if kind is None or not session_id:
        return None
    prompt = first_text(p, "prompt", "user_prompt") if kind == EventType.TURN_START else ""
    if kind == EventType.TURN_START and not prompt:
        return None
    event = Event(
        kind,
        session_id,
        session_ref=transcript_ref(p),
        prompt=prompt,
        model=first_text(p, "model"),
        timestamp=first_text(p, "timestamp"),
    )
    if kind in (EventType.SUBAGENT_START, EventType.SUBAGENT_END):
        agent = first_text(p, "agent_id")
        event.subagent_id = agent
        event.subagent_type = first_text(p, "agent_type")
        prefix = event.subagent_type + "-"
        event.tool_use_id = agent[len(prefix) :] if event.subagent_type and agent.startswith(prefix) else ""
    return event
