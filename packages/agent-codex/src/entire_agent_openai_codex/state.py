"""Small files the plugin keeps between its own processes (the CLI starts one process per call).

- The turn a Stop hook announced, so that ``prepare-transcript`` knows what to wait for.
- The stand-in rollout of an ephemeral session (``codex exec --ephemeral`` writes none), built from
  the hook payloads so that the turn can still be recorded.

Both live in the agent's scratch directory (``entire_core.scratch``), which git ignores; this module
says what they hold.
"""

from __future__ import annotations

import os

from entire_core.jsonvalues import text as as_str
from entire_core.scratch import path_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from entire_core.agent import Agent

TURN_END = "turn-end"
"""The scratch kind of a Stop hook's announcement, keyed by the rollout's path."""


# -- the turn a Stop hook announced -------------------------------------------------------------------------


def expect_turn_end(agent: Agent, ref: str, payload: Mapping[str, Any]) -> None:
    """Note what the Stop hook said ended (turn id, last message) for ``prepare-transcript``.

    A hint (core writes it best effort): when scratch space is not writable, prepare just does not wait.
    """
    expected = {
        "transcript": ref,
        "turn_id": as_str(payload.get("turn_id")),
        "message": as_str(payload.get("last_assistant_message")),
    }
    agent.scratch().save(TURN_END, path_key(ref), expected)


def pending_turn_end(agent: Agent, ref: str) -> dict[str, str]:
    """What the last Stop hook for this rollout announced, or an empty dict."""
    saved = agent.scratch().load(TURN_END, path_key(ref))
    return {k: v for k, v in saved.items() if isinstance(v, str)}


def clear_turn_end(agent: Agent, ref: str) -> None:
    """Forget the announced turn once the rollout holds it."""
    agent.scratch().remove(TURN_END, path_key(ref))


# -- ephemeral sessions -------------------------------------------------------------------------------------


def ephemeral_path(agent: Agent, session_id: str) -> str:
    """The stand-in rollout of an ephemeral session (checked here: it names a file before the
    dispatcher sees the event)."""
    from entire_core import validate

    return agent.scratch().path(f"ephemeral-{validate.session_id(session_id)}.jsonl")


def _now() -> str:
    """UTC now as RFC 3339 with milliseconds, as Codex stamps its lines (``datetime`` stays off the hook)."""
    import time

    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}Z"


def _append(agent: Agent, session_id: str, payload: Mapping[str, Any], items: list[dict[str, Any]]) -> str:
    from entire_core import _json, locks

    path = ephemeral_path(agent, session_id)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    stamp = _now()
    # The lock keeps concurrent hooks from both writing a session_meta line and, on Windows (where
    # the C runtime emulates O_APPEND by seeking, then writing), from overwriting each other's lines.
    # O_BINARY: no \r\n translation there.
    with locks.exclusive(path + ".lock"):
        lines: list[dict[str, Any]] = []
        if not os.path.exists(path):
            meta = {"id": session_id, "session_id": session_id, "timestamp": stamp, "cwd": as_str(payload.get("cwd")),
                    "originator": f"entire-agent-{agent.name}", "source": "exec", "thread_source": "user",
                    "ephemeral": True}  # fmt: skip
            lines.append({"timestamp": stamp, "type": "session_meta", "payload": meta})
        lines += [{"timestamp": stamp, **item} for item in items]
        data = "".join(_json.dumps(line) + "\n" for line in lines).encode("utf-8")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_BINARY", 0), 0o600)
        try:
            view = memoryview(data)
            while view:  # whole lines in as few writes as the OS allows; readers skip a partial last line
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    return path


def ephemeral_prompt(agent: Agent, session_id: str, prompt: str, payload: Mapping[str, Any]) -> str:
    """Record a prompt of an ephemeral session; return the stand-in rollout's path."""
    turn_id = as_str(payload.get("turn_id"))
    message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}
    typed = {"type": "UserMessage", "content": [{"type": "text", "text": prompt}]}
    items = [
        {"type": "event_msg", "payload": {"type": "task_started", "turn_id": turn_id}},
        {"type": "response_item", "payload": message},
        {"type": "event_msg", "payload": {"type": "item_completed", "turn_id": turn_id, "item": typed}},
    ]
    return _append(agent, session_id, payload, items)


def ephemeral_stop(agent: Agent, session_id: str, payload: Mapping[str, Any]) -> str:
    """Record the end of an ephemeral session's turn; return the stand-in rollout's path."""
    turn_id = as_str(payload.get("turn_id"))
    text = as_str(payload.get("last_assistant_message"))
    items: list[dict[str, Any]] = []
    if text:
        message = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
        items.append({"type": "response_item", "payload": message})
    done = {"type": "task_complete", "turn_id": turn_id, "last_agent_message": text or None}
    items.append({"type": "event_msg", "payload": done})
    return _append(agent, session_id, payload, items)
