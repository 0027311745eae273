"""The contract kit's standard tests, with this package's recorded transcript and hook payloads.

AGENT AUTHOR: replace ``data/`` with captures from the real agent (``../shared/reference`` shows how
they are made) and the expectations below with what those captures hold.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

from entire_agent_qwen_code.agent import QwenCodeAgent
from entire_core.testing.cases import HookCase, TranscriptCase
from entire_core.testing.contract import AgentContract

DATA = Path(__file__).parent / "data"
SESSION = DATA / "session.jsonl"


class TestQwenCodeAgentContract(AgentContract):
    agent_cls = QwenCodeAgent
    hook_config = ".qwen/settings.json"
    transcript_cases: ClassVar[list[TranscriptCase]] = [
        TranscriptCase(
            SESSION,
            position=SESSION.stat().st_size,
            modified_files=["/elsewhere/hello.txt"],
            prompts=["write hello.txt"],
            summary="I wrote hello.txt.",
            tokens={
                "input_tokens": 90,
                "cache_creation_tokens": 0,
                "cache_read_tokens": 10,
                "output_tokens": 20,
                "api_call_count": 1,
            },
        )
    ]
    hook_cases: ClassVar[list[HookCase]] = [
        HookCase(
            "user-prompt-submit",
            json.dumps(
                {"session_id": "s-1", "transcript_path": str(SESSION), "prompt": "write hello.txt"}
            ).encode(),
            {"type": 2, "session_id": "s-1", "session_ref": str(SESSION), "prompt": "write hello.txt"},
        ),
        HookCase("stop", b'{"transcript_path": "/t.jsonl"}', None),
    ]
