"""The one rule for real-agent end-to-end tests (marker ``e2e``): skip with a reason, or fail.

A test marked ``e2e`` needs a loopback-only network namespace (``unshare -n``, Linux) and the pinned
agent installed from a package registry. Where either is missing, and the tests are not required,
the test is skipped with one line saying why and how to require it (a laptop, macOS); where they are
required (``CI=true`` or ``ENTIRE_E2E=1``, ``entire_sim.e2e.required``) it fails instead, with the
evidence. The namespace is checked before each ``e2e`` test (once per session); the helpers of
``entire_sim.e2e`` raise ``Unavailable`` for everything else, in fixtures or in tests.

Loaded by the workspace's root conftest.py (``pytest_plugins``), or ``-p entire_sim.pytest_e2e``.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, NoReturn

import pytest

from entire_sim import e2e

_namespace_problem: list[str | None] = []
"""The namespace check's answer, made once per session (it starts a process)."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: drives a real agent binary against a scripted model server on 127.0.0.1"
    )


def unavailable(reason: str, details: str = "") -> NoReturn:
    """Skip the current test with a one-line reason, or fail it where end-to-end tests are required."""
    if e2e.required():
        message = f"e2e: {reason} (required here: CI=true or ENTIRE_E2E=1)"
        pytest.fail(f"{message}\n{details}" if details else message, pytrace=False)
    pytest.skip(f"e2e: {reason}; {e2e.REQUIRE_HINT}")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("e2e") is None:
        return
    if not _namespace_problem:
        _namespace_problem.append(e2e.loopback_namespace_problem())
    if _namespace_problem[0]:
        unavailable(_namespace_problem[0])


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest
) -> Generator[None, Any, Any]:
    try:
        return (yield)
    except e2e.Unavailable as exc:
        unavailable(exc.reason, exc.details)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    try:
        return (yield)
    except e2e.Unavailable as exc:
        unavailable(exc.reason, exc.details)
