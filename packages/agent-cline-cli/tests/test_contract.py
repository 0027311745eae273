"""The contract kit's standard tests, with the real Cline CLI's recorded sessions, as our journals."""

from __future__ import annotations

import json
from typing import ClassVar

from cline_fixtures import CAPTURES, calls
from entire_agent_cline_cli.agent import ClineCliAgent
from entire_core.testing.cases import DeliveryCase, HookCase, TranscriptCase, UsageCase
from entire_core.testing.contract import AgentContract


def _cases() -> list[TranscriptCase]:
    cases: list[TranscriptCase] = []
    for c in CAPTURES:
        write = c.journal(c.session_of["write hello please"])
        cases.append(TranscriptCase(write, position=5, modified_files=[f"{c.repo}/hello.txt"],
                                    prompts=["write hello please"], summary="Done: write hello please",
                                    tokens=calls(1, 1)))  # fmt: skip
        text = c.journal(c.session_of["just say hi"])
        cases.append(TranscriptCase(text, offset=1, position=3, modified_files=[], prompts=["just say hi"],
                                    summary="Hello from the scripted model.", tokens=calls(0, 1)))  # fmt: skip
    return cases


_SESSION = "1796645615702_oiii7"
_END = {
    "hookName": "TaskComplete",
    "timestamp": "2026-12-01T10:00:00.000Z",
    "sessionContext": {"rootSessionId": _SESSION},
}
_MESSAGES = f"{{home}}/.cline/data/sessions/{_SESSION}/{_SESSION}.messages.json"
_TURN = {"messages": [
    {"id": "m1", "role": "user", "content": [{"type": "text", "text": '<user_input mode="act">hi</user_input>'}]},
    {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Hello."}]},
]}  # fmt: skip


class TestClineCliAgentContract(AgentContract):
    agent_cls = ClineCliAgent
    transcript_cases: ClassVar[list[TranscriptCase]] = _cases()
    hook_cases: ClassVar[list[HookCase]] = [
        HookCase("task-start", b'{"taskId": "conv_1", "sessionContext": {}}', None),
        HookCase("task-complete", json.dumps({"sessionContext": {"rootSessionId": "../x"}}).encode(), None),
    ]
    skip_reasons: ClassVar[dict[str, str]] = {}
    # A turn's end whose start never came: TurnStart (its prompt from the session's messages), then TurnEnd.
    delivery_case = DeliveryCase(
        "task-complete", json.dumps(_END).encode(), {_MESSAGES: json.dumps(_TURN).encode()}
    )

    def sample_session_bytes(self) -> bytes:
        c = CAPTURES[-1]
        return c.journal(c.session_of["use a subagent please"]).read_bytes()

    def usage_case(self) -> UsageCase:
        # Cline's metrics: inputTokens is the whole prompt (the AI SDK's inputTokens.total), cache
        # reads and writes included; outputTokens the whole completion, reasoning included.
        header = b'{"cline_session":{"document":{"version":1},"manifest":{}}}\n'
        call = {"id": "msg_1", "role": "assistant", "content": [{"type": "text", "text": "Done."}],
                "metrics": {"inputTokens": 1300, "outputTokens": 233, "cacheReadTokens": 1000, "cacheWriteTokens": 100}}  # fmt: skip
        return UsageCase(header + json.dumps(call).encode() + b"\n", prompt_tokens=1300, cache_read_tokens=1000,
                         cache_creation_tokens=100, output_tokens=233, reasoning_tokens=0,
                         note="cline-cli: inputTokens includes cache reads and writes")  # fmt: skip
