"""Running an agent's binary: its output, and clean errors for timeouts and binaries that cannot start."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from entire_core.errors import AgentError
from entire_core.process import run_tool


def test_output_and_exit_status(tmp_path: Path) -> None:
    code = "import sys; sys.stdout.write(sys.stdin.read().upper()); sys.exit(3)"
    done = run_tool(
        [sys.executable, "-c", code], name="t", cwd=str(tmp_path), env={}, timeout=30, stdin=b"hi"
    )
    assert (done.returncode, done.stdout) == (3, b"HI")
    silent = run_tool([sys.executable, "-c", "import sys; print(repr(sys.stdin.read()))"], name="t",
                      cwd=str(tmp_path), env={}, timeout=30)  # fmt: skip
    assert silent.stdout.strip() == b"''"  # no stdin at all: never the plugin's own


def test_timeout_and_missing_binary_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match="slow did not answer within 1 s"):
        run_tool([sys.executable, "-c", "import time; time.sleep(30)"], name="slow", cwd=str(tmp_path), env={},
                 timeout=1)  # fmt: skip
    with pytest.raises(AgentError, match="cannot run nope: "):
        run_tool([str(tmp_path / "nope")], name="nope", cwd=str(tmp_path), env={}, timeout=5)
