"""Codex CLI (the newest of its window) under the real Entire CLI, with our plugin from its wheel.

The scenario (``scenarios.run_codex``) runs once per checkpoint backend; each check is one test, so the
run's table (``make host``) counts what the host stored against the script.
"""

from __future__ import annotations

from pathlib import Path

import checks
import pytest
import record
from harness import BACKENDS, agent_binary
from scenarios import Outcome, run_codex

pytestmark = pytest.mark.host

LABELS = ("A1", "A2", "A3", "B1-agent-commit", "B-end")

OFFSETS_IN_BYTES = pytest.mark.xfail(
    strict=True,
    reason="issue 25, point 1: Codex answers byte offsets; after the agent's mid-turn commit the host hands back "
    "its line count as --offset, gets zeros and falls back to the whole first turn's tokens",
)
KNOWN: dict[tuple[str, str], pytest.MarkDecorator] = {}
"""(check, label) pairs that fail for a fault issue 25 names, with that reason."""


SMALL_VIEW_KNOWN: dict[tuple[str, ...], str] = {
    ("B-end", "transcript"): checks.COMMITTED_AT_END,
    ("list_and_explain",): checks.COMMITTED_AT_END,
    ("resume",): checks.RESUME_REBASED,
    ("resumed_agent",): checks.RESUME_REBASED,
}
"""What fails in the small-view run (``checks.held``)."""


@pytest.fixture(scope="module", params=BACKENDS)
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, plugins: Path
) -> Outcome:
    codex = agent_binary("openai-codex")
    outcome = run_codex(tmp_path_factory.mktemp(f"codex-{request.param}"), request.param, plugins, codex)
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


@pytest.mark.parametrize(
    "check",
    ["no_checkpoint_without_agent_work", "doctor", "list_and_explain", "resume", "resumed_agent", "disable"],
)
def test_run(outcome: Outcome, check: str) -> None:
    checks.held(outcome, SMALL_VIEW_KNOWN, (check,), lambda: getattr(checks, f"check_{check}")(outcome))


@pytest.mark.parametrize("outcome", ["small-view"], indirect=True)
def test_views_re_base_at_the_smallest_budget(outcome: Outcome) -> None:
    checks.check_rebased(outcome)
