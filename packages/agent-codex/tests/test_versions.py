"""The support window: the contract kit's standard tests over ``versions.WINDOW``, and codex's own doctor lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from entire_agent_openai_codex import doctor
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_agent_openai_codex.versions import WINDOW
from entire_core.testing.contract import SupportWindowContract


@pytest.mark.skipif(os.name == "nt", reason="a POSIX script stands in for codex")
@pytest.mark.parametrize(
    ("reported", "line"),
    [
        ("codex-cli 0.120.0", "  [!!] Codex CLI 0.120.0 is older than the supported window; supported: {window}; "
                              "upgrade: `npm install -g @openai/codex@{newest}`, at {codex}"),
        ("codex-cli 0.130.0", "  [ok] Codex CLI 0.130.0 (tested); supported: {window}, at {codex}"),
        ("codex-cli 0.150.0", "  [ok] Codex CLI 0.150.0; supported: {window}, at {codex}"),
        ("codex-cli 0.180.0", "  [ok] Codex CLI 0.180.0 is newer than the newest tested version; supported: {window}, "
                              "at {codex}"),
    ],
)  # fmt: skip
def test_doctor_checks_the_version_against_the_window(
    agent: OpenAICodexAgent, tmp_path: Path, reported: str, line: str
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    codex = bin_dir / "codex"
    codex.write_text(f"#!/bin/sh\necho '{reported}'\n")
    codex.chmod(0o755)
    agent.env["PATH"] = str(bin_dir)
    report = doctor.diagnose(agent)
    expected = line.format(window=WINDOW.describe(), newest=WINDOW.newest, codex=codex)
    assert report.lines[2] == expected
    below = reported == "codex-cli 0.120.0"
    assert (f"upgrade Codex: `npm install -g @openai/codex@{WINDOW.newest}`" in report.fixes) == below
    notes = {"codex-cli 0.130.0": "no subagent hooks before 0.139.0", "codex-cli 0.180.0": "not been tested"}
    assert (notes[reported] in report.lines[3]) if reported in notes else report.lines[3].startswith("  [")


class TestOpenAICodexWindow(SupportWindowContract):
    window = WINDOW
    agent_cls = OpenAICodexAgent
    package_dir = Path(__file__).parents[1]
    binary = "codex"
    version_line = "codex-cli {version}"
    hooks_installed = 8
