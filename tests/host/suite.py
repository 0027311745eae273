"""One agent's ``host`` tests, made from what ``test_host_<agent>.py`` says of it: its scenario, the labels of
the commits it checks, the run checks that apply, where its plugin is killed, and its known faults.

``host_tests`` returns the fixture and the tests the module binds to these names, so their node ids are the
module's own (``test_host_codex.py::test_checkpoint[git-refs-A1-prompt]``)::

    outcome, test_checkpoint, test_run, test_views_re_base_at_the_smallest_budget, test_killed = host_tests(...)

- ``outcome``: the scenario, run once per checkpoint backend (``harness.BACKENDS``), recorded by
  ``record.maybe_write``, and once more with the agent's ``Kill`` (``harness.KILLED``): a plugin call in
  the middle of a turn's end hangs until the host's own timeout kills it; then what it left is noted
  (``nothing_left``) and, where the killed turn's commit has no checkpoint, that label is ``absent``;
- ``test_checkpoint``: each of ``checks.PER_COMMIT`` on each label's commit (in the killed run, the
  killed turn's checkpoint exact or absent, never other: ``checks.absent``);
- ``test_run``: each run check (``RUN_CHECKS``, or the agent's own list, and ``nothing_left``) on the
  whole run;
- ``test_views_re_base_at_the_smallest_budget``: ``checks.check_rebased`` in the small-view run;
- ``test_killed``: ``checks.check_killed`` in the killed run.

Known faults come in four kinds: ``known``, a (check, label) pair that fails in every run, and
``run_known``, a run check that fails in every run, are strict ``xfail`` with their reasons;
``small_view_known`` and ``killed_known``, a check that fails only in the small-view run or only in the
killed run, are held by ``checks.held`` (each must keep failing, with its reason, until fixed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import checks
import pytest
import record
from harness import BACKENDS, KILLED, Kill, agent_binary
from scenarios import Outcome

RUN_CHECKS = ("no_checkpoint_without_agent_work", "doctor", "list_and_explain", "resume", "resumed_agent",
              "disable")  # fmt: skip
"""The checks made once on a whole run (``checks.check_<name>(outcome)``), with ``nothing_left``."""


class Scenario(Protocol):
    """``run_<agent>(work, backend, plugins, agent_bin, kill)`` of ``scenarios``."""

    def __call__(
        self, work: Path, backend: str, plugins: Path, agent_bin: Path, kill: Kill | None = None
    ) -> Outcome: ...


class HostTests(NamedTuple):
    """What a ``test_host_<agent>.py`` binds, under these names."""

    outcome: Any
    test_checkpoint: Callable[..., None]
    test_run: Callable[..., None]
    test_views_re_base_at_the_smallest_budget: Callable[..., None]
    test_killed: Callable[..., None]


def host_tests(
    short: str,
    agent: str,
    scenario: Scenario,
    labels: tuple[str, ...],
    *,
    kill: Kill,
    runs: tuple[str, ...] = RUN_CHECKS,
    known: Mapping[tuple[str, str], str] | None = None,
    run_known: Mapping[str, str] | None = None,
    small_view_known: Mapping[tuple[str, ...], str] | None = None,
    killed_known: Mapping[tuple[str, ...], str] | None = None,
) -> HostTests:
    """The tests of ``agent`` (its scratch directories named ``<short>-<backend>``), playing ``scenario``,
    and once more with ``kill`` (the killed turn's checkpoint label is the turn's: ``kill.turn``).

    ``known`` maps a (check, label) pair to the reason it fails, ``run_known`` a run check that fails in
    every run to its reason; ``small_view_known`` and ``killed_known``
    map a key of ``checks.held`` (``(label, check)`` or ``(check,)``) to the reason it fails in the
    small-view run, in the killed run.
    """
    faults = dict(known or {})
    held = {"small-view": dict(small_view_known or {}), KILLED: dict(killed_known or {})}

    @pytest.fixture(scope="module", params=(*BACKENDS, KILLED))
    def outcome(
        request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, plugins: Path
    ) -> Outcome:
        binary = agent_binary(agent)
        variant = request.param
        played = scenario(tmp_path_factory.mktemp(f"{short}-{variant}"), variant, plugins, binary,
                          kill if variant == KILLED else None)  # fmt: skip
        checks.note_what_is_left(played)
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
        if checks.absent(outcome, label):
            return  # the killed turn's commit without a checkpoint: allowed, as an exact one is
        checks.held(outcome, held, (label, check), lambda: getattr(checks, f"check_{check}")(outcome, label))

    whole = dict(run_known or {})
    run_cases = [
        pytest.param(
            name, marks=[pytest.mark.xfail(strict=True, reason=whole[name])] if name in whole else []
        )
        for name in (*runs, "nothing_left")
    ]

    @pytest.mark.parametrize("check", run_cases)
    def test_run(outcome: Outcome, check: str) -> None:
        checks.held(outcome, held, (check,), lambda: getattr(checks, f"check_{check}")(outcome))

    @pytest.mark.parametrize("outcome", ["small-view"], indirect=True)
    def test_views_re_base_at_the_smallest_budget(outcome: Outcome) -> None:
        checks.check_rebased(outcome)

    @pytest.mark.parametrize("outcome", [KILLED], indirect=True)
    def test_killed(outcome: Outcome) -> None:
        checks.check_killed(outcome)

    return HostTests(outcome, test_checkpoint, test_run, test_views_re_base_at_the_smallest_budget,
                     test_killed)  # fmt: skip
