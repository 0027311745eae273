"""The support window is in one place: the README's table and the end-to-end tests read ``versions.WINDOW``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from entire_agent_aider import doctor
from entire_agent_aider.agent import AiderAgent
from entire_agent_aider.versions import WINDOW
from entire_core.errors import AgentError

README = Path(__file__).parents[1] / "README.md"


def test_the_readme_table_is_the_window() -> None:
    text = README.read_text(encoding="utf-8")
    assert WINDOW.markdown_table() in text
    assert " ".join(text.split()).count(f"Supported: {WINDOW.describe()}.") == 1


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


@pytest.mark.skipif(os.name == "nt", reason="a POSIX script stands in for aider")
def test_install_refuses_an_aider_older_than_the_window(tmp_path: Path) -> None:
    aider = tmp_path / "bin" / "aider"
    aider.parent.mkdir()
    aider.write_text("#!/bin/sh\necho 'aider 0.75.2'\n")
    aider.chmod(0o755)
    env = {"ENTIRE_REPO_ROOT": str(tmp_path), "HOME": str(tmp_path), "PATH": str(aider.parent)}
    agent = AiderAgent(env=env, cwd=str(tmp_path))
    with pytest.raises(
        AgentError, match=r"^hooks not installed: Aider 0\.75\.2 is older than the supported window; "
    ):
        agent.install_hooks()
    assert not (tmp_path / ".aider.conf.yml").exists()
    aider.write_text(f"#!/bin/sh\necho 'aider {WINDOW.oldest}'\n")
    assert agent.install_hooks() == 1
