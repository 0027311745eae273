"""The support window: the contract kit's standard tests over ``versions.WINDOW``, and aider's own doctor lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from entire_agent_aider import doctor
from entire_agent_aider.agent import AiderAgent
from entire_agent_aider.versions import WINDOW
from entire_core.testing.window import SupportWindowContract


@pytest.mark.skipif(os.name == "nt", reason="a POSIX script stands in for aider")
@pytest.mark.parametrize(
    ("reported", "status", "text", "fix"),
    [
        (None, "FAIL", "aider is not on PATH: Aider is not installed",
         "`python -m pip install --upgrade aider-chat=={newest}`"),
        ("aider 0.75.0", "FAIL", "Aider 0.75.0 at {aider} is older than {oldest} (supported: {window})",
         "`python -m pip install --upgrade aider-chat=={newest}`"),
        ("aider 0.86.2", "ok", "Aider 0.86.2 at {aider} (tested; supported: {window})", None),
        ("aider 0.87.0", "WARN", "Aider 0.87.0 at {aider} is newer than the newest tested version (supported: {window})",
         None),
    ],
)  # fmt: skip
def test_doctor_checks_the_version_against_the_window(
    tmp_path: Path, reported: str | None, status: str, text: str, fix: str | None
) -> None:
    aider = tmp_path / "aider"
    if reported is not None:
        aider.write_text(f"#!/bin/sh\necho '{reported}'\n")
        aider.chmod(0o755)
    env = {"ENTIRE_REPO_ROOT": str(tmp_path), "HOME": str(tmp_path), "PATH": str(tmp_path)}
    report = doctor.diagnose(AiderAgent(env=env, cwd=str(tmp_path)))
    values = {
        "window": f"{WINDOW.oldest} to {WINDOW.newest}",
        "oldest": WINDOW.oldest,
        "newest": WINDOW.newest,
    }
    first = report.checks[0]
    assert (first.status, first.what, first.fix) == (
        status,
        text.format(aider=aider, **values),
        fix and fix.format(**values),
    )
    if reported is None:  # Aider missing is a failure, never "everything looks right"
        assert report.exit_code == 1 and report.render().startswith(
            f"entire-agent-aider doctor: {tmp_path}\nFAIL"
        )


class TestAiderWindow(SupportWindowContract):
    window = WINDOW
    agent_cls = AiderAgent
    package_dir = Path(__file__).parents[1]
    binary = "aider"
    version_line = "aider {version}"
    hooks_installed = 1
