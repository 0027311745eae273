"""The ``host`` tests' one rule: without ``ENTIRE_BIN`` each skips with one line saying what it needs;
with ``ENTIRE_HOST=1`` it fails instead. Also: the wheels built once per test session, and a table per
agent of the checks passed at the end of the run (``make host``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Generator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from harness import HostUnavailable, entire_bin, plugin_bin, required

_TALLY: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))


def unavailable(reason: str, details: str = "") -> NoReturn:
    if required():
        message = f"host: {reason} (required here: ENTIRE_HOST=1)"
        pytest.fail(f"{message}\n{details}" if details else message, pytrace=False)
    pytest.skip(f"host: {reason}; ENTIRE_HOST=1 to require")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("host") is None:
        return
    try:
        entire_bin()
    except HostUnavailable as exc:
        unavailable(exc.reason)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest
) -> Generator[None, Any, Any]:
    try:
        return (yield)
    except HostUnavailable as exc:
        unavailable(exc.reason, exc.details)


@pytest.fixture(scope="session")
def plugins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin directory of every plugin, installed with ``uv tool install`` from freshly built wheels."""
    return plugin_bin(tmp_path_factory.mktemp("wheels"))


def _agent(nodeid: str) -> str:
    name = nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
    return name.removeprefix("test_host_").removesuffix(".py")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if "tests/host/test_host_" not in report.nodeid.replace("\\", "/") or "test_host_replay" in report.nodeid:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        kind = "xfailed" if hasattr(report, "wasxfail") else report.outcome
        _TALLY[_agent(report.nodeid)][kind] += 1


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _TALLY:
        return
    terminalreporter.section("host: checks per agent")
    terminalreporter.write_line(
        f"{'agent':<10} {'passed':>7} {'xfailed':>8} {'failed':>7} {'skipped':>8} {'total':>6}"
    )
    for agent, counts in sorted(_TALLY.items()):
        total = sum(counts.values())
        terminalreporter.write_line(
            f"{agent:<10} {counts['passed']:>7} {counts['xfailed']:>8} {counts['failed']:>7} {counts['skipped']:>8} {total:>6}"
        )
