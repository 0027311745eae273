"""``faults.py --host`` (``host.py``): what can be held without the real host, then a fixed-seed run under it.

The host runs (marker ``host``) need ``ENTIRE_BIN``; without it they skip with one line (``ENTIRE_HOST=1``:
they fail instead), as every ``host`` test does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parents[1]
HARNESS = HERE / "faults.py"
sys.path.insert(0, str(HERE))
import host  # noqa: E402

WORKSPACE = HERE.parents[1]


def _without_host() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in (host.BIN_ENV, "ENTIRE_HOST")}


def test_host_mode_refuses_in_one_line_without_entire_bin(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(HARNESS), "--host", "--agent", "qwen-code", "--work", str(tmp_path)],
                          capture_output=True, text=True, env=_without_host(), timeout=60, check=False)  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (2, "", host.REFUSED + "\n")


def test_host_mode_refuses_a_path_that_is_not_an_executable(tmp_path: Path) -> None:
    assert host.entire_bin({host.BIN_ENV: str(tmp_path)}) is None
    assert host.entire_bin({}) is None
    assert host.refused(0) == host.REFUSED or host.entire_bin() is not None


def test_a_host_session_without_a_host_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(host.BIN_ENV, raising=False)
    manifest = WORKSPACE / "packages" / "agent-qwen-code" / "demo" / "replay.json"
    with pytest.raises(RuntimeError, match="ENTIRE_BIN"):
        host.HostSession(manifest, tmp_path / "sandbox")


def test_the_user_commits_after_each_turn_end_and_nowhere_else() -> None:
    steps: list[dict[str, Any]] = [{"enable": True}, {"hook": "user-prompt-submit"}, {"files": {"a": "b"}},
                                   {"hook": "stop"}, {"hook": "session-end"}, {"hook": "stop"}, {"disable": True}]  # fmt: skip
    got = host.with_commits("qwen-code", steps)
    assert [next(iter(s)) for s in got] == ["enable", "hook", "files", "hook", "commit", "hook", "hook", "commit",
                                            "disable"]  # fmt: skip
    assert host.with_commits("aider", steps) == steps  # Aider's turn ends are turn-end, not stop
    assert set(host.TURN_ENDS) == {
        json.loads(m.read_text())["agent"] for m in WORKSPACE.glob("packages/*/demo/replay.json")
    }


def test_a_checkpoint_record_leaves_out_ids_and_times_only() -> None:
    metadata = {"checkpoint_id": "01ABC", "session_id": "s", "created_at": "t", "files_touched": ["a"],
                "initial_attribution": {"calculated_at": "t", "agent_lines": 1}, "sessions": [{"turn_id": "x", "n": 1}]}  # fmt: skip
    assert host._without(metadata, host.VOLATILE) == {  # pyright: ignore[reportPrivateUsage]
        "session_id": "s", "files_touched": ["a"], "initial_attribution": {"agent_lines": 1}, "sessions": [{"n": 1}]
    }  # fmt: skip


def _under_host(tmp_path: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    if host.entire_bin() is None:
        if os.environ.get("ENTIRE_HOST") == "1":
            pytest.fail(f"host: {host.REFUSED} (required here: ENTIRE_HOST=1)", pytrace=False)
        pytest.skip(f"host: {host.REFUSED}; ENTIRE_HOST=1 to require")
    report = tmp_path / "report.json"
    done = subprocess.run([sys.executable, str(HARNESS), "--host", "--work", str(tmp_path / "work"), "--json",
                           str(report), *args], capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
    assert report.exists(), done.stdout + done.stderr
    return done.returncode, {a["agent"]: a for a in json.loads(report.read_text())["agents"]}, done.stdout


@pytest.mark.host
def test_a_fixed_seed_run_under_the_host_holds(tmp_path: Path) -> None:
    code, agents, out = _under_host(tmp_path, "--agent", "qwen-code", "--kills", "3", "--seed", "37")
    assert code == 0 and "under the real host" in out, out
    assert agents["qwen-code"]["kills"] == 3 and agents["qwen-code"]["points"] > 100, out


@pytest.mark.host
def test_under_the_host_the_events_check_catches_a_lost_event(tmp_path: Path) -> None:
    """Aider's queue popped before the answer is out (``sabotage/pop-early``): the host never hears the event."""
    args = ["--agent", "aider", "--point", "3:parse-hook:answer.begin", "--signal", "KILL", "--seed", "1"]
    code, agents, out = _under_host(tmp_path, *args, "--pythonpath", str(HERE / "sabotage" / "pop-early"))
    assert code == 1 and agents["aider"]["failures"]["events"] == 1, out


def test_info_killed_at_disable_is_the_hosts_fallback_only_when_the_host_exited_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(host.BIN_ENV, "/bin/true")  # any executable: nothing is run here
    session = host.HostSession(WORKSPACE / "packages" / "agent-qwen-code" / "demo" / "replay.json", tmp_path)
    disable = len(session.steps) - 1
    assert "disable" in session.steps[disable] and {"commit": "stop"} in session.steps

    def problems() -> dict[str, list[str]]:
        return {
            "agent-files": ["repo/.qwen/settings.json"],
            "leftover": ["installs.json"],
            "checkpoint": [],
            "host-fallback": [],
        }

    found = problems()
    session.host_fallback((disable, "info", 1, "answer.begin", ""), {"failed": ""}, found)
    assert found["agent-files"] == found["leftover"] == [] and len(found["host-fallback"]) == 2
    assert "discovery.go:182-188" in found["host-fallback"][0]
    for point, attempt in [((disable, "uninstall-hooks", 1, "answer.begin", ""), {"failed": ""}),
                           ((disable, "info", 1, "answer.begin", ""), {"failed": "exit 1"}),
                           ((1, "info", 1, "answer.begin", ""), {"failed": ""})]:  # fmt: skip
        kept = problems()
        session.host_fallback(point, attempt, kept)
        assert kept == problems()


def test_a_checkpoint_carrying_the_hosts_fallback_later_is_the_fallback_and_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(host.BIN_ENV, "/bin/true")
    session = host.HostSession(WORKSPACE / "packages" / "agent-aider" / "demo" / "replay.json", tmp_path)
    differs = " (0/prompt.txt: '2d768d6195f7ed86' vs 'aaa3ab19eb283de0')"
    found = {"host-fallback": [f"step 58: 20e24ef7(None ) instead of 59d9212f(None ){differs}"],
             "checkpoint": [f"step 68: e95938d5(None ) where the unfaulted run has a2fb5e57(None ) of step 68{differs}",
                            "step 68: e95938d5(None ) where the unfaulted run has a2fb5e57(None ) of step 68 "
                            "(0/prompt.txt: '2d768d6195f7ed86' vs 'ffffffffffffffff')", "lost: a2fb5e57(None ) of step 68"]}  # fmt: skip
    session.host_fallback((58, "extract-prompts", 2, "lock.release", ""), {"failed": ""}, found)
    assert len(found["host-fallback"]) == 2 and found["host-fallback"][1].startswith("carried: step 68")
    assert len(found["checkpoint"]) == 2 and "ffff" in found["checkpoint"][0]
