"""Qwen Code (the newest of its window) under the real Entire CLI, with our plugin from its wheel.

The scenario (``scenarios.run_qwen``) runs once per checkpoint backend, and once more with Stop's
prepare-transcript hung in turn A2, its view update done, until the host kills it (``KILL``); each check
is one test, so the run's table (``make host``) counts what the host stored against the script.
"""

from __future__ import annotations

import json

import checks
import pytest
from scenarios import Outcome, run_qwen
from suite import Kill, host_tests

pytestmark = pytest.mark.host

LABELS = ("A1", "A2", "A3", "B1-agent-commit", "B-end", "C1-agent-commit", "C1")
"""Qwen's shell runs git with Entire's hooks, so its own mid-turn commit gets a checkpoint (as Codex's).
Session B's and C's first turns have the agent's own commit; B is committed only at its end, C right
after that turn. Their prompts reach ``prompt.txt`` since a turn never starts at line 0 of a view
(``entire_core.views``: the host reads a turn start of 0 as unset, v0.10.3 ``lifecycle.go``
``resolveTranscriptOffset``)."""


KILL = Kill("A2", "prepare-transcript:lock.release")
"""Stop's prepare-transcript hangs with the view brought up to date and its lock still held: the host kills
it 30 s on and finishes the turn without it."""

outcome, test_checkpoint, test_run, test_views_re_base_at_the_smallest_budget, test_killed = host_tests(
    "qwen", "qwen-code", run_qwen, LABELS, kill=KILL, small_view_known=checks.SMALL_VIEW_KNOWN
)


def test_disable_removes_the_settings_install_created_though_qwen_wrote_its_key(outcome: Outcome) -> None:
    """Install created ``.qwen/settings.json``; Qwen wrote ``"$version"`` into it when it loaded it. Disable
    takes out our hooks and the file with Qwen's key, and ``.qwen/``: no file is left that was not there
    before (``check_disable`` holds the rest of the repository to its bytes before enable)."""
    assert json.loads(outcome.facts["before_disable"][".qwen/settings.json"])["$version"] == 4
    assert not [name for name in outcome.facts["after_disable"] if name.startswith(".qwen/")]
    assert ".qwen/settings.json" not in outcome.facts["before_enable"]
