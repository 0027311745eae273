"""Shared fixtures of entire-core's tests: the sample agent as an installed-looking executable.

``sandbox``, ``launcher`` and the other shared fixtures come from ``entire_core.testing.pytest_plugin``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from entire_core.testing.runner import Sandbox, ScriptRunner


@pytest.fixture(scope="session")
def sample_script(launcher: Callable[[str, str], Path]) -> Path:
    """An ``entire-agent-sample`` executable, as pip would install it."""
    return launcher("sample", "entire_core.testing.sample_agent:main")


@pytest.fixture
def sample(sample_script: Path, sandbox: Sandbox) -> ScriptRunner:
    """Runs the sample agent black-box in a fresh sandbox."""
    return ScriptRunner(str(sample_script), sandbox)
