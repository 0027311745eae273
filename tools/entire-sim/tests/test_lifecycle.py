"""A plugin that follows the protocol, driven through the real ``entire`` shim: every call sequence."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from entire_sim import Simulator
from sim_helpers import make_sim, sample

SESSION = Path(__file__).parents[3] / "packages/entire-core/tests/data/sample-session.jsonl"


def _fire(sim: Simulator, repo: Path, hook: str, **payload: str) -> None:
    env = sim.env()
    env["PATH"] = f"{sim.bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"
    result = subprocess.run(["entire", "hooks", "sample", hook], input=json.dumps(payload).encode(), cwd=repo,
                            env=env, capture_output=True, timeout=60, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr


def test_full_lifecycle(repo: Path, bin_dir: Path) -> None:
    sample(bin_dir)
    sim = make_sim(repo, bin_dir)
    sim.install_shim(bin_dir)
    assert sim.enable("sample") == 7
    session_dir = repo / ".entire/tmp/entire-agent-sample"
    session_dir.mkdir(parents=True, exist_ok=True)
    transcript = session_dir / "s-1.jsonl"
    lines = SESSION.read_bytes().splitlines(keepends=True)
    ref = str(transcript)

    _fire(sim, repo, "session-start", session_id="s-1", transcript_path=ref)
    transcript.write_bytes(b"")
    _fire(sim, repo, "prompt", session_id="s-1", transcript_path=ref, prompt="add a greeting file")
    transcript.write_bytes(b"".join(lines[:3]))
    (repo / "hello.txt").write_text("hello\n")
    _fire(sim, repo, "stop", session_id="s-1", transcript_path=ref)
    _fire(sim, repo, "prompt", session_id="s-1", transcript_path=ref, prompt="now rename it")
    transcript.write_bytes(b"".join(lines))
    (repo / "hello.txt").rename(repo / "greeting.txt")
    _fire(sim, repo, "stop", session_id="s-1", transcript_path=ref)
    _fire(sim, repo, "session-end", session_id="s-1", transcript_path=ref)

    assert sim.violations() == []
    names = [r["event_name"] for r in sim.hook_calls()]
    assert names == ["SessionStart", "TurnStart", "TurnEnd", "TurnStart", "TurnEnd", "SessionEnd"]
    first, second = sim.checkpoints()
    assert (first["prompt"], first["files"], first["turn_offset"]) == (
        "add a greeting file",
        ["hello.txt"],
        0,
    )
    assert first["tokens"]["input_tokens"] == 100 and first["tokens"]["api_call_count"] == 1
    assert second["prompt"] == "now rename it"
    assert second["transcript_files"] == ["greeting.txt"]  # only the second turn's transcript range
    assert second["turn_offset"] == len(b"".join(lines[:3]))
    assert second["tokens"]["input_tokens"] == 100 and second["tokens"]["cache_read_tokens"] == 100
    calls = [c["subcommand"] for c in sim.hook_calls()[2]["calls"]]
    assert calls == ["info", "parse-hook", "prepare-transcript", "read-transcript", "extract-all-modified-files",
                     "calculate-total-tokens"]  # fmt: skip

    transcript.unlink()
    result = sim.resume("sample", "s-1", chunk_size=100)
    assert result == {"session_ref": ref, "command": "sample resume s-1", "restored_bytes": len(SESSION.read_bytes()),
                      "chunks": 7}  # fmt: skip
    assert transcript.read_bytes() == SESSION.read_bytes()
    sim.disable("sample")
    assert not (repo / ".sample").exists()
    assert sim.violations() == []
