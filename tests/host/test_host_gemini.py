"""Gemini CLI (the newest of its window) under the real Entire CLI, with our plugin from its wheel.

The scenario (``scenarios.run_gemini``) runs once per checkpoint backend; each check is one test, so the
run's table (``make host``) counts what the host stored against the script.
"""

from __future__ import annotations

import checks
import pytest
from scenarios import run_gemini
from suite import host_tests

pytestmark = pytest.mark.host

LABELS = ("A1", "A2", "A3", "B-end")
"""Gemini's own mid-turn commit gets no checkpoint: Gemini CLI empties ``core.hooksPath`` for the git its
shell tool runs, so Entire's git hooks never see it (``check_no_checkpoint_without_agent_work``)."""


outcome, test_checkpoint, test_run, test_views_re_base_at_the_smallest_budget = host_tests(
    "gemini", "google-gemini", run_gemini, LABELS, small_view_known=checks.SMALL_VIEW_KNOWN
)
