"""Rollout parsing on the real captures, exactly, and on the variants other Codex releases and models write."""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Mapping
from pathlib import Path

import pytest
from codex_fixtures import (
    CAPTURE_REPO,
    CHILD,
    END1,
    END2,
    END_CHILD,
    PROMPT1,
    PROMPT2,
    ROLLOUT1,
    ROLLOUT2,
    ROLLOUT_CHILD,
    S2,
    SUMMARY1,
    TURN1_BYTE,
    TURN1_END,
)
from entire_agent_openai_codex import file_changes, messages, subagents, tokens, turn_end
from entire_agent_openai_codex import transcript as t
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_core.types import TokenUsage


def agent_for(repo: str, **env: str) -> OpenAICodexAgent:
    return OpenAICodexAgent(env={"ENTIRE_REPO_ROOT": repo, "HOME": "/nonexistent", **env}, cwd="/")


def line(kind: str, payload: Mapping[str, object]) -> bytes:
    return json.dumps({"timestamp": "2026-11-30T03:00:00.000Z", "type": kind, "payload": payload}).encode()


def meta(thread: str = "t-1", cwd: str = "/work/repo") -> bytes:
    return line("session_meta", {"id": thread, "cwd": cwd, "base_instructions": {"text": "x" * 100}})


def rollout(tmp_path: Path, *lines: bytes) -> Path:
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(item + b"\n" for item in lines))
    return path


# -- the captures, with the capture's repository as the repository ----------------------------------------


def test_modified_files_are_repo_relative_and_per_turn() -> None:
    agent = agent_for(CAPTURE_REPO)
    assert agent.extract_modified_files(str(ROLLOUT1), 0) == (
        ["README.md", "hello.txt", "second.txt", "shell.txt"],
        END1,
    )
    assert agent.extract_modified_files(str(ROLLOUT1), TURN1_END) == (["second.txt", "shell.txt"], END1)
    assert agent.extract_modified_files(str(ROLLOUT1), END1) == ([], END1)
    assert agent.extract_modified_files(str(ROLLOUT2), 0) == ([], END2)  # the parent's own edits: none
    assert agent.extract_modified_files(str(ROLLOUT_CHILD), 0) == (["child.txt"], END_CHILD)


def test_all_modified_files_include_the_subagents(tmp_path: Path) -> None:
    agent = agent_for(CAPTURE_REPO, CODEX_HOME=str(tmp_path / "codex"))
    data = ROLLOUT2.read_bytes()
    assert agent.extract_all_modified_files(data, 0, "") == []  # the child's rollout is nowhere to be found
    day = tmp_path / "codex" / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    shutil.copy(ROLLOUT_CHILD, day)  # found from the UUIDv7 date of the child's id
    assert agent.extract_all_modified_files(data, 0, "") == ["child.txt"]
    assert agent.extract_all_modified_files(data, END2, "") == []  # spawned before the offset


def test_prompts_leave_out_injected_context() -> None:
    lines, _ = t.read_range(str(ROLLOUT1), 0)
    assert messages.user_prompts(lines) == [PROMPT1, PROMPT2]
    # Only the model-visible messages, as the oldest hook-era releases write: still no injected context.
    visible = [raw for raw in lines if b'"item_completed"' not in raw]
    assert messages.user_prompts(visible) == [PROMPT1, PROMPT2]
    parent, _ = t.read_range(str(ROLLOUT2), 0)
    assert messages.user_prompts([raw for raw in parent if b'"item_completed"' not in raw]) == [
        "SPAWN a subagent that creates child.txt, wait for it, then report"
    ]  # and no <subagent_notification>


@pytest.mark.parametrize(
    "text",
    [
        "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>",
        "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>",
        "<user_instructions>x</user_instructions>",
        "<skill>\n<name>x</name>\n</skill>",
        '<subagent_notification>\n{"agent_path":"x"}\n</subagent_notification>',
        "<turn_aborted>\nstopped\n</turn_aborted>",
        '<hook_prompt hook_run_id="1">context</hook_prompt>',
    ],
)
def test_injected_context(text: str) -> None:
    assert messages.is_injected(text)
    assert not messages.is_injected("please fix <environment_context> handling")


def test_summary_is_the_last_assistant_message(tmp_path: Path) -> None:
    assert messages.summary(str(ROLLOUT1)) == SUMMARY1
    message = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "final words"}],
    }
    path = rollout(tmp_path, meta(), line("response_item", message))
    assert messages.summary(str(path)) == "final words"
    with path.open("ab") as f:
        f.write(
            b'{"type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type"'
        )
    assert messages.summary(str(path)) == "final words"  # a line still being written is not read
    assert messages.summary(str(rollout(tmp_path, meta()))) is None


def test_tokens_are_deltas_of_the_cumulative_counters() -> None:
    data = ROLLOUT1.read_bytes()
    assert tokens.token_usage(data, 0) == TokenUsage(9000, 0, 3000, 306, 6)
    assert tokens.token_usage(data, TURN1_BYTE) == TokenUsage(4500, 0, 1500, 153, 3)
    assert tokens.token_usage(data, len(data)) == TokenUsage()
    assert tokens.token_usage(data, TURN1_BYTE + 1) == TokenUsage()  # not at a line start: a stale offset
    # Without token_usage_record lines (older releases): the token_count snapshots give the same numbers,
    # their repeats at turn starts not counted as model calls.
    older = b"".join(
        raw + b"\n" for raw in data.split(b"\n")[:-1] if b'"type":"token_usage_record"' not in raw
    )
    offset = older.index(b'"type":"task_started"', older.index(b'"last_agent_message"'))
    offset = older.rindex(b"\n", 0, offset) + 1
    assert tokens.token_usage(older, 0) == TokenUsage(9000, 0, 3000, 306, 6)
    assert tokens.token_usage(older, offset) == TokenUsage(4500, 0, 1500, 153, 3)


def test_cache_writes_are_not_input_and_other_threads_records_do_not_count() -> None:
    usage = {
        "input_tokens": 1000,
        "cached_input_tokens": 600,
        "cache_write_input_tokens": 300,
        "output_tokens": 50,
    }
    own = line("token_usage_record", {"thread_id": "t-1", "usage": usage})
    other = line("token_usage_record", {"thread_id": "parent", "usage": usage})
    data = b"\n".join([meta(), other, own]) + b"\n"
    assert tokens.token_usage(data, 0) == TokenUsage(100, 300, 600, 50, 1)


def test_subagent_tokens_are_nested(tmp_path: Path) -> None:
    agent = agent_for(CAPTURE_REPO, CODEX_HOME=str(tmp_path / "codex"))
    near = ROLLOUT2.parent / S2 / "subagents"  # the CLI's <dir of the rollout>/<session>/subagents
    total = agent.calculate_total_tokens(ROLLOUT2.read_bytes(), 0, str(near))
    assert total == TokenUsage(4500, 0, 1500, 153, 3, subagent_tokens=TokenUsage(2250, 0, 750, 101, 2))
    assert subagents.spawned_threads(t.read_range(str(ROLLOUT2), 0)[0]) == [CHILD]


# -- patch variants ------------------------------------------------------------------------------------------

ENVELOPE = "*** Begin Patch\n*** Add File: a.txt\n+a\n*** Update File: b.txt\n*** Move to: sub/c.txt\n@@\n-x\n+y\n*** Delete File: d.txt\n*** End Patch\n"


@pytest.mark.parametrize(
    "call",
    [
        {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c1", "input": ENVELOPE},
        {"type": "function_call", "name": "apply_patch", "call_id": "c1", "arguments": json.dumps({"input": ENVELOPE})},
        {"type": "function_call", "name": "shell", "call_id": "c1",
         "arguments": json.dumps({"command": ["apply_patch", ENVELOPE]})},
        {"type": "function_call", "name": "exec_command", "call_id": "c1",
         "arguments": json.dumps({"cmd": f"apply_patch <<'EOF'\n{ENVELOPE}EOF\n"})},
    ],
)  # fmt: skip
def test_every_patch_envelope_shape(tmp_path: Path, call: dict[str, object]) -> None:
    path = rollout(tmp_path, meta(cwd="/work/repo/sub"), line("response_item", call))
    files, _ = agent_for("/work/repo").extract_modified_files(str(path), 0)
    assert files == ["sub/a.txt", "sub/b.txt", "sub/sub/c.txt", "sub/d.txt"]


def test_file_change_records_win_over_the_envelope(tmp_path: Path) -> None:
    call = {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c1", "input": ENVELOPE}
    done = {"type": "item_completed", "item": {"type": "FileChange", "id": "c1", "status": "completed",
            "changes": {"/work/repo/b.txt": {"type": "update", "move_path": "/work/repo/c.txt"}}}}  # fmt: skip
    failed_call = {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c2", "input": ENVELOPE}
    failed = {
        "type": "item_completed",
        "item": {"type": "FileChange", "id": "c2", "status": "failed", "changes": {}},
    }
    legacy = {
        "type": "patch_apply_end",
        "call_id": "c3",
        "success": True,
        "changes": {"/elsewhere/e.txt": {"add": {}}},
    }
    path = rollout(tmp_path, meta(), *(line(k, p) for k, p in [("response_item", call), ("event_msg", done),
                   ("response_item", failed_call), ("event_msg", failed), ("event_msg", legacy)]))  # fmt: skip
    files, _ = agent_for("/work/repo").extract_modified_files(str(path), 0)
    assert files == ["b.txt", "c.txt", "/elsewhere/e.txt"]  # outside the repository: left absolute


def test_partial_and_malformed_lines(tmp_path: Path) -> None:
    call = {"type": "custom_tool_call", "name": "apply_patch", "call_id": "c1", "input": ENVELOPE}
    path = rollout(tmp_path, meta(), b'{"type": "response_item", MALFORMED', line("response_item", call))
    end = 3  # complete lines: a position is a line count
    with path.open("ab") as f:
        f.write(line("response_item", call | {"call_id": "c2"})[:40])
    agent = agent_for("/work/repo")
    assert agent.get_transcript_position(str(path)) == end
    files, position = agent.extract_modified_files(str(path), 0)
    assert position == end and len(files) == 4
    assert agent.get_transcript_position(str(tmp_path / "missing.jsonl")) == 0


def test_patch_paths() -> None:
    assert file_changes.patch_paths(ENVELOPE) == ["a.txt", "b.txt", "sub/c.txt", "d.txt"]


# -- prepare-transcript ---------------------------------------------------------------------------------------


def test_prepare_waits_until_the_announced_turn_is_flushed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    final = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "all done"}]}
    path = rollout(tmp_path, meta(), line("event_msg", {"type": "task_started", "turn_id": "turn-9"}))
    repo = tmp_path / "repo"
    agent = agent_for(str(repo))
    agent.parse_hook("stop", {"session_id": "s-1", "transcript_path": str(path), "turn_id": "turn-9",
                              "last_assistant_message": "all done"})  # fmt: skip
    assert not turn_end.holds_turn_end(str(path), "turn-9", "all done")
    checks: list[bool] = []
    missed = threading.Event()
    real_holds = turn_end.holds_turn_end

    def watched(*args: str) -> bool:
        checks.append(real_holds(*args))
        if not checks[-1]:
            missed.set()  # prepare-transcript has looked and is now waiting
        return checks[-1]

    monkeypatch.setattr(turn_end, "holds_turn_end", watched)

    def flush_once_prepare_waits() -> None:
        assert missed.wait(30)
        with path.open("ab") as f:
            f.write(line("response_item", final) + b"\n")

    writer = threading.Thread(target=flush_once_prepare_waits)
    writer.start()
    agent.prepare_transcript(str(path))
    writer.join()
    assert checks[0] is False and checks[-1] is True  # it waited, then saw the flushed turn
    assert real_holds(str(path), "turn-9", "all done")
    assert not list((repo / ".entire" / "tmp" / "entire-agent-openai-codex").iterdir())  # the note is gone


def test_prepare_gives_up_after_its_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = rollout(tmp_path, meta(), line("event_msg", {"type": "task_started", "turn_id": "turn-9"}))
    clock = [1000.0]  # a fake clock: the bound is checked, never waited for
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(time, "sleep", sleep)
    assert not turn_end.wait_for_turn_end(str(path), "turn-9", "never written", timeout=2.0)
    assert 2.0 <= sum(slept) < 2.1 and max(slept) <= 0.1  # it polled up to the bound, in short naps
    assert turn_end.wait_for_turn_end(str(path), "", "", timeout=0)  # nothing announced: nothing to wait for


def test_prepare_fails_clearly_when_the_rollout_never_appears(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turn_end, "TURN_END_WAIT_SECONDS", 0.1)
    from entire_core.errors import AgentError

    with pytest.raises(AgentError, match="has not written the rollout"):
        agent_for(str(tmp_path)).prepare_transcript(str(tmp_path / "missing.jsonl"))


def test_the_cli_s_line_count_as_offset_gives_that_turn_s_tokens_not_zeros(tmp_path: Path) -> None:
    """After a commit the CLI hands back its own line count as ``--offset`` (issue 25: it got zeros)."""
    from entire_agent_openai_codex.agent import OpenAICodexAgent
    from entire_core.testing.runner import InProcessRunner, Sandbox

    sandbox = Sandbox(tmp_path)
    run = InProcessRunner(OpenAICodexAgent, sandbox)
    data = ROLLOUT1.read_bytes()
    lines = data[:TURN1_BYTE].count(b"\n")
    assert lines == TURN1_END and 10 < lines < 40  # a line count, far below any byte offset
    for command in ("calculate-tokens", "calculate-total-tokens"):
        args = [command, "--offset", str(lines)] + (["--subagents-dir", ""] if "total" in command else [])
        answer = run(*args, stdin=data).json()
        assert (answer["input_tokens"], answer["output_tokens"], answer["api_call_count"]) == (4500, 153, 3)
        assert run(*args[:2], "0", *args[3:], stdin=data).json()["api_call_count"] == 6
        # Past the end: the end (nothing new), never an error.
        assert run(*args[:2], str(10**6), *args[3:], stdin=data).json()["api_call_count"] == 0
    position = run("get-transcript-position", "--path", str(ROLLOUT1)).json()["position"]
    assert position == data.count(b"\n") == END1


def test_a_rollout_with_usage_records_is_counted_by_them_alone() -> None:
    # Codex follows a response's token_usage_record with a cumulative token_count restating it: a range
    # that starts between them (a view re-based there) must not count that response again.
    usage = {"input_tokens": 1000, "cached_input_tokens": 250, "output_tokens": 50}
    record = line("token_usage_record", {"thread_id": "t-1", "usage": usage})
    count = line("event_msg", {"type": "token_count", "info": {"total_token_usage": usage}})
    data = b"\n".join([meta(), record, count]) + b"\n"
    assert tokens.token_usage(data, 0) == TokenUsage(750, 0, 250, 50, 1)
    assert tokens.token_usage(data, data.index(count)) == TokenUsage()
    # A rollout without records is counted by its cumulative snapshots.
    assert tokens.token_usage(b"\n".join([meta(), count]) + b"\n", 0) == TokenUsage(750, 0, 250, 50, 1)
