"""The journal, the view and what is read from them, on the real Cline's session files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cline_fixtures import CAPTURES, Capture, calls
from entire_agent_cline_cli import journal, transcript
from entire_agent_cline_cli.agent import ClineCliAgent
from entire_core.protocol import AgentSession


@pytest.fixture(params=[c.version for c in CAPTURES])
def capture(request: pytest.FixtureRequest) -> Capture:
    return next(c for c in CAPTURES if c.version == request.param)


def test_the_committed_journals_are_what_sync_makes(capture: Capture, tmp_path: Path) -> None:
    for session in capture.session_of.values():
        made = tmp_path / f"{session}.jsonl"
        assert journal.sync(str(capture.messages(session)), str(made)) > 0
        assert made.read_bytes() == capture.journal(session).read_bytes()


def test_sync_appends_only_new_messages(tmp_path: Path) -> None:
    capture = CAPTURES[-1]
    session = capture.session_of["write hello please"]
    doc = json.loads(capture.messages(session).read_text())
    messages_file = tmp_path / "m.json"
    first = {**doc, "messages": doc["messages"][:1]}
    messages_file.write_text(json.dumps(first))
    target = tmp_path / "j.jsonl"
    assert journal.sync(str(messages_file), str(target)) == 1
    head = target.read_bytes()
    with open(target, "ab") as f:
        f.write(b'{"id":"torn')  # a sync killed mid-line
    messages_file.write_text(json.dumps(doc))
    assert journal.sync(str(messages_file), str(target)) == 4
    assert journal.sync(str(messages_file), str(target)) == 4
    data = target.read_bytes()
    # the same messages as the committed journal's (whose header also holds the manifest, absent here)
    assert (
        data.startswith(head)
        and data.splitlines()[1:] == capture.journal(session).read_bytes().splitlines()[1:]
    )
    messages_file.write_text("{ being rewritten")
    assert journal.sync(str(messages_file), str(target)) == 4
    assert target.read_bytes() == data


def test_restore_writes_clines_files_back_byte_for_byte(capture: Capture, tmp_path: Path) -> None:
    for session in capture.session_of.values():
        target = journal.restore(capture.journal(session).read_bytes(), str(tmp_path), session)
        assert Path(target).read_bytes() == capture.messages(session).read_bytes()
        manifest = json.loads((tmp_path / session / f"{session}.json").read_text())
        original = json.loads((capture.sessions / session / f"{session}.json").read_text())
        assert manifest == {**original, "messages_path": target}


def test_prompts_files_summary_and_tokens(capture: Capture) -> None:
    items = transcript.messages(
        capture.journal(capture.session_of["write hello please"]).read_bytes().splitlines()
    )
    assert transcript.prompts(items) == ["write hello please"]
    assert transcript.modified_files(items) == [f"{capture.repo}/hello.txt"]
    assert transcript.summary(items) == "Done: write hello please"
    usage = transcript.tokens(items).to_wire()
    assert {k: usage[k] for k in calls(0, 0)} == calls(1, 1)


def test_a_prompt_is_unwrapped_and_kept_as_typed() -> None:
    typed = {
        "role": "user",
        "content": [{"type": "text", "text": '<user_input mode="act">say <b>more</b> & more</user_input>'}],
    }
    assert transcript.prompt_of(typed) == "say <b>more</b> & more"
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": "x"}]}
    assert transcript.prompt_of(result) == ""


def test_a_subagents_files_and_tokens_count_with_its_turn(capture: Capture, tmp_path: Path) -> None:
    session = capture.session_of["use a subagent please"]
    data = tmp_path / "cline-data"
    shutil.copytree(capture.sessions, data / "sessions")
    repo = tmp_path / "repo"
    repo.mkdir()
    agent = ClineCliAgent(
        env={"HOME": str(tmp_path), "CLINE_DATA_DIR": str(data), "ENTIRE_REPO_ROOT": str(repo)}, cwd=str(repo)
    )
    ref = journal.path(str(repo), agent.name, session)
    journal.sync(str(capture.messages(session)), ref)
    raw = Path(ref).read_bytes()
    subagents = str(tmp_path / "views" / session / "subagents")
    assert agent.extract_all_modified_files(raw, 0, subagents) == [f"{capture.repo}/sub.txt"]
    total = agent.calculate_total_tokens(raw, 0, subagents)
    sub = total.subagent_tokens
    assert sub is not None
    for usage in (total, sub):
        wire = usage.to_wire()
        assert {k: wire[k] for k in calls(0, 0)} == calls(1, 1)
    assert agent.calculate_tokens(raw, 0).api_call_count == 2


def test_write_session_restores_and_the_view_goes_on(agent: ClineCliAgent, tmp_path: Path) -> None:
    capture = CAPTURES[-1]
    session = capture.session_of["just say hi"]
    data = capture.journal(session).read_bytes()
    sessions = tmp_path / "restored"
    agent.env["CLINE_SESSION_DATA_DIR"] = str(sessions)  # pyright: ignore[reportIndexIssue]
    ref = agent.resolve_session_file(agent.get_session_dir(agent.repo_root), session)
    agent.write_session(AgentSession(session_id=session, agent_name=agent.name, repo_path=agent.repo_root,
                                     session_ref=ref, native_data=data))  # fmt: skip
    assert (sessions / session / f"{session}.messages.json").read_bytes() == capture.messages(
        session
    ).read_bytes()
    assert agent.get_transcript_position(ref) == 3
    assert agent.extract_prompts(ref, 0) == ["just say hi"]
