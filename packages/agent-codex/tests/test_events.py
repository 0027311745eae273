"""events.parse beyond the captured payloads: ephemeral sessions, subagents, the protocol's HookInput."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from codex_fixtures import CHILD, EXPECTED_EVENTS, HOOKS, PROMPT_CHILD, ROLLOUT_CHILD, S1, S2, hook_of
from entire_agent_openai_codex import state, transcript
from entire_agent_openai_codex.agent import OpenAICodexAgent


def payload(name: str) -> dict[str, object]:
    return json.loads((HOOKS / name).read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED_EVENTS))
def test_every_captured_payload(agent: OpenAICodexAgent, name: str) -> None:
    hook = hook_of(HOOKS / name)
    event = agent.parse_hook(hook, payload(name)) if hook in agent.hook_names else None
    assert (event.to_wire() if event else None) == EXPECTED_EVENTS[name]


def test_stop_announces_the_turn_for_prepare_transcript(agent: OpenAICodexAgent) -> None:
    stop = payload("07_s1_Stop.json")
    agent.parse_hook("stop", stop)
    assert state.pending_turn_end(agent, str(stop["transcript_path"])) == {
        "transcript": str(stop["transcript_path"]),
        "turn_id": "01a22a67-c703-7ad1-b754-1aeb546066ae",
        "message": "Done. I created hello.txt, updated README.md and wrote shell.txt.",
    }


def test_stop_without_writable_scratch_is_still_its_event(agent: OpenAICodexAgent) -> None:
    """The announcement is a hint: where core cannot write it, the hook answers and prepare just does not wait."""
    blocked = Path(agent.repo_root, ".entire", "tmp")
    blocked.parent.mkdir(parents=True, exist_ok=True)
    blocked.write_text("not a directory")
    stop = payload("07_s1_Stop.json")
    event = agent.parse_hook("stop", stop)
    assert event is not None and event.to_wire() == EXPECTED_EVENTS["07_s1_Stop.json"]
    assert state.pending_turn_end(agent, str(stop["transcript_path"])) == {}
    state.clear_turn_end(agent, str(stop["transcript_path"]))


def test_subagent_stop_finds_the_childs_rollout_and_task(agent: OpenAICodexAgent) -> None:
    day = Path(agent.env["CODEX_HOME"], "sessions", "2026", "11", "30")
    day.mkdir(parents=True)
    shutil.copy(ROLLOUT_CHILD, day / ROLLOUT_CHILD.name)
    stop = payload("27_s2-child_SubagentStop.json")
    del stop["agent_transcript_path"]  # found by the child's id instead
    event = agent.parse_hook("subagent-stop", stop)
    assert event is not None
    assert event.to_wire() == {
        "type": 7, "session_id": S2, "session_ref": str(day / ROLLOUT_CHILD.name), "model": "gpt-5.5",
        "tool_use_id": CHILD, "subagent_id": CHILD, "subagent_type": "default", "task_description": PROMPT_CHILD,
    }  # fmt: skip


def test_subagent_stop_without_the_childs_rollout_names_no_transcript(agent: OpenAICodexAgent) -> None:
    stop = payload("27_s2-child_SubagentStop.json")
    del stop["agent_transcript_path"]
    event = agent.parse_hook("subagent-stop", stop)
    assert event is not None and event.session_ref == ""  # never the parent's: it would claim all its files


def test_an_ephemeral_session_gets_a_stand_in_rollout(agent: OpenAICodexAgent) -> None:
    prompt = payload("02_s1_UserPromptSubmit.json") | {"transcript_path": None}
    stop = payload("07_s1_Stop.json") | {"transcript_path": None}
    start = agent.parse_hook("user-prompt-submit", prompt)
    assert start is not None and start.prompt == prompt["prompt"]
    ref = start.session_ref
    assert ref == str(
        Path(agent.repo_root, ".entire", "tmp", "entire-agent-openai-codex", f"ephemeral-{S1}.jsonl")
    )
    end = agent.parse_hook("stop", stop)
    assert end is not None and end.type == 3 and end.session_ref == ref
    assert agent.extract_prompts(ref, 0) == [prompt["prompt"]]
    assert agent.extract_summary(ref) == stop["last_assistant_message"]
    assert transcript.session_meta(transcript.head(ref))["id"] == S1
    agent.prepare_transcript(ref)  # the stand-in is complete: no waiting, no error


def test_the_compliance_suites_hook_input_shape(agent: OpenAICodexAgent) -> None:
    hook_input = {"hook_type": "user-prompt-submit", "session_id": "test-session-hook", "session_ref": "/x/t.jsonl",
                  "timestamp": "2026-01-01T00:00:00Z", "user_prompt": "test prompt"}  # fmt: skip
    event = agent.parse_hook("user-prompt-submit", hook_input)
    assert event is not None
    assert event.to_wire() == {"type": 2, "session_id": "test-session-hook", "session_ref": "/x/t.jsonl",
                               "prompt": "test prompt", "timestamp": "2026-01-01T00:00:00Z"}  # fmt: skip


@pytest.mark.parametrize("bad", [None, [], "text", {}, {"session_id": ""}, {"session_id": 5}])
def test_payloads_without_a_session_mean_nothing(agent: OpenAICodexAgent, bad: object) -> None:
    for hook in agent.hook_names:
        assert agent.parse_hook(hook, bad) is None


def test_compaction_inside_a_subagent_is_not_the_sessions(agent: OpenAICodexAgent) -> None:
    post = payload("10_s1_PostCompact.json") | {"agent_id": CHILD}
    assert agent.parse_hook("post-compact", post) is None
