"""Gemini CLI (the newest of its window) under the real Entire CLI, with our plugin from its wheel.

The scenario (``scenarios.run_gemini``) runs once per checkpoint backend, and once more with AfterAgent's
parse-hook hung in turn A2 until the host kills it (``KILL``); each check is one test, so the run's table
(``make host``) counts what the host stored against the script.
"""

from __future__ import annotations

import checks
import pytest
from scenarios import run_gemini
from suite import Kill, host_tests

pytestmark = pytest.mark.host

LABELS = ("A1", "A2", "A3", "B-end")
"""Gemini's own mid-turn commit gets no checkpoint: Gemini CLI empties ``core.hooksPath`` for the git its
shell tool runs, so Entire's git hooks never see it (``check_no_checkpoint_without_agent_work``)."""


KILL = Kill("A2", "parse-hook --hook after-agent:write.written@/.meta/")
"""AfterAgent's parse-hook hangs with the view's new metadata in its temporary file, not yet renamed over
the old: the host kills it 30 s on and never hears the turn's end (the view's append is done again by
the next call)."""
KILLED_KNOWN = {("A3", "prompt"): checks.LOST_TURN_END, ("A3", "tokens"): checks.LOST_TURN_END,
                ("A3", "transcript"): checks.LOST_TURN_END, ("list_and_explain",): checks.LOST_TURN_END}  # fmt: skip
"""What fails in the killed run (``checks.held``): the host's, not ours."""

outcome, test_checkpoint, test_run, test_views_re_base_at_the_smallest_budget, test_killed = host_tests(
    "gemini", "google-gemini", run_gemini, LABELS, kill=KILL, small_view_known=checks.SMALL_VIEW_KNOWN,
    killed_known=KILLED_KNOWN,
)  # fmt: skip
