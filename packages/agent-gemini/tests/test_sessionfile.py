"""prepare-transcript and read-transcript when Gemini's start-up clean-up deletes or truncates a session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from entire_agent_google_gemini import sessionfile, transcript
from entire_agent_google_gemini.agent import GeminiAgent
from entire_core.errors import AgentError
from gemini_fixtures import RUN1_CHAT, RUN3_RESUMED_CHAT, RUN3_STRAY_CHAT, RUN3_TURN1_CHAT


def copy_chat(source: Path, chats: Path) -> Path:
    chats.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy(source, chats / source.name))


def test_read_transcript_of_the_stray_file_is_the_real_session(tmp_path: Path, agent: GeminiAgent) -> None:
    chats = tmp_path / "chats"
    stray = copy_chat(RUN3_STRAY_CHAT, chats)
    copy_chat(RUN3_RESUMED_CHAT, chats)
    assert agent.read_transcript(str(stray)) == RUN3_RESUMED_CHAT.read_bytes()
    assert agent.get_transcript_position(str(stray)) == 22
    # alone, the stray file is what it is
    (chats / RUN3_RESUMED_CHAT.name).unlink()
    assert agent.read_transcript(str(stray)) == RUN3_STRAY_CHAT.read_bytes()


def test_a_deleted_session_is_put_back_from_the_copy_kept_at_turn_end(
    tmp_path: Path, agent: GeminiAgent, repo: Path
) -> None:
    chat = copy_chat(RUN1_CHAT, tmp_path / "chats")
    agent.prepare_transcript(str(chat))
    kept = repo / ".entire/tmp/entire-agent-google-gemini/transcripts" / chat.name
    assert kept.read_bytes() == RUN1_CHAT.read_bytes()
    chat.unlink()  # the next `gemini` start cleans it up
    assert agent.read_transcript(str(chat)) == RUN1_CHAT.read_bytes()
    agent.prepare_transcript(str(chat))  # the CLI needs the file to exist after this
    assert chat.read_bytes() == RUN1_CHAT.read_bytes()


def test_a_file_recreated_without_its_history_is_joined_to_the_copy(
    tmp_path: Path, agent: GeminiAgent
) -> None:
    # turn 1 ended and was kept; Gemini then deleted the file and a running Gemini appended turn 2's
    # lines to a new file of the same name (appendFileSync creates it), with no header
    chat = copy_chat(RUN3_TURN1_CHAT, tmp_path / "chats")
    agent.prepare_transcript(str(chat))
    turn2 = RUN3_RESUMED_CHAT.read_bytes()[len(RUN3_TURN1_CHAT.read_bytes()) :]
    chat.write_bytes(turn2)
    assert agent.read_transcript(str(chat)) == RUN3_RESUMED_CHAT.read_bytes()
    agent.prepare_transcript(str(chat))
    assert chat.read_bytes() == RUN3_RESUMED_CHAT.read_bytes()
    # lines already in the copy are not repeated when the copy was taken after the recreation
    agent.prepare_transcript(str(chat))
    chat.write_bytes(turn2 + b'{"$set":{"lastUpdated":"later"}}\n')
    joined = agent.read_transcript(str(chat))
    assert joined == RUN3_RESUMED_CHAT.read_bytes() + b'{"$set":{"lastUpdated":"later"}}\n'
    assert transcript.parse(joined).position == 23


def test_prepare_without_file_or_copy_fails_clearly(tmp_path: Path, agent: GeminiAgent) -> None:
    with pytest.raises(AgentError, match="does not exist"):
        agent.prepare_transcript(str(tmp_path / "session-2026-01-01T00-00-00000000.jsonl"))


def test_prepare_leaves_files_it_cannot_vouch_for_alone(
    tmp_path: Path, agent: GeminiAgent, repo: Path
) -> None:
    odd = tmp_path / "odd.json"
    odd.write_bytes(b"{}")
    agent.prepare_transcript(str(odd))
    assert odd.read_bytes() == b"{}"
    assert not (repo / ".entire").exists()


def test_stitch_finds_the_overlap_only_at_line_starts() -> None:
    kept = b'{"a":1}\nx{"b":2}\n{"b":2}\n'
    assert sessionfile.stitch(kept, b'{"b":2}\n{"c":3}\n') == b'{"a":1}\nx{"b":2}\n{"b":2}\n{"c":3}\n'
    assert sessionfile.stitch(b'{"a":1}\n', b'{"z":9}\n') == b'{"a":1}\n{"z":9}\n'
