"""Aider (the newest of its window) under the real Entire CLI, with our plugin from its wheel, through our
launcher: each edit is committed by Aider itself (its auto-commits), and a text-only turn commits nothing.

The scenario (``scenarios.run_aider``) runs once per checkpoint backend; each check is one test.
"""

from __future__ import annotations

import pytest
from scenarios import Outcome, run_aider
from suite import host_tests

pytestmark = pytest.mark.host

LABELS = ("A1", "A2")

RUNS = ("no_checkpoint_without_agent_work", "doctor", "list_and_explain", "disable")
"""The run checks but the resume's: this scenario resumes nothing."""

# No known faults: nothing fails, in the small-view run either.
outcome, test_checkpoint, test_run, test_views_re_base_at_the_smallest_budget = host_tests(
    "aider", "aider", run_aider, LABELS, runs=RUNS
)


def test_each_aider_commit(outcome: Outcome) -> None:
    """Aider committed each of its two edits itself."""
    assert outcome.facts["aider_commits"] == 2
