"""Aider (the newest of its window) under the real Entire CLI, with our plugin from its wheel, through our
launcher: each edit is committed by Aider itself (its auto-commits), and a text-only turn commits nothing.

The scenario (``scenarios.run_aider``) runs once per checkpoint backend, and once more with the plugin's
turn-end parse-hook hung in turn A2 (``KILL``); each check is one test.
"""

from __future__ import annotations

import pytest
from scenarios import Outcome, run_aider
from suite import Kill, host_tests

pytestmark = pytest.mark.host

LABELS = ("A1", "A2")

RUNS = ("no_checkpoint_without_agent_work", "doctor", "list_and_explain", "disable")
"""The run checks but the resume's: this scenario resumes nothing."""

KILL = Kill("A2", "parse-hook --hook turn-end:write.renamed@state-")
"""The turn-end's parse-hook hangs as it saves its queue with the TurnEnd marked as its own
(``entire_core.eventqueue``): the host kills it 30 s on and hears nothing; the launcher delivers the event
again, first, at the next turn's start. Aider committed the turn's edit before its end: A2's checkpoint
was made before the kill."""

# No known faults: nothing fails, in the small-view run or the killed run either.
outcome, test_checkpoint, test_run, test_views_re_base_at_the_smallest_budget, test_killed = host_tests(
    "aider", "aider", run_aider, LABELS, kill=KILL, runs=RUNS
)


def test_each_aider_commit(outcome: Outcome) -> None:
    """Aider committed each of its two edits itself."""
    assert outcome.facts["aider_commits"] == 2
