"""The contract kit, run on core's sample agent in-process and black-box, so the kit itself is tested."""

from __future__ import annotations

import copy
from pathlib import Path

from entire_core.testing.cases import HookCase, TranscriptCase, UsageCase
from entire_core.testing.contract import AgentContract
from entire_core.testing.runner import write_launcher
from entire_core.testing.sample_agent import SampleAgent, ViewedSampleAgent

DATA = Path(__file__).parent / "data"
SESSION = DATA / "sample-session.jsonl"
SECOND_TURN = len(SESSION.read_bytes().split(b"\n", 3)[0]) * 0 + sum(
    len(line) + 1 for line in SESSION.read_bytes().split(b"\n")[:3]
)


def _usage(i: int, cr: int, o: int, calls: int) -> dict[str, int]:
    return {"input_tokens": i, "cache_creation_tokens": 0, "cache_read_tokens": cr, "output_tokens": o,
            "api_call_count": calls}  # fmt: skip


class TestSampleContract(AgentContract):
    agent_cls = SampleAgent
    hook_config = ".sample/hooks.json"
    transcript_cases = [
        TranscriptCase(
            SESSION,
            position=SESSION.stat().st_size,
            modified_files=["hello.txt", "greeting.txt"],
            prompts=["add a greeting file", "now rename it"],
            summary="Renamed it to greeting.txt.",
            tokens=_usage(200, 120, 45, 2),
            all_modified_files=["hello.txt", "greeting.txt", "sub.txt"],
            subagents_dir=str(DATA / "subagents"),
            total_tokens={**_usage(200, 120, 45, 2), "subagent_tokens": _usage(10, 0, 2, 1)},
        ),
        TranscriptCase(
            SESSION,
            offset=SECOND_TURN,
            modified_files=["greeting.txt"],
            prompts=["now rename it"],
            tokens=_usage(100, 100, 30, 1),
        ),
    ]
    hook_cases = [
        HookCase("prompt", b'{"session_id": "s1", "transcript_path": "/t.jsonl", "prompt": "hi"}',
                 {"type": 2, "session_id": "s1", "session_ref": "/t.jsonl", "prompt": "hi"}),
        HookCase("stop", b'\xef\xbb\xbf{"session_id": "s1", "transcript_path": "/t.jsonl"}',
                 {"type": 3, "session_id": "s1", "session_ref": "/t.jsonl"}),
        HookCase("stop", b'{"session_id": 42}', None),
    ]  # fmt: skip

    def usage_case(self) -> UsageCase:
        # The sample's "input" includes its "cached": 300 prompt tokens, 200 of them read from the cache,
        # so input 300 - 200 = 100 + cache_read 200 = 300. Its records report no cache write and no reasoning.
        call = (
            b'{"type": "assistant", "text": "Done.", "usage": {"input": 300, "cached": 200, "output": 40}}\n'
        )
        return UsageCase(call, prompt_tokens=300, cache_read_tokens=200, cache_creation_tokens=0,
                         output_tokens=40, reasoning_tokens=0, note="sample: input includes cached")  # fmt: skip


class TestSampleContractBlackBox(TestSampleContract):
    """The same standard tests, one real process per call, as the Entire CLI runs a plugin."""

    script = str(
        write_launcher(Path(__file__).parent / ".bin", "sample", "entire_core.testing.sample_agent:main")
    )


class TestViewedSampleContract(TestSampleContract):
    """The same standard tests on the sample agent with views: positions are lines, as the CLI counts them
    (the sample's own parsers count bytes; core translates), and nothing else the CLI sees changes."""

    agent_cls = ViewedSampleAgent
    transcript_cases = [copy.copy(c) for c in TestSampleContract.transcript_cases]
    transcript_cases[0].position = SESSION.read_bytes().count(b"\n")
    transcript_cases[1].offset = 3  # the second turn's first line
