"""GenAI ``usageMetadata`` to Entire's five numbers, for Google's API and for a converted completion count."""

from __future__ import annotations

from entire_core.genai import usage_metadata
from entire_core.types import TokenUsage

CALL = {"promptTokenCount": 1000, "cachedContentTokenCount": 600, "candidatesTokenCount": 50,
        "thoughtsTokenCount": 30, "toolUsePromptTokenCount": 5, "totalTokenCount": 1085}  # fmt: skip
"""A Google call: 1000 prompt tokens (600 cached), 50 candidates, 30 thoughts, 5 of tool-use prompt."""


def test_googles_candidates_exclude_the_thoughts() -> None:
    """The default, Gemini CLI's: input = 1000 - 600 + 5 = 405, cache read = 600, output = 50 + 30 = 80."""
    assert usage_metadata(CALL) == TokenUsage(405, 0, 600, 80, 1)


def test_a_converted_completion_count_holds_the_thoughts_already() -> None:
    """Qwen Code's OpenAI-compatible converter: candidates = the completion count, reasoning included;
    output = candidates = 50 (the 30 thoughts are among them)."""
    assert usage_metadata(CALL, thoughts_in_candidates=True) == TokenUsage(405, 0, 600, 50, 1)


def test_no_metadata_is_no_call() -> None:
    assert usage_metadata(None) is None and usage_metadata({}) is None
