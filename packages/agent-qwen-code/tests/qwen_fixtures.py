"""The captures of the real Qwen Code (``data/v<version>/``) and what each must give, exactly.

Each was made by ``tests/e2e/driver.py`` against the scripted server (``tests/e2e/openai_api.py``):
four ``qwen -p --yolo`` runs in one session (the later three resume it), each its own turn:

1. "read notes please": read_file notes.txt, then text (2 model calls);
2. "edit notes: hi to hello": read_file, edit notes.txt, then text (3 calls);
3. "delete old.txt now": run_shell_command ``rm old.txt``, then text (2 calls);
4. "<b>use a subagent</b> for sub.txt": ``agent`` general-purpose, then text; the subagent writes
   sub.txt (2 calls of its own); from 0.23 it runs in the background, so its result comes back as a
   notification and a third model call answers it, in the same turn. In 0.15 it runs in the
   foreground and has no recording of its own: its calls are telemetry records of the parent's file.

Every model call reports 100 prompt tokens (40 cached) and 10 out: by Entire's formula 60 input, 40
cache read, 10 output. (The server reported that for every call when these were captured; it now
reports reasoning and another cached share for text answers, which ``test_tokens`` and the end-to-end
tests count.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
PROMPTS = [
    "read notes please",
    "edit notes: hi to hello",
    "delete old.txt now",
    "<b>use a subagent</b> for sub.txt",
]


def calls(n: int) -> dict[str, Any]:
    """Usage of ``n`` scripted model calls as the plugin answers it."""
    return {"input_tokens": 60 * n, "cache_creation_tokens": 0, "cache_read_tokens": 40 * n,
            "output_tokens": 10 * n, "api_call_count": n}  # fmt: skip


class Capture:
    """One version's capture and its expectations."""

    def __init__(self, version: str, *, main_calls: int, turn_starts: list[int], summary: str) -> None:
        self.version = version
        self.root = DATA / f"v{version}"
        self.chat = next((self.root / "chats").glob("*.jsonl"))
        self.session_id = self.chat.stem
        self.repo = f"/tmp/qwen-explore/{version}/repo"
        self.main_calls = main_calls
        self.turn_starts = turn_starts
        """The line each turn's prompt is on (the position TurnStart would have answered)."""
        self.summary = summary
        self.lines = len(self.chat.read_bytes().split(b"\n")) - 1


CAPTURES = [
    Capture("0.15.6", main_calls=9, turn_starts=[0, 7, 18, 25], summary="The subagent is writing sub.txt."),
    Capture("0.23.4", main_calls=10, turn_starts=[0, 8, 21, 29], summary="The subagent wrote sub.txt."),
    Capture("0.24.4", main_calls=10, turn_starts=[0, 8, 21, 29], summary="The subagent wrote sub.txt."),
]


# Model calls as Qwen records them, for the token tests and the contract kit's usage case.
_LINES = CAPTURES[-1].chat.read_bytes().split(b"\n")
PROMPT, TELEMETRY, ASSISTANT = (json.loads(_LINES[i]) for i in (0, 2, 3))
assert TELEMETRY["systemPayload"]["uiEvent"]["event.name"] == "qwen-code.api_response"
assert ASSISTANT["type"] == "assistant" and "usageMetadata" in ASSISTANT


def call(n: int, usage: dict[str, int], auth: str, model: str = "qwen-scripted") -> list[dict[str, Any]]:
    """Model call ``n`` as Qwen records it: the telemetry record of the call, then its assistant record."""
    event = {**TELEMETRY["systemPayload"]["uiEvent"], "response_id": f"r-{n}", "model": model, "auth_type": auth,
             "input_token_count": usage.get("promptTokenCount", 0),
             "output_token_count": usage.get("candidatesTokenCount", 0),
             "cached_content_token_count": usage.get("cachedContentTokenCount", 0),
             "thoughts_token_count": usage.get("thoughtsTokenCount", 0),
             "total_token_count": usage.get("totalTokenCount", 0)}  # fmt: skip
    logged = {**TELEMETRY, "uuid": f"t-{n}", "parentUuid": f"p-{n}", "systemPayload": {"uiEvent": event}}
    answer = {**ASSISTANT, "uuid": f"a-{n}", "parentUuid": f"t-{n}", "model": model, "usageMetadata": usage}
    return [logged, answer]


def chat(*made: list[dict[str, Any]]) -> bytes:
    """A chat of one prompt and ``calls``, each record linked to the one before (the live branch)."""
    items = [{**PROMPT, "uuid": "p-0"}]
    for records in made:
        for record in records:
            items.append({**record, "parentUuid": items[-1]["uuid"]})
    return b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in items)
