"""What Codex's hook payloads mean to Entire: one payload in, one lifecycle ``Event`` (or None) out.

Codex fires SessionStart, UserPromptSubmit, Stop, PreCompact, PostCompact, SessionEnd, SubagentStart
and SubagentStop (``hooks.HOOK_EVENTS`` names them). A subagent's thread fires the session hooks too,
and those are not the session's turns. The protocol's own ``HookInput`` shape (``session_ref``,
``user_prompt``), which the compliance suite sends, is read as well.

This module is imported for every ``parse-hook``; everything heavy is imported where it is used.
"""

from __future__ import annotations

from entire_core.hookinput import first_text, transcript_ref
from entire_core.jsonvalues import obj as as_dict
from entire_core.types import Event, EventType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from entire_core.agent import Agent

CHILD_HOOKS = frozenset(["session-start", "user-prompt-submit", "stop", "post-compact"])
"""Hooks a subagent's thread fires as if it were a session of its own."""


def _child_rollout(ref: str) -> bool:
    """True when the rollout at ``ref`` is a subagent thread's.

    Before 0.139, Codex fires a child thread's SessionStart, UserPromptSubmit and Stop with the child's
    own ``session_id`` and no ``agent_id``; only the rollout's first line says that it is a child.
    A rollout not written yet (SessionStart of a new thread) is a root thread's.
    """
    if not ref:
        return False
    from entire_agent_openai_codex import transcript

    return transcript.is_subagent_thread(transcript.session_meta(transcript.head(ref)))


def parse(agent: Agent, hook: str, payload: object) -> Event | None:
    """The lifecycle event a Codex hook payload means, or None.

    Payloads fired inside a subagent thread carry ``agent_id``: its prompts, stops and compactions
    are not the session's turns.
    """
    p = as_dict(payload)
    session_id = first_text(p, "session_id")
    if not session_id:
        return None
    ref = transcript_ref(p)
    in_subagent = bool(first_text(p, "agent_id")) or (hook in CHILD_HOOKS and _child_rollout(ref))
    ephemeral = "transcript_path" in p and p["transcript_path"] is None
    model, stamp = first_text(p, "model"), first_text(p, "timestamp")

    def event(kind: int, session_ref: str = ref, prompt: str = "", child: str = "", task: str = "") -> Event:
        return Event(kind, session_id, session_ref=session_ref, model=model, timestamp=stamp, prompt=prompt,
                     subagent_id=child, tool_use_id=child, task_description=task,
                     subagent_type=first_text(p, "agent_type") if child else "")  # fmt: skip

    if hook == "session-start":
        # Codex fires SessionStart again with source "compact" after compacting: the same session.
        return None if p.get("source") == "compact" or in_subagent else event(EventType.SESSION_START)
    if hook == "user-prompt-submit":
        if in_subagent:
            return None
        prompt = first_text(p, "prompt", "user_prompt")
        if ephemeral:
            from entire_agent_openai_codex import state

            ref = state.ephemeral_prompt(agent, session_id, prompt, p)
        return event(EventType.TURN_START, ref, prompt=prompt)
    if hook == "stop":
        if in_subagent:
            return None
        from entire_agent_openai_codex import state

        if ephemeral:
            ref = state.ephemeral_stop(agent, session_id, p)
        elif ref:
            state.expect_turn_end(agent, ref, p)
        return event(EventType.TURN_END, ref)
    if hook == "post-compact":
        return None if in_subagent else event(EventType.COMPACTION)
    if hook == "session-end":
        return event(EventType.SESSION_END)
    if hook in ("subagent-start", "subagent-stop"):
        return _subagent_event(agent, hook, p, event)
    return None  # pre-compact: post-compact reports the compaction once it has happened


def _subagent_event(agent: Agent, hook: str, p: dict[str, Any], event: Callable[..., Event]) -> Event | None:
    """SubagentStart / SubagentEnd, keyed by the child's thread id, pointing at the child's rollout.

    Codex has no tool-use id for a spawn, so the child's id is the task key too; at SubagentEnd the
    CLI reads the event's transcript for the child's files, so that must be the child's rollout.
    """
    child = first_text(p, "agent_id")
    if not child:
        return None
    if hook == "subagent-start":
        return event(EventType.SUBAGENT_START, first_text(p, "transcript_path"), child=child)
    from entire_core import validate

    from entire_agent_openai_codex import messages, paths

    # The dispatcher refuses an invalid subagent id once we answer; it names a file before that.
    ref = first_text(p, "agent_transcript_path") or paths.find_rollout(
        validate.tool_id(child, "subagent_id"), agent.env
    )
    task = messages.first_prompt(ref) if ref else ""
    # Without the child's rollout, no transcript is better than the parent's: the CLI would read every
    # file the parent ever changed as the child's work.
    return event(EventType.SUBAGENT_END, ref or "", child=child, task=task)
