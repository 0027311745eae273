"""Aider (the newest of its window) under the real Entire CLI, with our plugin from its wheel, through our
launcher: each edit is committed by Aider itself (its auto-commits), and a text-only turn commits nothing.

The scenario (``scenarios.run_aider``) runs once per checkpoint backend; each check is one test.
"""

from __future__ import annotations

from pathlib import Path

import checks
import pytest
import record
from harness import BACKENDS, agent_binary
from scenarios import Outcome, run_aider

pytestmark = pytest.mark.host

LABELS = ("A1", "A2")

KNOWN: dict[tuple[str, str], pytest.MarkDecorator] = {}
"""(check, label) pairs that fail for a fault issue 25 names, with that reason (none left)."""


SMALL_VIEW_KNOWN: dict[tuple[str, ...], str] = {}
"""What fails in the small-view run (``checks.held``): nothing."""


@pytest.fixture(scope="module", params=BACKENDS)
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, plugins: Path
) -> Outcome:
    aider = agent_binary("aider")
    outcome = run_aider(tmp_path_factory.mktemp(f"aider-{request.param}"), request.param, plugins, aider)
    record.maybe_write(outcome)
    return outcome


def _cases() -> list[object]:
    cases: list[object] = []
    for label in LABELS:
        for name in checks.PER_COMMIT:
            marks = [KNOWN[(name, label)]] if (name, label) in KNOWN else []
            cases.append(pytest.param(name, label, id=f"{label}-{name}", marks=marks))
    return cases


@pytest.mark.parametrize(("check", "label"), _cases())
def test_checkpoint(outcome: Outcome, check: str, label: str) -> None:
    checks.held(
        outcome, SMALL_VIEW_KNOWN, (label, check), lambda: getattr(checks, f"check_{check}")(outcome, label)
    )


def test_each_aider_commit(outcome: Outcome) -> None:
    """Aider committed each of its two edits itself."""
    assert outcome.facts["aider_commits"] == 2


@pytest.mark.parametrize(
    "check", ["no_checkpoint_without_agent_work", "doctor", "list_and_explain", "disable"]
)
def test_run(outcome: Outcome, check: str) -> None:
    checks.held(outcome, SMALL_VIEW_KNOWN, (check,), lambda: getattr(checks, f"check_{check}")(outcome))


@pytest.mark.parametrize("outcome", ["small-view"], indirect=True)
def test_views_re_base_at_the_smallest_budget(outcome: Outcome) -> None:
    checks.check_rebased(outcome)
