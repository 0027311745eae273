"""Settings shared by every test in the workspace.

Hypothesis explores new examples on every run locally; in CI (HYPOTHESIS_PROFILE=ci, set by .ci/run)
it is derandomized, so a commit that passed once passes again, and no example deadline applies on a
busy machine. A failure found locally is kept in .hypothesis/ and replayed until it is fixed.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
