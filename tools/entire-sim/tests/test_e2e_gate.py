"""The e2e rule (``entire_sim.pytest_e2e``): skip with one line on a laptop, fail where required.

Each case runs pytest in a subprocess on a small test file, with PATH holding only what the case
gives it, so ``unshare`` is really absent (or a stand-in that fails) as on macOS.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = """
import pytest
from entire_sim import e2e

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def agent():
    return e2e.npm_tool("@example/agent", "1.0.0", "agent")


def test_needs_the_namespace():
    pass


def test_needs_the_agent(agent):
    pass


def test_plain():
    pass
"""
PLAIN = "def test_not_e2e():\n    pass\n"


def run(tmp_path: Path, bin_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_agent_e2e.py").write_text(TESTS)
    (tmp_path / "test_unit.py").write_text(PLAIN)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    base = {k: v for k, v in os.environ.items() if k not in ("CI", "ENTIRE_E2E", "PYTEST_XDIST_WORKER")}
    base.update({"PATH": str(bin_dir), "XDG_CACHE_HOME": str(tmp_path / "cache"), **env})
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "entire_sim.pytest_e2e", "-p", "no:cacheprovider", "-rsf",
         "-q", "-p", "no:xdist", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, env=base, timeout=120, check=False,
    )  # fmt: skip


def fake_unshare(bin_dir: Path, stderr: str) -> None:
    script = bin_dir / "unshare"
    script.write_text(f"#!/bin/sh\necho '{stderr}' >&2\nexit 1\n")
    script.chmod(0o755)


@pytest.fixture
def empty_bin(tmp_path: Path) -> Path:
    path = tmp_path / "bin"
    path.mkdir()
    return path


def test_without_unshare_e2e_tests_skip_with_one_line(tmp_path: Path, empty_bin: Path) -> None:
    done = run(tmp_path, empty_bin)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 3 skipped" in done.stdout
    reasons = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(reasons) == 1 and reasons[0].endswith(
        "e2e: needs unshare -n (Linux network namespaces); set ENTIRE_E2E=1 or CI=true to require"
    ), done.stdout


@pytest.mark.parametrize("required", [{"CI": "true"}, {"ENTIRE_E2E": "1"}])
def test_where_required_they_fail_instead(tmp_path: Path, empty_bin: Path, required: dict[str, str]) -> None:
    done = run(tmp_path, empty_bin, **required)
    assert done.returncode == 1
    assert "1 passed, 3 errors" in done.stdout or "3 failed, 1 passed" in done.stdout, done.stdout
    assert (
        "e2e: needs unshare -n (Linux network namespaces) (required here: CI=true or ENTIRE_E2E=1)"
        in done.stdout
    )
    assert "skipped" not in done.stdout


def test_a_namespace_that_cannot_be_made_names_the_reason(tmp_path: Path, empty_bin: Path) -> None:
    fake_unshare(empty_bin, "unshare: unshare failed: Operation not permitted")
    done = run(tmp_path, empty_bin)
    assert "1 passed, 3 skipped" in done.stdout, done.stdout
    assert (
        "unshare failed: Operation not permitted; run as root; set ENTIRE_E2E=1 or CI=true to require"
        in done.stdout
    )


def test_a_missing_npm_skips_or_fails_the_agents_tests(tmp_path: Path, empty_bin: Path) -> None:
    # a namespace that works (a stand-in unshare that runs the command), but no npm on PATH
    script = empty_bin / "unshare"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    skipped = run(tmp_path, empty_bin)
    assert "3 passed, 1 skipped" in skipped.stdout, skipped.stdout
    assert (
        "e2e: needs npm to install @example/agent@1.0.0; set ENTIRE_E2E=1 or CI=true to require"
        in skipped.stdout
    )
    failed = run(tmp_path, empty_bin, ENTIRE_E2E="1")
    assert failed.returncode == 1 and "3 passed, 1 error" in failed.stdout, failed.stdout
    assert "e2e: needs npm to install @example/agent@1.0.0 (required here" in failed.stdout
