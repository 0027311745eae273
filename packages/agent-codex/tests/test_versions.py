"""The support window: the contract kit's standard tests over ``versions.WINDOW``, and codex's own doctor lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from entire_agent_openai_codex import doctor
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_agent_openai_codex.versions import WINDOW
from entire_core.testing.window import SupportWindowContract


@pytest.mark.skipif(os.name == "nt", reason="a POSIX script stands in for codex")
@pytest.mark.parametrize(
    ("reported", "lines"),
    [
        ("codex-cli 0.120.0", ["FAIL  Codex CLI 0.120.0 at {codex} is older than 0.130.0 (supported: {window})",
                               "      fix: `npm install -g @openai/codex@{newest}`"]),
        ("codex-cli 0.130.0", ["ok    Codex CLI 0.130.0 at {codex} (tested; supported: {window})",
                               "WARN  Codex CLI 0.130.0 has no subagent hooks (they start at 0.139.0): a subagent's "
                               "work counts in its parent's turn",
                               "      fix: `npm install -g @openai/codex@{newest}`"]),
        ("codex-cli 0.150.0", ["ok    Codex CLI 0.150.0 at {codex} (supported: {window})"]),
        ("codex-cli 0.180.0", ["WARN  Codex CLI 0.180.0 at {codex} is newer than the newest tested version "
                               "(supported: {window})",
                               "      note: formats are read tolerantly, but this version has not been tested"]),
    ],
)  # fmt: skip
def test_doctor_checks_the_version_against_the_window(
    agent: OpenAICodexAgent, tmp_path: Path, reported: str, lines: list[str]
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    codex = bin_dir / "codex"
    codex.write_text(f"#!/bin/sh\necho '{reported}'\n")
    codex.chmod(0o755)
    agent.env["PATH"] = str(bin_dir)
    printed = doctor.diagnose(agent).lines()
    window = f"{WINDOW.oldest} to {WINDOW.newest}"
    expected = [line.format(window=window, newest=WINDOW.newest, codex=codex) for line in lines]
    assert printed[1 : 1 + len(expected)] == expected
    assert printed[1 + len(expected)] == f"ok    {agent.repo_root} is in a git repository"
    assert printed[2 + len(expected)].startswith("FAIL  the `entire` command is not on PATH")


class TestOpenAICodexWindow(SupportWindowContract):
    window = WINDOW
    agent_cls = OpenAICodexAgent
    package_dir = Path(__file__).parents[1]
    binary = "codex"
    version_line = "codex-cli {version}"
    hooks_installed = 8
