"""Paths of the real Gemini captures and small helpers shared by the Gemini agent's tests."""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).parent / "data"
CAPTURES = DATA / "captures"
RUN1 = CAPTURES / "run1-same-minute-resume"
RUN3 = CAPTURES / "run3-cross-minute-resume-and-subagent"
RUN1_CHAT = RUN1 / "final.gemini-tmp/repo/chats/session-2026-11-30T03-02-e7a78f69.jsonl"
RUN3_TURN1_CHAT = RUN3 / "after_turn1.gemini-tmp/repo/chats/session-2026-11-30T03-04-7cd6fc3e.jsonl"
RUN3_TURN2_CHATS = RUN3 / "after_turn2.gemini-tmp/repo/chats"
RUN3_RESUMED_CHAT = RUN3_TURN2_CHATS / "session-2026-11-30T03-04-7cd6fc3e.jsonl"
RUN3_STRAY_CHAT = RUN3_TURN2_CHATS / "session-2026-11-30T03-05-7cd6fc3e.jsonl"
RUN3_SUBAGENT_CHATS = RUN3 / "after_turn3.gemini-tmp/repo/chats"
RUN3_SUBAGENT_MAIN = RUN3_SUBAGENT_CHATS / "session-2026-11-30T03-05-eb665009.jsonl"
RUN3_SUBAGENT_DIR = RUN3_SUBAGENT_CHATS / "eb665009-e156-4391-8b2e-3c44a320f795"
RUN3_SUBAGENT_CHAT = RUN3_SUBAGENT_DIR / "5a2688cd-e48c-4868-9748-e3fc82329408.jsonl"
RUN3_FINAL_MAIN = RUN3 / "final.gemini-tmp/repo/chats/session-2026-11-30T03-05-eb665009.jsonl"
LEGACY_CHAT = DATA / "legacy/session-2025-09-01T10-00-abcd1234.json"

CAPTURE_HOME = {RUN1: "/srv/gcap/run1/home/.gemini/srv", RUN3: "/srv/gcap/run3/home/.gemini/srv"}
"""The captures name Gemini's temp directory like this (the capture renamed ``tmp`` to ``srv``)."""


def usage(i: int, cr: int, o: int, calls: int, sub: dict[str, int] | None = None) -> dict[str, object]:
    """A calculate-tokens answer as the wire carries it."""
    out: dict[str, object] = {"input_tokens": i, "cache_creation_tokens": 0, "cache_read_tokens": cr,
                              "output_tokens": o, "api_call_count": calls}  # fmt: skip
    if sub is not None:
        out["subagent_tokens"] = sub
    return out


def payload(path: Path, **changes: object) -> dict[str, object]:
    """A captured hook payload, decoded, with some fields replaced."""
    data: dict[str, object] = json.loads(path.read_bytes())
    data.update(changes)
    return data


def local_ref(run: Path, ref: str, tmp_copy: Path) -> str:
    """A payload's ``transcript_path`` rewritten to point into a relocated copy of the capture."""
    return ref.replace(CAPTURE_HOME[run], str(tmp_copy))
