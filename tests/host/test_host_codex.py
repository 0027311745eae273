"""Codex CLI (the newest of its window) under the real Entire CLI, with our plugin from its wheel.

The scenario (``scenarios.run_codex``) runs once per checkpoint backend; each check is one test, so the
run's table (``make host``) counts what the host stored against the script.
"""

from __future__ import annotations

import checks
import pytest
from scenarios import run_codex
from suite import host_tests

pytestmark = pytest.mark.host

LABELS = ("A1", "A2", "A3", "B1-agent-commit", "B-end")

SMALL_VIEW_KNOWN = {**checks.SMALL_VIEW_KNOWN, ("resumed_agent",): checks.RESUME_REBASED}
"""What fails in the small-view run (``checks.held``): the resumed Codex gets the view's snapshot too."""

outcome, test_checkpoint, test_run, test_views_re_base_at_the_smallest_budget = host_tests(
    "codex", "openai-codex", run_codex, LABELS, small_view_known=SMALL_VIEW_KNOWN
)
