"""The standard contract tests of entire-core, with the real capture as the recorded transcript."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import aider_usage_shapes as shapes
from entire_agent_aider.agent import AiderAgent
from entire_core.testing.cases import DeliveryCase, HookCase, TranscriptCase, UsageCase
from entire_core.testing.contract import AgentContract

DATA = Path(__file__).parent / "data"
HISTORY = DATA / "aider.chat.history.md"
LAST_REPLY = 'Here is the updated file.\n\nhello.py\n```python\ndef greet(name):\n    return f"Hi there, {name}!"\n\n\ndef main():\n    print(greet("world"))\n```'


def _lines(byte: int) -> int:
    """The line count (a position on the wire) of the history's first ``byte`` bytes."""
    return HISTORY.read_bytes()[:byte].count(b"\n")


def _usage(inp: int, out: int, calls: int) -> dict[str, int]:
    return {
        "input_tokens": inp,
        "cache_creation_tokens": 0,
        "cache_read_tokens": 0,
        "output_tokens": out,
        "api_call_count": calls,
    }


class TestAiderContract(AgentContract):
    agent_cls = AiderAgent
    hook_config = ".aider.conf.yml"
    hook_config_syntax = "yaml"
    hook_config_originals: ClassVar[dict[str, bytes | None]] = {
        "only a comment": b"# my Aider settings come here\n",
        "the user's own keys": b"# my settings\nmodel: sonnet   # the default\n\nauto-commits: false\n",
        "CRLF": b"# mine\r\nmodel: sonnet\r\nauto-lint: false\r\n",
        "BOM": b"\xef\xbb\xbfmodel: sonnet\n",
        "tabs": b"lint-cmd: 'python: ruff\tcheck'\n#\tindented note\nmodel: sonnet   # the default\n",
        "a tab before a comment, which YAML refuses (refused)": b"model: sonnet\t# tab before the comment\n",
        "unicode": "# réglages ✓\nmodel: sonnet\n".encode(),
        "no final newline": b"model: sonnet",
        "a comment without a final newline": b"model: sonnet\n# the end",
        "the user's own notifications-command (refused)": b"notifications-command: say done\nmodel: sonnet\n",
        "YAML Aider would not read (refused)": b"model: [unclosed\n",
        "a document end marker": b"model: sonnet\n...\n",
        "document markers with comments after the end": b"---\nmodel: sonnet\n... # end\n# after\n",
        "a flow-style mapping, which no block of lines can join (refused)": b"{model: sonnet}\n",
    }
    hook_config_refused = frozenset(name for name in hook_config_originals if name.endswith("(refused)"))
    transcript_cases = [
        TranscriptCase(
            HISTORY,
            position=_lines(23476),  # positions are lines as the Entire CLI counts them (views v2)
            modified_files=["hello.py", "NOTES.md"],
            prompts=[
                "Add a greet function to hello.py",
                "Please create NOTES.md describing the change",
                "What does greet do?",
                "WHOLE: rewrite hello.py greeting",
                "What changed?",
                "ARCHPLAN make greet say Howdy",
                "What does greet do?",
                "What does greet do?",
                "And what about main?",
                "Explain hello.py",
                "WHOLE: rewrite hello.py greeting",
            ],
            summary=LAST_REPLY,
            tokens=_usage(19835, 427, 12),
        ),
        TranscriptCase(
            HISTORY,
            offset=_lines(14993),
            modified_files=["hello.py"],
            prompts=["WHOLE: rewrite hello.py greeting"],
            tokens=_usage(842, 40, 1),
        ),
        TranscriptCase(
            HISTORY,
            offset=_lines(2851),
            modified_files=["hello.py"],
            prompts=[
                "What does greet do?",
                "WHOLE: rewrite hello.py greeting",
                "What changed?",
                "ARCHPLAN make greet say Howdy",
                "What does greet do?",
                "What does greet do?",
                "And what about main?",
                "Explain hello.py",
                "WHOLE: rewrite hello.py greeting",
            ],
        ),
    ]

    # Payloads that are not ours (the compliance suite's HookInput) and ours for a repository whose
    # history file does not exist yet: no event, and nothing written.
    hook_cases = [
        HookCase(
            "turn-end",
            b'{"hook_type":"turn-end","session_id":"s","session_ref":"","timestamp":"2026-01-01T00:00:00Z"}',
            None,
        ),
        HookCase(
            "turn-end",
            b'{"source":"notification","history_file":"/nonexistent/.aider.chat.history.md"}',
            None,
        ),
    ]

    # The history's first turn at one notification: SessionStart, TurnStart and TurnEnd queued at once.
    delivery_case = DeliveryCase(
        "turn-end",
        b'{"source":"notification","history_file":"{repo}/.aider.chat.history.md","time":"2026-11-30T03:05:00Z"}',
        {"{repo}/.aider.chat.history.md": HISTORY.read_bytes()[:3054]},
    )

    def sample_session_bytes(self) -> bytes:
        return HISTORY.read_bytes()[1471:3054]

    def usage_case(self) -> UsageCase:
        # An Anthropic call through Aider 0.86.2 with --cache-prompts (aider_usage_shapes has the
        # arithmetic): 100 fresh + 1200 written + 2400 read = 3700 prompt tokens, which Aider logs as
        # "4.9k sent" (3700 + the writes again); 350 out, 200 of them thinking.
        call = shapes.ANTHROPIC_ROUND
        return UsageCase(shapes.history(call), prompt_tokens=3700, cache_read_tokens=2400,
                         cache_creation_tokens=1200, output_tokens=350, reasoning_tokens=200, note=call.name)  # fmt: skip
