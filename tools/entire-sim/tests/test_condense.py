"""The commit side of the CLI: condensation reads the recorded file, cuts it by line, and keeps a line count."""

from __future__ import annotations

from pathlib import Path

from entire_sim.lifecycle import count_lines, slice_from_line
from sim_helpers import make_sim, sample

SESSION = Path(__file__).parents[3] / "packages/entire-core/tests/data/sample-session.jsonl"


def test_line_cut_and_count_follow_the_cli() -> None:
    data = b'{"a":1}\n{"b":2}\n{"c":3}\n\n'
    assert count_lines(data) == 3  # trailing blank lines are not counted
    assert count_lines(b"") == 0
    assert count_lines(b'{"a":1}') == 1
    assert slice_from_line(data, 0) == data
    assert slice_from_line(data, 2) == b'{"c":3}\n\n'
    assert slice_from_line(data, 3) == b"\n"
    assert slice_from_line(data, 4) == b""  # past the end: nothing, never an error
    assert slice_from_line(b'{"one":"line"}', 1) == b""
    assert slice_from_line(data, 999) == b""


def test_commit_stores_the_cli_line_count_and_flags_a_byte_position(repo: Path, bin_dir: Path) -> None:
    sample(bin_dir)
    sim = make_sim(repo, bin_dir)
    sim.enable("sample")
    session_dir = repo / ".entire/tmp/entire-agent-sample"
    session_dir.mkdir(parents=True, exist_ok=True)
    transcript = session_dir / "s-1.jsonl"
    lines = SESSION.read_bytes().splitlines(keepends=True)
    ref = str(transcript)
    transcript.write_bytes(b"")
    sim.hook("sample", "prompt", f'{{"session_id":"s-1","transcript_path":"{ref}","prompt":"hi"}}'.encode())
    transcript.write_bytes(b"".join(lines[:3]))
    (repo / "hello.txt").write_text("hello\n")
    sim.hook("sample", "stop", f'{{"session_id":"s-1","transcript_path":"{ref}"}}'.encode())

    first = sim.commit("sample", "s-1")
    assert first is not None
    assert (first["checkpoint_transcript_start"], first["transcript_lines"]) == (0, 3)
    assert first["scoped_bytes"] == len(b"".join(lines[:3]))
    session = next(s for s in sim.sessions() if s["session_id"] == "s-1")
    assert session["checkpoint_transcript_start"] == 3  # the CLI's count, not the plugin's position
    warnings = [v for v in sim.violations() if v["subcommand"] == "get-transcript-position"]
    assert warnings and "3 lines" in warnings[0]["message"]  # the sample agent answers bytes

    transcript.write_bytes(b"".join(lines))
    second = sim.commit("sample", "s-1")
    assert second is not None
    assert second["checkpoint_transcript_start"] == 3
    assert second["scoped_bytes"] == len(b"".join(lines[3:]))
    calls = [c for c in sim.hook_calls()]  # commits are not hooks
    assert all(r["hook"] in ("prompt", "stop") for r in calls)
