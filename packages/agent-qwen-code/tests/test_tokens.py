"""Token usage per backend: each content generator's ``usageMetadata`` in, Entire's five numbers out.

Every chat here is the captured 0.24.4 session's first call (its prompt, the ``api_response`` telemetry
record Qwen logs for the call, the call's assistant record) with the usage block and auth type replaced
by what each of Qwen's content generators writes for a given answer of its backend. The generators,
read in the published bundles (0.15.6 ``cli.js``; 0.23.4 and 0.24.4 ``chunks/``; the README's table):

- ``openai`` and ``qwen-oauth`` (DashScope too): ``convertOpenAIChunkToLlm``/``...ResponseToLlm``
  (0.15.6: ``convertOpenAIChunkToGemini``): prompt = ``prompt_tokens``, cached =
  ``prompt_tokens_details.cached_tokens``, candidates = ``completion_tokens`` (reasoning included),
  thoughts = ``completion_tokens_details.reasoning_tokens`` (0.23+: estimated from the streamed
  reasoning text when absent, at most the completion);
- ``openai-responses`` (0.23+): ``makeFinalResponse``: candidates = ``output_tokens`` (reasoning
  included), thoughts = ``output_tokens_details.reasoning_tokens``;
- ``anthropic``: ``buildAnthropicUsageMetadata`` (0.23+): prompt = input + cache read + cache
  creation, cached = cache read, candidates = ``output_tokens`` (thinking included), no thoughts;
- ``gemini``, ``vertex-ai``: Google's own ``usageMetadata``, passed through: candidates exclude thoughts.

The expected numbers are worked out by hand below each chat; Entire's ``TokenUsage``: input = fresh
input (not from cache), cache read, cache creation, output = every generated token once.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from entire_agent_qwen_code.agent import QwenCodeAgent
from entire_agent_qwen_code.view import QwenView
from entire_core.types import TokenUsage
from qwen_fixtures import ASSISTANT, CAPTURES, call, chat


def usage(input_tokens: int, cache_read: int, output: int, calls: int = 1) -> dict[str, int]:
    return TokenUsage(input_tokens, 0, cache_read, output, calls).to_wire()


def counted(agent: QwenCodeAgent, data: bytes, offset: int = 0) -> dict[str, int]:
    return agent.calculate_tokens(data, offset).to_wire()


# A turn that reasoned: an OpenAI-compatible backend answered 1200 prompt tokens, 1000 of them read from
# its cache, and 233 completion tokens, 30 of them reasoning (OpenAI's completion count includes them).
OPENAI_WIRE = {"prompt_tokens": 1200, "completion_tokens": 233, "total_tokens": 1433,
               "prompt_tokens_details": {"cached_tokens": 1000},
               "completion_tokens_details": {"reasoning_tokens": 30}}  # fmt: skip
OPENAI_RECORDED = {"promptTokenCount": 1200, "candidatesTokenCount": 233, "thoughtsTokenCount": 30,
                   "totalTokenCount": 1433, "cachedContentTokenCount": 1000}  # fmt: skip
"""``convertOpenAIChunkToLlm`` (0.24.4 ``chunk-YIHOHHJL.js``) of ``OPENAI_WIRE``'s usage chunk."""


@pytest.mark.parametrize("auth", ["openai", "qwen-oauth"])
def test_an_openai_compatible_call_counts_its_reasoning_once(agent: QwenCodeAgent, auth: str) -> None:
    """``qwen-oauth`` and DashScope (``openai`` with DashScope's URL) go through the same converter."""
    data = chat(call(1, OPENAI_RECORDED, auth))
    # input = prompt - cached = 1200 - 1000 = 200; cache read = 1000;
    # output = candidates = 233 (the 30 reasoning tokens are inside it, not added again: not 263)
    assert counted(agent, data) == usage(200, 1000, 233)


def test_openai_reasoning_qwen_estimated_is_inside_the_completion_too(agent: QwenCodeAgent) -> None:
    """0.23+: a backend that streams reasoning text but reports no ``reasoning_tokens`` gets an estimate
    from that text, at most the completion count: part of the completion as well."""
    recorded = {"promptTokenCount": 500, "candidatesTokenCount": 40, "thoughtsTokenCount": 40,
                "totalTokenCount": 540, "cachedContentTokenCount": 0}  # fmt: skip
    # input = 500 - 0 = 500; output = candidates = 40 (the estimate, capped at 40, is within them)
    assert counted(agent, chat(call(1, recorded, "openai"))) == usage(500, 0, 40)


def test_an_openai_responses_call_counts_its_reasoning_once(agent: QwenCodeAgent) -> None:
    # wire: input_tokens 500 (input_tokens_details.cached_tokens 300), output_tokens 80
    # (output_tokens_details.reasoning_tokens 50), total_tokens 580; makeFinalResponse (0.24.4
    # openaiResponsesContentGenerator-MBZKLYFV.js) records:
    recorded = {"promptTokenCount": 500, "candidatesTokenCount": 80, "totalTokenCount": 580,
                "thoughtsTokenCount": 50, "cachedContentTokenCount": 300}  # fmt: skip
    # input = 500 - 300 = 200; cache read = 300; output = candidates = 80 (50 of them reasoning)
    assert counted(agent, chat(call(1, recorded, "openai-responses"))) == usage(200, 300, 80)


def test_an_anthropic_call(agent: QwenCodeAgent) -> None:
    """Anthropic's ``input_tokens`` excludes cache reads and writes; Qwen's converter adds them into the
    prompt and keeps the reads as cached, the writes nowhere apart (only in its OpenTelemetry span)."""
    # wire: input_tokens 20, cache_read_input_tokens 900, cache_creation_input_tokens 100, output_tokens 70
    # (thinking included); buildAnthropicUsageMetadata (0.24.4 anthropicContentGenerator-JOZNOMSX.js):
    recorded = {"promptTokenCount": 20 + 900 + 100, "cachedContentTokenCount": 900, "candidatesTokenCount": 70,
                "totalTokenCount": 20 + 900 + 100 + 70}  # fmt: skip
    # input = prompt - cached = 1020 - 900 = 120 (the 20 fresh and the 100 written to the cache, which the
    # record does not tell apart); cache read = 900; cache creation = 0; output = 70
    # (input + cache read + cache creation = 120 + 900 + 0 = 1020, the prompt Anthropic was sent)
    assert counted(agent, chat(call(1, recorded, "anthropic"))) == usage(120, 900, 70)


@pytest.mark.parametrize("auth", ["gemini", "vertex-ai"])
def test_a_google_call_adds_its_thoughts(agent: QwenCodeAgent, auth: str) -> None:
    """Google's usage passes through: its candidates exclude the thoughts, as in Gemini CLI."""
    recorded = {"promptTokenCount": 1000, "cachedContentTokenCount": 600, "candidatesTokenCount": 50,
                "thoughtsTokenCount": 30, "toolUsePromptTokenCount": 5, "totalTokenCount": 1085}  # fmt: skip
    # input = prompt - cached + tool-use prompt = 1000 - 600 + 5 = 405; cache read = 600;
    # output = candidates + thoughts = 50 + 30 = 80 (total 1085 = 1000 + 50 + 30 + 5)
    assert counted(agent, chat(call(1, recorded, auth))) == usage(405, 600, 80)


GOOGLE_SMALL = {"promptTokenCount": 100, "cachedContentTokenCount": 0, "candidatesTokenCount": 10,
                "thoughtsTokenCount": 4, "totalTokenCount": 114}  # fmt: skip
"""A Google call: 100 prompt (none cached), 10 candidates and 4 thoughts (total 100 + 10 + 4 = 114)."""


def test_each_call_by_its_own_backend_and_the_backend_logged_before_the_offset(agent: QwenCodeAgent) -> None:
    """A session whose fast model is served by Google and main model by an OpenAI-compatible backend;
    a count from an offset between a call's telemetry record and its answer still knows its backend."""
    data = chat(call(1, OPENAI_RECORDED, "openai"), call(2, GOOGLE_SMALL, "gemini", "gemini-fast"),
                call(3, OPENAI_RECORDED, "openai"))  # fmt: skip
    # openai calls: 200 in, 1000 cached, 233 out each; gemini: 100 - 0 = 100 in, 10 + 4 = 14 out
    assert counted(agent, data) == usage(200 + 100 + 200, 1000 + 0 + 1000, 233 + 14 + 233, 3)
    # from line 4, call 2's answer (its telemetry is line 3, before the offset), then call 3:
    # 100 + 200 = 300 in, 0 + 1000 = 1000 cached, 14 + 233 = 247 out
    assert counted(agent, data, 4) == usage(100 + 200, 0 + 1000, 14 + 233, 2)


def test_a_subagents_calls_by_the_backend_the_parent_logged(agent: QwenCodeAgent, tmp_path: Any) -> None:
    """A subagent's own recording logs no calls: Qwen logs them in the parent's file (0.24: the subagent's
    ``api_response`` records are there), by model. Here the subagent's model is served by Google."""
    sub = {
        **ASSISTANT,
        "uuid": "s-1",
        "parentUuid": None,
        "model": "gemini-sub",
        "usageMetadata": GOOGLE_SMALL,
    }
    agent_call = {"functionCall": {"id": "call_9", "name": "agent", "args": {"prompt": "write sub.txt"}}}
    logged_by_the_subagent = call(2, GOOGLE_SMALL, "gemini", "gemini-sub")[:1]
    parent = chat(call(1, OPENAI_RECORDED, "qwen-oauth"), logged_by_the_subagent)
    parent = parent.replace(
        b'"parts":[{"functionCall"', b'"parts":[' + json.dumps(agent_call).encode() + b',{"functionCall"'
    )
    subagents = tmp_path / "subagents"
    (subagents / "s").mkdir(parents=True)
    (subagents / "s" / "agent-general-purpose-call_9.jsonl").write_text(json.dumps(sub) + "\n")
    (subagents / "s" / "agent-general-purpose-call_9.meta.json").write_text('{"toolUseId": "call_9"}')
    total = agent.calculate_total_tokens(parent, 0, str(subagents / "s")).to_wire()
    # the parent's call (qwen-oauth): 1200 - 1000 = 200 in, 1000 cached, 233 out
    # the subagent's call (gemini): 100 - 0 = 100 in, 10 + 4 = 14 out
    assert total == {**usage(200, 1000, 233), "subagent_tokens": usage(100, 0, 14)}


def test_a_foreground_subagents_calls_from_its_telemetry(agent: QwenCodeAgent, tmp_path: Any) -> None:
    """Before 0.23 a subagent has no recording: its calls are ``api_response`` telemetry records of the
    parent's file, each with the auth type it used (``subagent_name`` set)."""
    (logged, _) = call(2, OPENAI_RECORDED, "openai")
    logged["systemPayload"]["uiEvent"]["subagent_name"] = "general-purpose"
    parent = chat(call(1, OPENAI_RECORDED, "openai"), [logged])
    total = agent.calculate_total_tokens(parent, 0, str(tmp_path / "none")).to_wire()
    # each call, the parent's and the subagent's: 1200 - 1000 = 200 in, 1000 cached, 233 out (not 263)
    assert total == {**usage(200, 1000, 233), "subagent_tokens": usage(200, 1000, 233)}


def test_the_views_reply_usage_counts_the_reasoning_once() -> None:
    """The view's assistant lines carry the call's usage (``message.usage``) by the same rule."""
    view = QwenView()
    for line in chat(call(1, OPENAI_RECORDED, "openai")).splitlines():
        view.record(json.loads(line))
    # output = 233, not 233 + 30
    assert view.message_extra(ASSISTANT | {"usageMetadata": OPENAI_RECORDED})["usage"] == {
        "input_tokens": 200, "output_tokens": 233}  # fmt: skip


def test_the_captured_calls_per_version_by_the_openai_converter() -> None:
    """The captures (every call 100 prompt, 40 cached, 10 out, no reasoning) log ``auth_type`` ``openai``
    for every call in every version of the window."""
    from entire_agent_qwen_code import transcript

    for capture in CAPTURES:
        items = transcript.scope(capture.chat.read_bytes(), 0)
        logged = {transcript.logged_call(r) for r in items} - {None}
        assert logged == {("qwen-scripted", "openai")}, capture.version
