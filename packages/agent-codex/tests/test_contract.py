"""The contract kit's standard tests, with the real Codex captures as recorded cases."""

from __future__ import annotations

import json
from typing import ClassVar

from codex_fixtures import (
    CAPTURE_REPO,
    END1,
    END2,
    END_CHILD,
    EXPECTED_EVENTS,
    HOOKS,
    PROMPT1,
    PROMPT2,
    PROMPT_CHILD,
    PROMPT_SPAWN,
    ROLLOUT1,
    ROLLOUT2,
    ROLLOUT_CHILD,
    ROLLOUTS,
    S2,
    SUMMARY1,
    SUMMARY2,
    SUMMARY_CHILD,
    TURN1_END,
    hook_of,
)
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_core.testing.cases import HookCase, TranscriptCase, UsageCase
from entire_core.testing.contract import AgentContract


def _tokens(input_tokens: int, cached: int, output: int, calls: int, **extra: object) -> dict[str, object]:
    usage: dict[str, object] = {"input_tokens": input_tokens, "cache_creation_tokens": 0, "cache_read_tokens": cached,
                                "output_tokens": output, "api_call_count": calls}  # fmt: skip
    return {**usage, **extra}


# The sandbox's repository is not the capture's, so paths stay absolute (the CLI drops them as
# outside the repository); test_transcript.py checks them against the capture's repository.
def _abs(*names: str) -> list[str]:
    return [f"{CAPTURE_REPO}/{name}" for name in names]


CHILD_TOKENS = _tokens(2250, 750, 101, 2)


class TestOpenAICodexContract(AgentContract):
    agent_cls = OpenAICodexAgent
    hook_config = ".codex/hooks.json"
    hook_config_originals: ClassVar[dict[str, bytes | None]] = {
        # Codex allows a description beside hooks, and nothing else at the top level.
        "a description": b'{\n  "description": "our team\'s hooks",\n  "hooks": {}\n}\n',
        "only a description": b'{"description": "none yet"}\n',
        "a key Codex rejects": b'{\n  "hooks": {},\n  "_owner": "me"\n}\n',
        "a matcher group of the user's with our event's matcher": b'{"hooks": {"{event}": [{"matcher": "",'
        b' "hooks": [{"type": "command", "command": "echo mine"}]}]}}',
    }
    # Codex takes only ``description`` beside ``hooks``.
    hook_config_refused = AgentContract.hook_config_refused | {"a key Codex rejects"}
    transcript_cases: ClassVar[list[TranscriptCase]] = [
        TranscriptCase(
            ROLLOUT1,
            position=END1,
            modified_files=_abs("README.md", "hello.txt", "shell.txt", "second.txt"),
            prompts=[PROMPT1, PROMPT2],
            summary=SUMMARY1,
            tokens=_tokens(9000, 3000, 306, 6),
            all_modified_files=_abs("README.md", "hello.txt", "shell.txt", "second.txt"),
            total_tokens=_tokens(9000, 3000, 306, 6),
        ),
        TranscriptCase(
            ROLLOUT1,
            offset=TURN1_END,
            position=END1,
            modified_files=_abs("second.txt", "shell.txt"),
            prompts=[PROMPT2],
            summary=SUMMARY1,
            tokens=_tokens(4500, 1500, 153, 3),
            all_modified_files=_abs("second.txt", "shell.txt"),
            total_tokens=_tokens(4500, 1500, 153, 3),
        ),
        TranscriptCase(
            ROLLOUT2,
            position=END2,
            modified_files=[],
            prompts=[PROMPT_SPAWN],
            summary=SUMMARY2,
            tokens=_tokens(4500, 1500, 153, 3),
            # The CLI's subagents dir is <dir of the rollout>/<session>/subagents: the child is found
            # next to the parent's rollout.
            subagents_dir=str(ROLLOUTS / S2 / "subagents"),
            all_modified_files=_abs("child.txt"),
            total_tokens=_tokens(4500, 1500, 153, 3, subagent_tokens=CHILD_TOKENS),
        ),
        TranscriptCase(
            ROLLOUT_CHILD,
            position=END_CHILD,
            modified_files=_abs("child.txt"),
            prompts=[PROMPT_CHILD],
            summary=SUMMARY_CHILD,
            tokens=CHILD_TOKENS,
            all_modified_files=_abs("child.txt"),
            total_tokens=CHILD_TOKENS,
        ),
    ]
    hook_cases: ClassVar[list[HookCase]] = [
        HookCase(hook_of(HOOKS / name), HOOKS / name, expected) for name, expected in EXPECTED_EVENTS.items()
    ]

    def sample_session_bytes(self) -> bytes:
        return ROLLOUT_CHILD.read_bytes()

    def usage_case(self) -> UsageCase:
        return UsageCase(_cached_call(), prompt_tokens=2000, cache_read_tokens=1536, cache_creation_tokens=0,
                         output_tokens=300, reasoning_tokens=120, note="codex: a Responses API call with cache hits")  # fmt: skip


def _cached_call() -> bytes:
    """The child's rollout cut to its first model call, with a cached prompt and reasoning.

    Codex records the Responses API's usage as it came (``codex-api/src/sse/responses.rs``):
    ``input_tokens`` counts the whole prompt, ``input_tokens_details.cached_tokens`` of it from the cache
    (``cached_input_tokens``); ``output_tokens`` counts everything generated, the
    ``output_tokens_details.reasoning_tokens`` included (``reasoning_output_tokens``); ``total_tokens``
    = input + output (the capture's 1000 + 50 = 1050). OpenAI reports no cache writes (0 in the capture).
    Here: 2000 in, 1536 of them cached; 300 out, 120 of them reasoning. Entire: input 2000 - 1536 = 464,
    cache_read 1536, output 300.
    """
    lines = ROLLOUT_CHILD.read_bytes().split(b"\n")
    record = json.loads(next(line for line in lines if b'"token_usage_record"' in line))
    usage = {"input_tokens": 2000, "cached_input_tokens": 1536, "cache_write_input_tokens": 0,
             "output_tokens": 300, "reasoning_output_tokens": 120, "total_tokens": 2300}  # fmt: skip
    for key in ("usage", "turn_token_usage", "thread_token_usage"):
        record["payload"][key] = usage
    return lines[0] + b"\n" + json.dumps(record, separators=(",", ":")).encode() + b"\n"
