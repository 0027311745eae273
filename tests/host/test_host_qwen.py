"""Qwen Code (the newest of its window) under the real Entire CLI, with our plugin from its wheel.

The scenario (``scenarios.run_qwen``) runs once per checkpoint backend; each check is one test, so the
run's table (``make host``) counts what the host stored against the script.
"""

from __future__ import annotations

import json
from pathlib import Path

import checks
import pytest
import record
from harness import BACKENDS, agent_binary
from scenarios import Outcome, run_qwen

pytestmark = pytest.mark.host

LABELS = ("A1", "A2", "A3", "B1-agent-commit", "B-end", "C1-agent-commit", "C1")
"""Qwen's shell runs git with Entire's hooks, so its own mid-turn commit gets a checkpoint (as Codex's).
Session B's and C's first turns have the agent's own commit; B is committed only at its end, C right
after that turn. Their prompts reach ``prompt.txt`` since a turn never starts at line 0 of a view
(``entire_core.views``: the host reads a turn start of 0 as unset, v0.10.3 ``lifecycle.go``
``resolveTranscriptOffset``)."""

KNOWN: dict[tuple[str, str], pytest.MarkDecorator] = {}
"""(check, label) pairs that fail for a known fault, with that reason (none left)."""
SMALL_VIEW_KNOWN: dict[tuple[str, ...], str] = {
    ("B-end", "transcript"): checks.COMMITTED_AT_END,
    ("list_and_explain",): checks.COMMITTED_AT_END,
    ("resume",): checks.RESUME_REBASED,
}
"""What fails in the small-view run (``checks.held``)."""


@pytest.fixture(scope="module", params=BACKENDS)
def outcome(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, plugins: Path
) -> Outcome:
    qwen = agent_binary("qwen-code")
    outcome = run_qwen(tmp_path_factory.mktemp(f"qwen-{request.param}"), request.param, plugins, qwen)
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


def test_disable_removes_the_settings_install_created_though_qwen_wrote_its_key(outcome: Outcome) -> None:
    """Install created ``.qwen/settings.json``; Qwen wrote ``"$version"`` into it when it loaded it. Disable
    takes out our hooks and the file with Qwen's key, and ``.qwen/``: no file is left that was not there
    before (``check_disable`` holds the rest of the repository to its bytes before enable)."""
    assert json.loads(outcome.facts["before_disable"][".qwen/settings.json"])["$version"] == 4
    assert not [name for name in outcome.facts["after_disable"] if name.startswith(".qwen/")]
    assert ".qwen/settings.json" not in outcome.facts["before_enable"]
