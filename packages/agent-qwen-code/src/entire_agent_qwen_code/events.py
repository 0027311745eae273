"""Qwen Code's hook payloads -> Entire lifecycle events.

AGENT AUTHOR: map each hook to its event and read the payload's keys as the agent writes them
(``../shared/docs/PROTOCOL.md`` lists what each event needs). Core's ``hookinput`` reads the keys, so
the compliance suite's own payload shape (``session_ref``, ``user_prompt``) works too.
"""

from __future__ import annotations

from entire_core.types import Event, EventType

HOOK_EVENTS = {
    "session-start": EventType.SESSION_START,
    "user-prompt-submit": EventType.TURN_START,
    "stop": EventType.TURN_END,
    "session-end": EventType.SESSION_END,
}
"""Our hook names and the lifecycle event each one means."""


def parse(hook: str, payload: object) -> Event | None:
    """The event a payload of ``hook`` means, or None (no session id, or a hook we do not know)."""
    from entire_core.hookinput import first_text, transcript_ref
    from entire_core.jsonvalues import obj

    p = obj(payload)
    kind = HOOK_EVENTS.get(hook)
    session_id = first_text(p, "session_id")
    if kind is None or not session_id:
        return None
    return Event(
        kind,
        session_id,
        session_ref=transcript_ref(p),
        prompt=first_text(p, "prompt", "user_prompt") if kind == EventType.TURN_START else "",
        model=first_text(p, "model"),
        timestamp=first_text(p, "timestamp"),
    )
