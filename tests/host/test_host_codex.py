"""Codex CLI (the newest of its window) under the real Entire CLI, with our plugin from its wheel.

The scenario (``scenarios.run_codex``) runs once per checkpoint backend, and once more with Stop's
prepare-transcript hung in turn A2 until the host kills it (``KILL``); each check is one test, so the
run's table (``make host``) counts what the host stored against the script.
"""

from __future__ import annotations

import checks
import pytest
from scenarios import run_codex
from suite import Kill, host_tests

pytestmark = pytest.mark.host

LABELS = ("A1", "A2", "A3", "B1-agent-commit", "B-end")

SMALL_VIEW_KNOWN = {**checks.SMALL_VIEW_KNOWN, ("resumed_agent",): checks.RESUME_REBASED}
"""What fails in the small-view run (``checks.held``): the resumed Codex gets the view's snapshot too."""

KILL = Kill("A2", "prepare-transcript:lock.taken")
"""Stop's prepare-transcript hangs holding the view's lock, before it brings the view up to date (nothing to
add: Stop's parse-hook did): the host kills it 30 s on and finishes the turn without it. Codex's own Stop
timeout outlasts that (``hooks.TURN_END_TIMEOUT_SECONDS``); at 30 s it killed ``entire`` first."""

outcome, test_checkpoint, test_run, test_views_re_base_at_the_smallest_budget, test_killed = host_tests(
    "codex", "openai-codex", run_codex, LABELS, kill=KILL, small_view_known=SMALL_VIEW_KNOWN
)
