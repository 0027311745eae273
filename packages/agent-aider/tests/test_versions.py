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
    ("reported", "kind", "text"),
    [
        ("aider 0.75.0", "problems", "Aider 0.75.0 is older than the supported window; supported: {window}; "
                                     "upgrade: `python -m pip install --upgrade aider-chat=={newest}` ({aider})"),
        ("aider 0.86.2", "facts", "Aider 0.86.2 (tested); supported: {window} ({aider})"),
        ("aider 0.87.0", "facts", "Aider 0.87.0 is newer than the newest tested version; supported: {window} ({aider})"),
    ],
)  # fmt: skip
def test_doctor_checks_the_version_against_the_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reported: str, kind: str, text: str
) -> None:
    aider = tmp_path / "aider"
    aider.write_text(f"#!/bin/sh\necho '{reported}'\n")
    aider.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    found: dict[str, list[str]] = {"facts": [], "problems": []}
    doctor.version_check(found["facts"], found["problems"])
    line = text.format(window=WINDOW.describe(), newest=WINDOW.newest, aider=aider)
    assert found == {"facts": [], "problems": [], kind: [line]}


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
