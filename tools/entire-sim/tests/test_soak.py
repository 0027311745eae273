"""Synthetic sessions from real records, and sessions far past 10 MiB replayed through the simulator.

The sizes here are what CI affords (tens of MB, a 1 MiB view budget so that views re-base every few
turns). The full runs (a 300 MB Codex session, a 100 MB Gemini session) are ``make soak``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from entire_sim.report import storage
from entire_sim.soak import Soak, parse_size
from entire_sim.synth import SYNTHS, Synth, aider_session, codex_session, deliver, gemini_session

MiB = 1 << 20


def _generate(synth: Synth) -> list[tuple[str, dict[str, Any]]]:
    return [(step.hook, json.loads(step.payload)) for step in synth.steps()]


def _records(path: Path) -> list[dict[str, Any]]:
    with open(path, "rb") as f:
        return [json.loads(line) for line in f]


def test_codex_synth_is_real_shaped(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    synth = codex_session(tmp_path, repo, 3 * MiB, big_output=MiB, turn_bytes=96 << 10)
    steps = _generate(synth)
    records = _records(synth.native)
    kinds = [(r["type"], r["payload"].get("type")) for r in records]
    assert kinds[0] == ("session_meta", None)
    assert records[0]["payload"]["id"] == synth.id
    assert kinds.count(("event_msg", "task_complete")) == synth.turns
    compacted = [r for r in records if r["type"] == "compacted"]
    assert compacted and all(r["payload"]["replacement_history"] for r in compacted)
    assert any(
        ('"input_image"' in json.dumps(r) and "data:image/png;base64," in json.dumps(r)) for r in records
    )
    assert max(len(json.dumps(r)) for r in records) > MiB  # the huge tool output
    totals = [
        r["payload"]["info"]["total_token_usage"]["input_tokens"]
        for r in records
        if r["payload"].get("type") == "token_count"
    ]
    assert totals == sorted(totals)  # cumulative
    hooks = [(hook, payload.get("source")) for hook, payload in steps]
    assert hooks[0] == ("session-start", "startup")
    assert ("session-start", "resume") in hooks and ("session-start", "compact") in hooks
    assert [h for h, _ in hooks].count("stop") == synth.turns
    for hook, payload in steps:
        assert payload["session_id"] == synth.id and payload["transcript_path"] == str(synth.native)
        if hook in ("user-prompt-submit", "stop"):
            assert payload["turn_id"]
    assert synth.expected[1]["files"] and synth.expected[1]["tokens"]["api_call_count"] > 0


def test_gemini_synth_restates_history_at_resumes(tmp_path: Path) -> None:
    synth = gemini_session(
        tmp_path, tmp_path / "repo", 2 * MiB, big_output=0, turn_bytes=64 << 10, resume_every=4
    )
    steps = _generate(synth)
    records = _records(synth.native)
    headers = [r for r in records if "sessionId" in r and "kind" in r]
    resumes = [p for h, p in steps if h == "session-start" and p["source"] == "resume"]
    assert len(headers) == len(resumes) + 1 and resumes
    checkpoints = [r["$set"]["messages"] for r in records if "messages" in r.get("$set", {})]
    full = [c for c in checkpoints if len(c) > 1]  # the others hold only the <session_context>
    assert len(full) == len(resumes) >= 2
    assert len(full[-1]) > len(full[0]) > 1  # the whole history so far, growing
    ids = {r["id"] for r in records if "id" in r and "type" in r}
    assert {m["id"] for m in full[-1][1:]} <= ids
    calls = [c for r in records for c in r.get("toolCalls", [])]
    assert {c["name"] for c in calls} >= {"write_file", "run_shell_command"}
    assert [h for h, _ in steps].count("after-agent") == synth.turns


def test_aider_synth_is_launcher_shaped(tmp_path: Path) -> None:
    """Sessions appended to one history file, each fired as the launcher and the notification do."""
    synth = aider_session(
        tmp_path, tmp_path / "repo", 2 * MiB, big_output=MiB, turn_bytes=96 << 10, resume_every=4
    )
    steps = _generate(synth)
    text = synth.native.read_text(encoding="utf-8")
    headers = text.count("\n# aider chat started at ")
    launches = [p for h, p in steps if h == "session-start"]
    exits = [p for h, p in steps if p.get("exited")]
    assert headers == len(launches) == len(exits) >= 3
    assert all(p["source"] == "launcher" and p["start_offset"] >= 0 for p in launches)
    assert len({p["session"] for p in launches}) == len(launches)
    ends = [p for h, p in steps if h == "turn-end" and not p.get("exited")]
    assert len(ends) == synth.turns and all(p["source"] == "notification" for p in ends)
    assert [h for h, _ in steps].count("turn-start") == synth.turns
    assert text.count("\n#### Turn ") == synth.turns and "> Restored previous conversation history." in text
    assert max(len(line) for line in text.split("\n")) > MiB  # the huge ``> `` tool line
    assert all(p["history_file"] == str(synth.native) for _, p in steps)
    assert text.count("> Applied edit to ") == sum(len(e["files"]) for e in synth.expected.values())


def test_aider_deliver_drains_the_queue(tmp_path: Path) -> None:
    """A first notification mid-session stands for SessionStart, TurnStart and TurnEnd: three calls."""
    from entire_sim.demo import make_repo
    from entire_sim.simulator import Simulator

    repo = tmp_path / "repo"
    make_repo(repo)
    synth = aider_session(tmp_path, repo, 256 << 10, big_output=0, turn_bytes=64 << 10)
    # After the first notification's step, the history holds a whole turn that no hook has seen.
    step = next(step for step in synth.steps() if step.hook == "turn-end")
    sim = Simulator(
        repo,
        state_dir=tmp_path / "state",
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path / "home")},
    )
    sim.enable("aider")
    records = deliver(
        sim, "aider", "turn-end", json.dumps({**json.loads(step.payload), "session": ""}).encode()
    )
    assert [r["event_name"] for r in records] == ["SessionStart", "TurnStart", "TurnEnd"]
    assert [r["hook"] for r in records] == ["turn-end", "turn-start", "turn-end"]


@pytest.mark.parametrize("agent", sorted(SYNTHS))
def test_synth_is_deterministic(tmp_path: Path, agent: str) -> None:
    digests: list[str] = []
    for _ in range(2):
        root = tmp_path / "root"
        synth = SYNTHS[agent](root, root / "repo", MiB, big_output=256 << 10, turn_bytes=64 << 10)
        payloads = b"".join(step.payload for step in synth.steps())
        digests.append(hashlib.sha256(synth.native.read_bytes() + payloads).hexdigest())
        shutil.rmtree(root)
    assert digests[0] == digests[1]


def test_synth_streams_in_bounded_memory(tmp_path: Path) -> None:
    """128 MiB of Gemini (whose resume checkpoints restate everything) with a small resident set."""
    script = (
        "import sys\nfrom pathlib import Path\nfrom entire_sim.synth import gemini_session\n"
        "root = Path(sys.argv[1])\n"
        "s = gemini_session(root, root / 'repo', 128 << 20, big_output=8 << 20, resume_every=6)\n"
        "for _ in s.steps(): pass\n"
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0].split()[1]\n"
        "print(s.size(), hwm)  # VmHWM: this process's own peak (ru_maxrss counts the parent's at fork)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, check=True, text=True
    )
    size, rss_kib = map(int, out.stdout.split())
    assert size >= 128 << 20
    assert rss_kib < 100 << 10, f"peak RSS {rss_kib >> 10} MiB while writing {size >> 20} MiB"


def test_storage_summary() -> None:
    flat = [{"kind": "turn", "saved": True, "transcript_bytes": 100 + i % 3} for i in range(30)]
    growing = [{"kind": "turn", "saved": True, "transcript_bytes": 100 * (i + 1)} for i in range(30)]
    assert storage(flat)["growth"] < 1.1
    assert storage(growing)["growth"] > 1.4
    assert storage(flat)["total_bytes"] == sum(c["transcript_bytes"] for c in flat)
    assert storage([]) == {
        "checkpoints": 0,
        "total_bytes": 0,
        "median_bytes": 0,
        "max_bytes": 0,
        "growth": 1.0,
    }
    assert parse_size("300M") == 300 * MiB and parse_size("1G") == 1 << 30 and parse_size("512") == 512


def _has_view(agent: str) -> bool:
    from entire_core.agent import Agent

    if agent == "aider":
        return True  # the view is the session's slice of the history file (entire_agent_aider.view)
    if agent == "google-gemini":
        from entire_agent_google_gemini.agent import GeminiAgent as cls
    else:
        from entire_agent_openai_codex.agent import OpenAICodexAgent as cls
    return cls.view_format is not Agent.view_format


@pytest.mark.parametrize(
    ("agent", "size", "turn_bytes"),
    [
        ("openai-codex", 32 * MiB, 512 << 10),
        ("google-gemini", 40 * MiB, 384 << 10),
        ("aider", 32 * MiB, 384 << 10),  # a wrapped view: a markdown line takes some 35 bytes more
    ],
)
def test_soak_past_the_cap(tmp_path: Path, agent: str, size: int, turn_bytes: int) -> None:
    """Every TurnEnd of a session far past 10 MiB completes, stores a bounded view, loses nothing."""
    if not _has_view(agent):
        pytest.skip(f"{agent} keeps no view yet")
    budget = MiB
    soak = Soak(agent, tmp_path, size, budget=budget, turn_bytes=turn_bytes, resume_every=5, compact_every=4)
    summary = soak.run().summary()
    assert summary["native_bytes"] >= size
    assert summary["violations"] == [] and summary["failed_hooks"] == []
    assert summary["turn_ends_completed"] == summary["turns"] == soak.synth.turns
    assert summary["mismatches"] == []
    stored = summary["storage"]
    assert stored["checkpoints"] == summary["turns"]
    assert stored["max_bytes"] <= budget, "a checkpoint stored more than the view budget"
    assert stored["growth"] < 1.3, f"stored size per turn grows with the session: {stored}"
    raw = sum(t["native_bytes"] for t in soak.turns)
    assert stored["total_bytes"] < raw / 10
