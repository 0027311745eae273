"""Shared fixtures of entire-core's tests: the sample agent as an installed-looking executable."""

from __future__ import annotations

from pathlib import Path

import pytest
from entire_core.testing.runner import Sandbox, ScriptRunner, write_launcher


@pytest.fixture(scope="session")
def sample_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An ``entire-agent-sample`` executable, as pip would install it."""
    return write_launcher(tmp_path_factory.mktemp("bin"), "sample", "entire_core.testing.sample_agent:main")


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path)


@pytest.fixture
def sample(sample_script: Path, sandbox: Sandbox) -> ScriptRunner:
    """Runs the sample agent black-box in a fresh sandbox."""
    return ScriptRunner(str(sample_script), sandbox)
