"""The launcher's watcher: a TurnStart for each new input block, once, and only for complete lines."""

from __future__ import annotations

import queue
from pathlib import Path

from entire_agent_aider.launcher import Tail

WAIT = 10.0
"""Seconds to wait for a delivery that must come (a bound, not a timing claim)."""
QUIET = 1.0
"""Seconds (five polls) in which a delivery that must not come would have come."""


def test_a_new_input_block_is_one_turn_start(tmp_path: Path) -> None:
    history = tmp_path / ".aider.chat.history.md"
    history.write_bytes(b"# aider chat started at 2026-11-30 03:05:00\n\n#### an old prompt\n")
    delivered: queue.Queue[str] = queue.Queue()
    tail = Tail(delivered.put, str(history), history.stat().st_size)
    tail.start()
    try:
        with history.open("ab") as f:
            f.write(b"\n#### a new prom")  # Aider has not finished the line
            f.flush()
            assert _quiet(delivered)  # nothing for an incomplete line, nor for the old prompt
            f.write(b"pt\n\n> Tokens: 1 sent, 1 received.\n")
        assert delivered.get(timeout=WAIT) == "turn-start"
        assert _quiet(delivered)  # the same block is not delivered twice
    finally:
        tail.stop.set()
        tail.join(WAIT)


def _quiet(delivered: queue.Queue[str]) -> bool:
    try:
        delivered.get(timeout=QUIET)
    except queue.Empty:
        return True
    return False
