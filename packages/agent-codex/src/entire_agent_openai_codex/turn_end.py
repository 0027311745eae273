"""Waiting, bounded, for the rollout to hold the end of the turn a Stop hook announced (``prepare-transcript``)."""

from __future__ import annotations

import os

from entire_core import offsets

from entire_agent_openai_codex.messages import agent_message_text, assistant_text
from entire_agent_openai_codex.transcript import event_type, payload_of, records

TURN_END_WAIT_SECONDS = 2.0
"""How long ``prepare-transcript`` waits for Codex to flush the turn its Stop hook announced."""
TURN_END_SCAN_BYTES = 4 << 20


def holds_turn_end(path: str, turn_id: str, message: str) -> bool:
    """True when the rollout's complete lines already hold the end of the turn a Stop hook announced.

    Codex runs the Stop hook after the turn's last response but writes the rollout from a background
    task, so the final assistant message may still be on its way. The turn has ended in the file once
    its final message is there (or its ``task_complete``); meeting the turn's start first means not yet.
    """
    if not os.path.exists(path):
        return False
    if not turn_id and not message:
        return True
    scanned = 0
    for line in offsets.reverse_lines(path):
        scanned += len(line) + 1
        if scanned > TURN_END_SCAN_BYTES:
            return False
        for record in records([line], b"task_complete", b"task_started", b'"assistant"', b"AgentMessage"):
            payload = payload_of(record)
            kind = event_type(record)
            same_turn = bool(turn_id) and payload.get("turn_id") == turn_id
            if kind == "event_msg/task_complete" and same_turn:
                return True
            if kind == "event_msg/task_started" and same_turn:
                return not message
            if (
                message
                and kind == "response_item/message"
                and payload.get("role") == "assistant"
                and assistant_text(payload) == message
            ):
                return True
            if (
                message
                and kind == "event_msg/item_completed"
                and agent_message_text(payload.get("item")) == message
            ):
                return True
    return False


def wait_for_turn_end(path: str, turn_id: str, message: str, timeout: float | None = None) -> bool:
    """Poll, briefly and bounded, until ``holds_turn_end``; True if it did within ``timeout``
    (``TURN_END_WAIT_SECONDS`` when not given, read at call time)."""
    import time

    deadline = time.monotonic() + (TURN_END_WAIT_SECONDS if timeout is None else timeout)
    delay = 0.01
    while not holds_turn_end(path, turn_id, message):
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
    return True
