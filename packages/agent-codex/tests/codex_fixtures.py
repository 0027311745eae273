"""The real Codex 0.171.0 captures this package is tested against, and what they contain.

Copied from the project's shared fixtures: hook payloads in firing order (s1: two turns with a resume
and an auto-compaction; s2: a subagent; ``-child``: fired in the child thread) and the three rollouts.
Paths inside them name the capture machine (``/srv/codex-live``), which does not exist here.
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).parent / "data"
HOOKS = DATA / "hooks"
ROLLOUTS = DATA / "rollouts"

S1 = "01a22a67-c6ec-77d0-98ce-b28638e49364"
S2 = "01a22a67-d64b-7443-beec-552f6f424cbc"
CHILD = "01a22a67-d916-7711-8aa0-848df6c49ae4"

CAPTURE_REPO = "/srv/codex-live/repo"
CAPTURE_SESSIONS = "/srv/codex-live/home/sessions/2026/11/30"
REF1 = f"{CAPTURE_SESSIONS}/rollout-2026-11-30T03-02-53-{S1}.jsonl"
REF2 = f"{CAPTURE_SESSIONS}/rollout-2026-11-30T03-02-57-{S2}.jsonl"
REF_CHILD = f"{CAPTURE_SESSIONS}/rollout-2026-11-30T03-02-58-{CHILD}.jsonl"

ROLLOUT1 = ROLLOUTS / Path(REF1).name
ROLLOUT2 = ROLLOUTS / Path(REF2).name
ROLLOUT_CHILD = ROLLOUTS / Path(REF_CHILD).name

TURN1_BYTE = 47940
"""Byte offset in ROLLOUT1 just after turn one's ``task_complete`` (and where turn two starts)."""


def lines_upto(path: Path, byte: int | None = None) -> int:
    """The line count (a position, as the Entire CLI counts lines) of ``path``'s first ``byte`` bytes."""
    return path.read_bytes()[:byte].count(b"\n")


TURN1_END = lines_upto(ROLLOUT1, TURN1_BYTE)
"""Turn one's end in ROLLOUT1 as a line count: the position the CLI stores."""
END1, END2, END_CHILD = lines_upto(ROLLOUT1), lines_upto(ROLLOUT2), lines_upto(ROLLOUT_CHILD)
"""The rollouts' ends as line counts (their byte sizes are 78832, 48975 and 44347)."""

PROMPT1 = "Create hello.txt saying hello, update README, then write shell.txt"
PROMPT2 = "SECOND turn: add second.txt and delete shell.txt"
PROMPT_SPAWN = "SPAWN a subagent that creates child.txt, wait for it, then report"
PROMPT_CHILD = "CHILD TASK: create child.txt"
SUMMARY1 = "Second turn done: added second.txt and deleted shell.txt."
SUMMARY2 = "Done. I created hello.txt, updated README.md and wrote shell.txt."
SUMMARY_CHILD = "child done: created child.txt"

HOOK_OF_EVENT = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "user-prompt-submit",
    "Stop": "stop",
    "PreCompact": "pre-compact",
    "PostCompact": "post-compact",
    "SessionEnd": "session-end",
    "SubagentStart": "subagent-start",
    "SubagentStop": "subagent-stop",
    "PreToolUse": "pre-tool-use",  # not one of ours: parse-hook answers null for unknown hooks
    "PostToolUse": "post-tool-use",
}


def _event(kind: int, session: str, ref: str, **fields: str) -> dict[str, object]:
    return {"type": kind, "session_id": session, "session_ref": ref, **fields}


M = {"model": "gpt-5.5"}
CHILD_FIELDS = {**M, "tool_use_id": CHILD, "subagent_id": CHILD, "subagent_type": "default"}

EXPECTED_EVENTS: dict[str, dict[str, object] | None] = {
    "01_s1_SessionStart.json": _event(1, S1, REF1, **M),
    "02_s1_UserPromptSubmit.json": _event(2, S1, REF1, prompt=PROMPT1, **M),
    "03_s1_PreToolUse.json": None,
    "04_s1_PostToolUse.json": None,
    "05_s1_PreToolUse.json": None,
    "06_s1_PostToolUse.json": None,
    "07_s1_Stop.json": _event(3, S1, REF1, **M),
    "08_s1_SessionEnd.json": _event(5, S1, REF1),
    "09_s1_PreCompact.json": None,
    "10_s1_PostCompact.json": _event(4, S1, REF1, **M),
    "11_s1_SessionStart.json": _event(1, S1, REF1, **M),
    "12_s1_SessionStart.json": None,  # source "compact": the same session, after compacting
    "13_s1_UserPromptSubmit.json": _event(2, S1, REF1, prompt=PROMPT2, **M),
    "14_s1_PreToolUse.json": None,
    "15_s1_PostToolUse.json": None,
    "16_s1_Stop.json": _event(3, S1, REF1, **M),
    "17_s1_SessionEnd.json": _event(5, S1, REF1),
    "18_s2_SessionStart.json": _event(1, S2, REF2, **M),
    "19_s2_UserPromptSubmit.json": _event(2, S2, REF2, prompt=PROMPT_SPAWN, **M),
    "20_s2_PreToolUse.json": None,
    "21_s2-child_SubagentStart.json": _event(6, S2, REF_CHILD, **CHILD_FIELDS),
    "22_s2_PostToolUse.json": None,
    "23_s2_PreToolUse.json": None,
    "24_s2-child_UserPromptSubmit.json": None,  # the child's prompt is not a turn of the session
    "25_s2-child_PreToolUse.json": None,
    "26_s2-child_PostToolUse.json": None,
    "27_s2-child_SubagentStop.json": _event(7, S2, REF_CHILD, **CHILD_FIELDS),
    "28_s2_PostToolUse.json": None,
    "29_s2_Stop.json": _event(3, S2, REF2, **M),
    "30_s2_SessionEnd.json": _event(5, S2, REF2),
}


def hook_of(payload: Path) -> str:
    """The hook name a captured payload file was fired as (from its ``NN_<session>_<Event>`` name)."""
    return HOOK_OF_EVENT[payload.stem.rsplit("_", 1)[1]]
