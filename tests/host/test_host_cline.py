"""Cline CLI (the newest of its window) under the real Entire CLI, with our plugin from its wheel.

The scenario (``scenarios.run_cline``) runs once per checkpoint backend, and once more with TaskComplete's
parse-hook hung in turn A2 until the host kills it (``KILL``); each check is one test, so the run's table
(``make host``) counts what the host stored against the script.

Session A is a one-shot run, then two turns in its TUI (a shell rename and delete; a subagent); session B
a one-shot run in which Cline commits with its own shell (Entire's git hooks run for it: a checkpoint), then
a text-only turn and an edit turn in its TUI, committed by the user at its end; then B resumed.
"""

from __future__ import annotations

import checks
import pytest
from scenarios import run_cline
from suite import Kill, host_tests

pytestmark = pytest.mark.host

LABELS = ("A1", "A2", "A3", "B1-agent-commit", "B-end")

TURN_START_LATE = (
    "ours (entire_agent_cline_cli.events): Cline writes a turn's messages only once "
    "its first model call has answered, and TaskResume's parse-hook waits for the prompt there before it "
    "answers the TurnStart, so the host notes the untracked files (CapturePrePromptState, v0.10.3 "
    "lifecycle.go line 583) after the turn's first tool ran: greeting.txt, made by that first tool's `mv`, "
    "counts as there before the turn (DetectFileChanges, lifecycle.go line 896) and is left out of "
    "files_touched; in the killed run the turn has no TurnEnd at the user's commit, and the mid-turn "
    "condensation takes the transcript's files alone (second.txt)"
)
HEADER_PAST_THE_BUDGET = (
    "by design: Cline's session header (its system prompt, 5.6 KB) alone is past the smallest view budget "
    "(4096 bytes), so the view re-bases at every turn's start from the second on, and session B's earlier "
    "turns, committed only at its end, are in the snapshot, not in lines from compact_transcript_start"
)

LATE_END_BACKFILL = (
    "ours and the host's (entire_agent_cline_cli.events, v0.10.3 lifecycle.go line 807): the killed call "
    "leaves A2's TurnEnd to A3's TaskResume, after the user's commit condensed A2 as a turn still open (its "
    "checkpoint exact) and cleared prompt.txt; the late TurnEnd backfills prompt.txt from the transcript from "
    "A2's start, which now holds A2's prompt (a turn starts before its prompt, as B1 needs), so A3's "
    "checkpoint lists A2's prompt before its own"
)

KILL = Kill("A2", "parse-hook --hook task-complete:write.renamed@session-")
"""TaskComplete's parse-hook hangs as it saves the session's queue with the TurnEnd marked as its own, the
journal brought up to date: the host kills it 30 s on, and Cline, which runs the hook detached, goes on.
The user's commit finds A2's turn still open and condenses it (its prompt, tokens and transcript exact);
A3's TaskResume delivers A2's TurnEnd again (the queue kept it), and the subagent's hooks catch up."""

outcome, test_checkpoint, test_run, test_views_re_base_at_the_smallest_budget, test_killed = host_tests(
    "cline", "cline-cli", run_cline, LABELS, kill=KILL,
    known={("files", "A2"): TURN_START_LATE},
    small_view_known={("B-end", "transcript"): HEADER_PAST_THE_BUDGET, ("list_and_explain",): HEADER_PAST_THE_BUDGET,
                      ("resume",): checks.RESUME_REBASED},
    killed_known={("A3", "prompt"): LATE_END_BACKFILL},
)  # fmt: skip
