"""The support window is in one place: the README's table and the end-to-end tests read ``versions.WINDOW``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from entire_agent_openai_codex import doctor
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_agent_openai_codex.versions import WINDOW
from entire_core.errors import AgentError

README = Path(__file__).parents[1] / "README.md"


def test_the_readme_table_is_the_window() -> None:
    text = README.read_text(encoding="utf-8")
    assert WINDOW.markdown_table() in text
    assert " ".join(text.split()).count(f"Supported: {WINDOW.describe()}.") == 1


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


@pytest.mark.skipif(os.name == "nt", reason="a POSIX script stands in for codex")
def test_install_refuses_a_codex_older_than_the_window(agent: OpenAICodexAgent, tmp_path: Path) -> None:
    codex = tmp_path / "bin" / "codex"
    codex.parent.mkdir()
    codex.write_text("#!/bin/sh\necho 'codex-cli 0.129.0'\n")
    codex.chmod(0o755)
    agent.env["PATH"] = str(codex.parent)
    with pytest.raises(
        AgentError, match=r"^hooks not installed: Codex CLI 0\.129\.0 is older than the supported window; "
    ):
        agent.install_hooks()
    assert not Path(agent.repo_root, ".codex").exists()
    codex.write_text(f"#!/bin/sh\necho 'codex-cli {WINDOW.oldest}'\n")
    assert agent.install_hooks() == 8
