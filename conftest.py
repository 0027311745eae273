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

from hypothesis import settings

pytest_plugins = ["entire_core.testing.pytest_plugin", "entire_sim.pytest_e2e"]

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
