"""The commit side of the CLI: condensation reads the recorded file, cuts it by line, and keeps a line count;
a commit during a turn is condensed with the session active."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from entire_sim.lifecycle import builtin_owner, count_lines, slice_from_line
from sim_helpers import git, launcher, make_sim, sample

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


def test_commit_stores_the_cli_line_count_not_the_plugins_position(repo: Path, bin_dir: Path) -> None:
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
    # the CLI counts the lines itself: it never asks the plugin's position at a commit (the sample answers bytes)
    assert not [v for v in sim.violations() if v["subcommand"] == "get-transcript-position"]

    transcript.write_bytes(b"".join(lines))
    second = sim.commit("sample", "s-1")
    assert second is not None
    assert second["checkpoint_transcript_start"] == 3
    assert second["scoped_bytes"] == len(b"".join(lines[3:]))
    calls = [c for c in sim.hook_calls()]  # commits are not hooks
    assert all(r["hook"] in ("prompt", "stop") for r in calls)


def test_a_commit_during_a_turn_is_condensed_with_the_session_active(repo: Path, bin_dir: Path) -> None:
    """The simulator has no git hooks: a commit the agent made during its turn is condensed at the next
    hook, as v0.10.3's post-commit does for an active session, and the turn's end then saves nothing."""
    sample(bin_dir)
    sim = make_sim(repo, bin_dir)
    sim.enable("sample")
    transcript = repo.parent / "s-2.jsonl"
    ref = str(transcript)
    transcript.write_bytes(b'{"type":"meta"}\n')  # the turn starts at line 1
    sim.hook("sample", "prompt", f'{{"session_id":"s-2","transcript_path":"{ref}","prompt":"hi"}}'.encode())
    transcript.write_bytes(
        b'{"type":"meta"}\n{"type":"user","text":"hi"}\n{"type":"tool","path":"hello.txt"}\n'
    )
    (repo / "hello.txt").write_text("hello\n")
    git(repo, "add", "hello.txt")
    git(repo, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "the agent's commit")
    ended = sim.hook("sample", "stop", f'{{"session_id":"s-2","transcript_path":"{ref}"}}'.encode())

    asked = [c["subcommand"] for c in ended["calls"]]
    assert asked[:6] == ["parse-hook", "prepare-transcript", "extract-modified-files", "prepare-transcript",
                         "prepare-transcript", "extract-modified-files"]  # fmt: skip
    commit, turn = sim.checkpoints()
    assert (commit["kind"], commit["mid_turn"], commit["files"]) == ("commit", True, ["hello.txt"])
    assert (turn["kind"], turn["files"], turn["tokens"]) == ("turn", [], None)  # committed: nothing to save
    assert turn["transcript_files"] == ["hello.txt"]
    assert turn["prompt_txt"] == "hi"  # prompt.txt was cleared by the condensation, then extracted again
    assert "get-transcript-position" in asked[-1:]  # after commits in the turn: where the turn ended


def test_a_commit_without_the_trailer_is_not_condensed(repo: Path, bin_dir: Path) -> None:
    """A commit during a turn that names no session (Gemini CLI's shell runs git without Entire's hooks)
    is condensed neither then nor at the next hook; at the turn's end the file it committed, as HEAD holds
    it, no longer counts, and the turn saves the rest (the host's record of Gemini's session B)."""
    sample(bin_dir)
    sim = make_sim(repo, bin_dir)
    sim.enable("sample")
    transcript = repo.parent / "s-3.jsonl"
    ref = str(transcript)
    transcript.write_bytes(b'{"type":"meta"}\n')
    sim.hook("sample", "prompt", f'{{"session_id":"s-3","transcript_path":"{ref}","prompt":"hi"}}'.encode())
    transcript.write_bytes(b'{"type":"meta"}\n{"type":"user","text":"hi"}\n{"type":"tool","path":"mid.txt"}\n'
                           b'{"type":"tool","path":"late.txt"}\n')  # fmt: skip
    (repo / "mid.txt").write_text("mid\n")
    git(repo, "add", "mid.txt")
    git(repo, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "agent: mid.txt")
    sim.commit_without_trailer()
    (repo / "late.txt").write_text("late\n")
    ended = sim.hook("sample", "stop", f'{{"session_id":"s-3","transcript_path":"{ref}"}}'.encode())

    asked = [c["subcommand"] for c in ended["calls"]]
    assert asked[:2] == ["parse-hook", "prepare-transcript"] and asked.count("prepare-transcript") == 1
    [turn] = sim.checkpoints()  # no condensation
    assert (turn["kind"], turn["transcript_files"]) == ("turn", ["mid.txt", "late.txt"])
    assert turn["files"] == ["late.txt"]  # mid.txt is in HEAD as the work tree holds it
    session = next(s for s in sim.sessions() if s["session_id"] == "s-3")
    assert session["files_touched"] == ["late.txt"]


def test_hooks_on_a_built_in_agents_transcript_are_skipped(repo: Path, bin_dir: Path, tmp_path: Path) -> None:
    rollout = tmp_path / "codex-home/sessions/2026/01/01/rollout-child.jsonl"
    assert builtin_owner(str(rollout), str(repo), {"CODEX_HOME": str(tmp_path / "codex-home")}) == "codex"
    gemini = Path("/h/.gemini/tmp", hashlib.sha256(str(repo).encode()).hexdigest(), "chats/s.json")
    assert builtin_owner(str(gemini), str(repo), {"HOME": "/h"}) == "gemini"
    assert (
        builtin_owner("/h/.gemini/tmp/repo/chats/s.json", str(repo), {"HOME": "/h"}) == ""
    )  # 0.39+: by name
    assert builtin_owner("", str(repo), {}) == ""


def test_a_turn_start_of_0_is_read_as_none() -> None:
    """v0.10.3 ``lifecycle.go`` ``resolveTranscriptOffset``: ``TranscriptOffset > 0``, else
    ``CheckpointTranscriptStart > 0``, else 0."""
    from entire_sim.lifecycle import resolve_transcript_offset

    assert resolve_transcript_offset(7, {"checkpoint_transcript_start": 3}) == 7
    assert resolve_transcript_offset(0, {"checkpoint_transcript_start": 3}) == 3
    assert resolve_transcript_offset(0, {"checkpoint_transcript_start": 0}) == 0
    assert resolve_transcript_offset(0, {}) == 0


QWEN = Path(__file__).parents[3] / "packages/agent-qwen-code/tests/data/v0.24.4"


def test_qwens_first_commit_turn_keeps_its_prompt(repo: Path, bin_dir: Path, tmp_path: Path) -> None:
    """Qwen Code writes its chat after the first prompt's hook: the turn's start is the view's first
    line. The agent commits during that turn, leaves a file for the user, who commits after the turn:
    the user's checkpoint holds the turn's prompt (the host's B-end and C1 of ``tests/host``). Before the
    view's ``LEAD`` the turn started at line 0, which the host reads as none: it read the turn from the
    agent's commit on, found no prompt, and stored none."""
    import json

    pytest.importorskip("entire_agent_qwen_code")
    from entire_sim import gitrefs

    launcher(bin_dir, "qwen-code", "import sys\nfrom entire_agent_qwen_code import main\nsys.exit(main())")
    sim = make_sim(repo, bin_dir)
    captured = next((QWEN / "chats").glob("*.jsonl")).read_bytes().split(b"\n")
    session = next((QWEN / "chats").glob("*.jsonl")).stem
    chat = tmp_path / "chats" / f"{session}.jsonl"  # not written yet
    chat.parent.mkdir()

    def payload(name: str, **extra: str) -> bytes:
        return json.dumps({"session_id": session, "transcript_path": str(chat), "cwd": str(repo),
                           "hook_event_name": name, **extra}).encode()  # fmt: skip

    prompt = json.loads(captured[0])["message"]["parts"][0]["text"]
    sim.hook("qwen-code", "user-prompt-submit", payload("UserPromptSubmit", prompt=prompt))
    chat.write_bytes(b"".join(line + b"\n" for line in captured[:4]))  # the prompt, then a call
    (repo / "first.txt").write_text("the agent's\n")
    git(repo, "add", "first.txt")
    git(repo, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "agent: first.txt")
    (repo / "after.txt").write_text("left for the user\n")
    chat.write_bytes(b"".join(line + b"\n" for line in captured[:8]))  # the turn's end: its answer
    sim.hook("qwen-code", "stop", payload("Stop"))
    checkpoint = sim.commit("qwen-code", session)  # the user's commit

    assert checkpoint is not None and checkpoint["files"] == ["after.txt"]
    assert gitrefs.read(str(repo), checkpoint["checkpoint_id"], "0/prompt.txt") == prompt.encode()
    agents, turn, _ = (c for c in sim.checkpoints() if c["session_id"] == session)
    assert (agents["kind"], agents["mid_turn"], turn["turn_offset"]) == ("commit", True, 1)
