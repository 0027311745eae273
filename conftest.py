"""Settings and plugins shared by every test in the workspace.

Hypothesis explores new examples on every run locally; in CI (HYPOTHESIS_PROFILE=ci, set by .ci/run)
it is derandomized, so a commit that passed once passes again, and no example deadline applies on a
busy machine. A failure found locally is kept in .hypothesis/ and replayed until it is fixed.

The shared fixtures (a sandboxed agent, a forced platform, import checks) come from
``entire_core.testing.pytest_plugin``; whether a real-agent test (marker ``e2e``) runs, skips or
fails is decided in one place, ``entire_sim.pytest_e2e``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import configuration, settings

pytest_plugins = ["entire_core.testing.pytest_plugin", "entire_sim.pytest_e2e"]

# Each test runs in a throwaway working directory (entire_core.testing.pytest_plugin): keep the
# example database in the checkout, where a failure found locally is replayed.
configuration.set_hypothesis_home_dir(Path(__file__).parent / ".hypothesis")
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture(scope="session")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of this checkout to run commands in as a contributor would, at its root (read it, never edit it)."""
    from checkout import copy_checkout

    return copy_checkout(tmp_path_factory.mktemp("checkout"))
