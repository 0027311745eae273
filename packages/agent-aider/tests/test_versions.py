"""The support window: the contract kit's standard tests over ``versions.WINDOW``, and aider's own doctor lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from entire_agent_aider import doctor
from entire_agent_aider.agent import AiderAgent
from entire_agent_aider.versions import WINDOW
from entire_core.testing.contract import SupportWindowContract


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


class TestAiderWindow(SupportWindowContract):
    window = WINDOW
    agent_cls = AiderAgent
    package_dir = Path(__file__).parents[1]
    binary = "aider"
    version_line = "aider {version}"
    hooks_installed = 1
