"""``make faults``, a fixed-seed subset (in ``make test``), and each check shown to catch the defect it is for.

The harness runs as ``make faults`` runs it, in a process of its own: real plugin processes killed at
fault points in a bundled session. The sabotage runs put a ``sitecustomize`` first on the plugins'
``PYTHONPATH`` that breaks core on purpose (``tools/faults/sabotage/``), and the check that must catch
it fails, while the same point without sabotage holds.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HARNESS = Path(__file__).resolve().parents[1] / "faults.py"
SABOTAGE = HARNESS.parent / "sabotage"


def _faults(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, str(HARNESS), "--work", str(tmp_path / "work"), "--json", str(report),
                           *args], capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    assert report.exists(), done.stdout + done.stderr
    return done.returncode, {a["agent"]: a for a in json.loads(report.read_text())["agents"]}, done.stdout


@pytest.mark.parametrize(("agent", "kills"), [("qwen-code", 10), ("aider", 3)])
def test_a_fixed_seed_subset_holds(tmp_path: Path, agent: str, kills: int) -> None:
    code, agents, out = _faults(tmp_path, "--agent", agent, "--kills", str(kills), "--seed", "37")
    assert code == 0, out
    assert "faults: seed 37 (repeat with --seed 37)" in out
    report = agents[agent]
    assert report["kills"] == kills and report["points"] > 50, report
    failed = {
        kind: n for kind, n in report["failures"].items() if n and kind not in ("host-fallback", "known")
    }
    assert failed == {} and report["reading_writes"] == [], out


@pytest.mark.parametrize(
    ("sabotage", "agent", "point", "kind"),
    [
        ("torn", "qwen-code", "1:parse-hook:write.written", "torn"),  # atomic_write written in place
        ("no-sweep", "qwen-code", "1:parse-hook:write.written", "leftover"),  # a killed writer's file stays
        ("pop-early", "aider", "3:parse-hook:answer.begin", "events"),  # Aider's queue as it was: lost event
        # generate-text killed after the agent answered: the watchdog leaves the scratch directory
        ("no-scratch-cleanup", "qwen-code", "12:generate-text:guard.child-done", "leftover"),
        # generate-text killed while the agent runs: the watchdog leaves it running
        ("no-group-kill", "qwen-code", "12:generate-text:guard.child-started", "process"),
    ],
)
def test_each_check_catches_its_defect(
    tmp_path: Path, sabotage: str, agent: str, point: str, kind: str
) -> None:
    args = ["--agent", agent, "--point", point, "--signal", "KILL", "--seed", "1"]
    code, agents, out = _faults(tmp_path, *args)
    assert code == 0 and not any(agents[agent]["failures"].values()), out
    code, agents, out = _faults(tmp_path, *args, "--pythonpath", str(SABOTAGE / sabotage))
    assert code == 1 and agents[agent]["failures"][kind] == 1, out


def test_a_fixed_seed_slice_of_the_contention_and_resource_cases_holds(tmp_path: Path) -> None:
    cases = [
        "concurrent-hook",
        "stale-lock",
        "view-truncated",
        "unreadable",
        "sessions-one-repo",
        "two-agents",
    ]
    code, agents, out = _faults(tmp_path, "--agent", "qwen-code", "--kills", "0", "--cases", "1",
                                *[a for c in cases for a in ("--case", c)], "--seed", "37")  # fmt: skip
    assert code == 0, out
    report = agents["qwen-code"]["cases"]
    assert sorted(report) == sorted(cases) and all(r["runs"] == 1 for r in report.values()), out
    assert all(not set(r["failures"]) - {"known"} for r in report.values()), out


@pytest.mark.parametrize(
    ("sabotage", "case", "seed", "kinds"),
    [
        ("no-takeover", "stale-lock", "1", {"hook"}),  # a lock left by a killed holder is never taken over
        ("no-discard", "full-disk", "2", {"leftover"}),  # a write that failed leaves its temporary file
        # one view per repository, not per session: the second session's checkpoint has the first's lines
        ("one-view-per-repo", "sessions-one-repo", "37", {"checkpoint"}),
        # disabling one agent clears every agent's install records (and scratch): the other agent (Aider), still
        # installed, cannot undo its install (its config file stays; lost events too, when the timing is such)
        ("disable-sweeps-all", "two-agents", "37", {"agent-files"}),
    ],
)
def test_each_case_catches_its_defect(
    tmp_path: Path, sabotage: str, case: str, seed: str, kinds: set[str]
) -> None:
    args = ["--agent", "qwen-code", "--kills", "0", "--cases", "1", "--case", case, "--seed", seed]
    if seed != "37":  # seed 37's unsabotaged run: the fixed-seed slice above
        code, agents, out = _faults(tmp_path, *args)
        assert code == 0 and not agents["qwen-code"]["cases"][case]["failures"], out
    code, agents, out = _faults(tmp_path, *args, "--pythonpath", str(SABOTAGE / sabotage))
    failed = agents["qwen-code"]["cases"][case]["failures"]
    assert code == 1 and set(failed) & kinds and all(failed[k] == 1 for k in set(failed) & kinds), out


def test_kills_beyond_the_points_take_each_point_with_both_signals_before_any_pair_twice() -> None:
    sys.path.insert(0, str(HARNESS.parent))
    import faults

    points = [(i, "parse-hook", i, "write.begin", "") for i in range(7)]
    for kills in (3, 7, 10, 14, 30):
        pairs = faults.sample(points, kills, random.Random(f"37:{kills}"))
        assert len(pairs) == min(kills, 14) and len(set(pairs)) == len(pairs)  # never a pair twice
        assert len({p for p, _ in pairs[:7]}) == min(kills, 7)  # every point once before any twice
        assert {s for _, s in pairs} <= set(faults.SIGNALS)
    assert faults.sample(points, 10, random.Random(1)) == faults.sample(points, 10, random.Random(1))
    assert len(faults.sample(points, 10, random.Random(1), "KILL")) == 7  # one signal: one pair per point
