"""tools/coverage_check.py holds each package on its own, from ``coverage json`` output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "coverage_check.py"
PACKAGES = {
    "entire_core": "packages/entire-core/src",
    "entire_agent_aider": "packages/agent-aider/src",
    "entire_agent_openai_codex": "packages/agent-codex/src",
    "entire_agent_google_gemini": "packages/agent-gemini/src",
    "entire_sim": "tools/entire-sim/src",
    "entire_agent_qwen_code": "packages/agent-qwen-code/src",
    "entire_agent_cline_cli": "packages/agent-cline-cli/src",
}


def report(tmp_path: Path, percents: dict[str, tuple[int, int]]) -> Path:
    """A coverage json report: per package, one file with (covered lines, statements) and 10 branches, 5 taken."""
    files = {
        f"{PACKAGES[name]}/{name}/mod.py": {"summary": {"covered_lines": covered, "num_statements": total,
                                                        "covered_branches": 5, "num_branches": 10}}
        for name, (covered, total) in percents.items()
    }  # fmt: skip
    files["tests/test_x.py"] = {"summary": {"covered_lines": 0, "num_statements": 100}}  # not a package
    path = tmp_path / "coverage.json"
    path.write_text(json.dumps({"files": files}))
    return path


def check(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), str(path), *args], capture_output=True, text=True, check=False
    )


def test_every_package_at_the_minimum_passes(tmp_path: Path) -> None:
    done = check(report(tmp_path, dict.fromkeys(PACKAGES, (95, 100))))
    assert done.returncode == 0, done.stderr
    assert "coverage  90.9%  entire_agent_aider (100/110 lines and branches; held at 90%)" in done.stdout


def test_one_package_below_fails_however_good_the_rest(tmp_path: Path) -> None:
    totals = dict.fromkeys(PACKAGES, (10_000, 10_000))
    totals["entire_agent_aider"] = (85, 100)  # 90 of 110 with branches: 81.8%
    done = check(report(tmp_path, totals))
    assert done.returncode == 1
    assert done.stderr == "coverage_check: entire_agent_aider: 81.8% is below 90%\n"


def test_an_unmeasured_package_fails_and_report_only_is_not_held(tmp_path: Path) -> None:
    totals = dict.fromkeys(PACKAGES, (95, 100))
    del totals["entire_agent_google_gemini"]
    totals["entire_sim"] = (50, 100)
    done = check(report(tmp_path, totals), "--report-only", "entire_sim")
    assert done.returncode == 1
    assert (
        done.stderr
        == "coverage_check: entire_agent_google_gemini: not measured (missing from [tool.coverage.run] source?)\n"
    )
    assert "entire_sim (55/110 lines and branches; report only)" in done.stdout
