"""One agent's ``host`` tests, made from what ``test_host_<agent>.py`` says of it: its scenario, the labels of
the commits it checks, the run checks that apply, and its known faults.

``host_tests`` returns the fixture and the tests the module binds to these names, so their node ids are the
module's own (``test_host_codex.py::test_checkpoint[git-refs-A1-prompt]``)::

    outcome, test_checkpoint, test_run, test_views_re_base_at_the_smallest_budget = host_tests(...)

- ``outcome``: the scenario, run once per checkpoint backend (``harness.BACKENDS``), recorded by
  ``record.maybe_write``;
- ``test_checkpoint``: each of ``checks.PER_COMMIT`` on each label's commit;
- ``test_run``: each run check (``RUN_CHECKS``, or the agent's own list) on the whole run;
- ``test_views_re_base_at_the_smallest_budget``: ``checks.check_rebased`` in the small-view run.

Known faults come in two kinds: ``known``, a (check, label) pair that fails in every run, is a strict
``xfail`` with its reason; ``small_view_known``, a check that fails only in the small-view run, is held
by ``checks.held`` (it must keep failing, with its reason, until fixed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import checks
import pytest
import record
from harness import BACKENDS, agent_binary
from scenarios import Outcome

RUN_CHECKS = ("no_checkpoint_without_agent_work", "doctor", "list_and_explain", "resume", "resumed_agent",
              "disable")  # fmt: skip
"""The checks made once on a whole run (``checks.check_<name>(outcome)``)."""

Scenario = Callable[[Path, str, Path, Path], Outcome]
"""``run_<agent>(work, backend, plugins, agent_bin)`` of ``scenarios``."""


class HostTests(NamedTuple):
    """What a ``test_host_<agent>.py`` binds, under these names."""

    outcome: Any
    test_checkpoint: Callable[..., None]
    test_run: Callable[..., None]
    test_views_re_base_at_the_smallest_budget: Callable[..., None]


def host_tests(
    short: str,
    agent: str,
    scenario: Scenario,
    labels: tuple[str, ...],
    *,
    runs: tuple[str, ...] = RUN_CHECKS,
    known: Mapping[tuple[str, str], str] | None = None,
    small_view_known: Mapping[tuple[str, ...], str] | None = None,
) -> HostTests:
    """The tests of ``agent`` (its scratch directories named ``<short>-<backend>``), playing ``scenario``.

    ``known`` maps a (check, label) pair to the reason it fails; ``small_view_known`` maps a key of
    ``checks.held`` (``(label, check)`` or ``(check,)``) to the reason it fails in the small-view run.
    """
    faults = dict(known or {})
    small_view = dict(small_view_known or {})

    @pytest.fixture(scope="module", params=BACKENDS)
    def outcome(
        request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, plugins: Path
    ) -> Outcome:
        binary = agent_binary(agent)
        played = scenario(tmp_path_factory.mktemp(f"{short}-{request.param}"), request.param, plugins, binary)
        record.maybe_write(played)
        return played

    def marks(name: str, label: str) -> list[pytest.MarkDecorator]:
        reason = faults.get((name, label))
        return [] if reason is None else [pytest.mark.xfail(strict=True, reason=reason)]

    cases = [
        pytest.param(name, label, id=f"{label}-{name}", marks=marks(name, label))
        for label in labels
        for name in checks.PER_COMMIT
    ]

    @pytest.mark.parametrize(("check", "label"), cases)
    def test_checkpoint(outcome: Outcome, check: str, label: str) -> None:
        checks.held(
            outcome, small_view, (label, check), lambda: getattr(checks, f"check_{check}")(outcome, label)
        )

    @pytest.mark.parametrize("check", runs)
    def test_run(outcome: Outcome, check: str) -> None:
        checks.held(outcome, small_view, (check,), lambda: getattr(checks, f"check_{check}")(outcome))

    @pytest.mark.parametrize("outcome", ["small-view"], indirect=True)
    def test_views_re_base_at_the_smallest_budget(outcome: Outcome) -> None:
        checks.check_rebased(outcome)

    return HostTests(outcome, test_checkpoint, test_run, test_views_re_base_at_the_smallest_budget)
