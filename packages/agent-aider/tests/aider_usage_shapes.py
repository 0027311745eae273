"""One model call per backend as Aider records it: the chat history's ``Tokens:`` line and the analytics
log's ``message_send`` event, scripted from what each backend's usage becomes in Aider.

The path, read in Aider 0.86.2 (``Coder.calculate_and_show_tokens_and_cost`` and ``show_usage_report`` in
``aider/coders/base_coder.py``) and 0.82.3, and in the litellm each pins (1.81.10 and 1.68.0):

- ``sent`` = litellm's ``usage.prompt_tokens``, plus ``cache_creation_input_tokens`` when the usage has
  an attribute ``cache_read_input_tokens`` or ``cache_creation_input_tokens``; ``cache hit`` =
  ``prompt_cache_hit_tokens`` or ``cache_read_input_tokens``; ``cache write`` =
  ``cache_creation_input_tokens``; ``received`` = ``completion_tokens``. Each figure is printed with
  ``format_tokens`` (``2304`` -> ``2.3k``), a zero cache figure not at all; when both cache figures are
  there, the cost goes on a line of its own. The event's ``prompt_tokens`` and ``completion_tokens``
  are ``sent`` and ``received`` unrounded.
- litellm's ``prompt_tokens`` (``litellm/types/utils.py`` ``Usage``, which also sets every extra usage
  key as an attribute): for Anthropic (``llms/anthropic/chat/transformation.py`` ``calculate_usage``)
  ``input_tokens + cache_read_input_tokens``, plus ``cache_creation_input_tokens`` in 1.81.10 only;
  for OpenAI-compatible backends the server's ``prompt_tokens`` (OpenAI, DeepSeek and OpenRouter count
  the cache hits in it); for Gemini (``llms/vertex_ai/gemini/vertex_and_google_ai_studio_gemini.py``
  ``_calculate_usage``) ``promptTokenCount``, which includes ``cachedContentTokenCount``, handed on
  as ``cache_read_input_tokens`` in 1.81.10 only; ``completion_tokens`` is
  ``candidatesTokenCount + thoughtsTokenCount``.

Only a non-streaming call gives Aider the usage (``--no-stream``; streaming, it estimates and shows no
cache figure).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

HEADER = "2026-12-01 10:00:00"
PROMPT = "Add a greet function to hello.py"
REPLY = "I added greet."


@dataclass(frozen=True)
class Call:
    """One model call of one backend: what Aider logs, and the five numbers Entire should store.

    ``line`` is the ``Tokens:`` line (without ``> `` and the trailing spaces); ``sent`` and ``received``
    are the unrounded numbers Aider also logs as ``prompt_tokens``, ``completion_tokens``. ``exact`` is
    Entire's usage from the analytics log, ``rounded`` from the markdown alone: (input, cache_creation,
    cache_read, output). ``prompt`` is the prompt size the backend reported.
    """

    name: str
    version: str
    model: str
    line: str
    sent: int
    received: int
    prompt: int
    exact: tuple[int, int, int, int]
    rounded: tuple[int, int, int, int]
    flags: str = ""
    """Aider's flags besides ``--model`` and ``--no-stream`` (``--cache-prompts``)."""
    announce: str = ""
    """What Aider's ``Main model:`` line adds after the edit format (``, prompt cache, infinite output``)."""


ANTHROPIC_CACHED = Call(
    # Anthropic, --cache-prompts, a call that writes and reads the cache and thinks. The API's usage:
    # input_tokens 128, cache_creation_input_tokens 1200, cache_read_input_tokens 2400, output_tokens 350
    # (200 of them thinking: Anthropic counts thinking as output). Prompt size: 128 + 1200 + 2400 = 3728.
    # litellm 1.81.10: prompt_tokens = 128 + 1200 + 2400 = 3728; Aider: sent = 3728 + 1200 = 4928.
    "anthropic --cache-prompts",
    "0.86.2",
    "anthropic/claude-sonnet-4-20250514",
    "Tokens: 4.9k sent, 1.2k cache write, 2.4k cache hit, 350 received.\nCost: $0.011 message, $0.011 session.",
    4928,
    350,
    3728,
    # input = 4928 - 2 * 1200 - 2400 = 128; output 350, thinking inside it once
    (128, 1200, 2400, 350),
    # the markdown's sent is 4900: input = 4900 - 2 * 1200 - 2400 = 100
    (100, 1200, 2400, 350),
    flags=" --cache-prompts",
    announce=", prompt cache, infinite output",
)
ANTHROPIC_CACHED_OLD = Call(
    # The same API usage through Aider 0.82.3 and its litellm 1.68.0, which adds only the cache reads:
    # prompt_tokens = 128 + 2400 = 2528; Aider: sent = 2528 + 1200 = 3728, the prompt size itself.
    "anthropic --cache-prompts, Aider 0.82.3",
    "0.82.3",
    "anthropic/claude-sonnet-4-20250514",
    "Tokens: 3.7k sent, 1.2k cache write, 2.4k cache hit, 350 received.\nCost: $0.011 message, $0.011 session.",
    3728,
    350,
    3728,
    # input = 3728 - 1200 - 2400 = 128
    (128, 1200, 2400, 350),
    # the markdown's sent is 3700: input = 3700 - 1200 - 2400 = 100
    (100, 1200, 2400, 350),
    flags=" --cache-prompts",
    announce=", prompt cache, infinite output",
)
ANTHROPIC_ROUND = Call(
    # ANTHROPIC_CACHED with 100 fresh tokens, so that every figure prints exactly: prompt size
    # 100 + 1200 + 2400 = 3700; litellm 1.81.10 prompt_tokens 3700; Aider: sent = 3700 + 1200 = 4900.
    "anthropic --cache-prompts, round figures",
    "0.86.2",
    "anthropic/claude-sonnet-4-20250514",
    "Tokens: 4.9k sent, 1.2k cache write, 2.4k cache hit, 350 received.\nCost: $0.011 message, $0.011 session.",
    4900,
    350,
    3700,
    # input = 4900 - 2 * 1200 - 2400 = 100
    (100, 1200, 2400, 350),
    (100, 1200, 2400, 350),
    flags=" --cache-prompts",
    announce=", prompt cache, infinite output",
)
DEEPSEEK = Call(
    # DeepSeek's reasoner (its cache is on by default): prompt_tokens 1600 = prompt_cache_hit_tokens 896
    # + prompt_cache_miss_tokens 704; completion_tokens 400, of which reasoning_tokens 310. No cache
    # writes. Aider: sent = 1600, cache hit = 896.
    "deepseek",
    "0.86.2",
    "deepseek/deepseek-reasoner",
    "Tokens: 1.6k sent, 896 cache hit, 400 received. Cost: $0.00039 message, $0.00039 session.",
    1600,
    400,
    1600,
    # input = 1600 - 896 = 704 (the cache misses); output 400, reasoning inside it once
    (704, 0, 896, 400),
    (704, 0, 896, 400),
    announce=", prompt cache, infinite output",
)
GEMINI = Call(
    # Gemini: promptTokenCount 4230 (cachedContentTokenCount 3100 of them), candidatesTokenCount 60,
    # thoughtsTokenCount 240, totalTokenCount 4530. litellm 1.81.10: prompt_tokens 4230, completion_tokens
    # 60 + 240 = 300, cache_read_input_tokens 3100; Aider: sent = 4230 + 0 (no cache writes), cache hit 3100.
    "gemini",
    "0.86.2",
    "gemini/gemini-2.5-pro",
    "Tokens: 4.2k sent, 3.1k cache hit, 300 received. Cost: $0.0054 message, $0.0054 session.",
    4230,
    300,
    4230,
    # input = 4230 - 3100 = 1130; output = 60 + 240 = 300
    (1130, 0, 3100, 300),
    # the markdown's sent is 4200: input = 4200 - 3100 = 1100
    (1100, 0, 3100, 300),
)
CACHE_FIGURES = (ANTHROPIC_CACHED, ANTHROPIC_CACHED_OLD, DEEPSEEK, GEMINI)
"""The calls where Aider shows cache figures: what the mapping must subtract."""

ANTHROPIC_UNCACHED = Call(
    # Anthropic without --cache-prompts: input_tokens 2100, both cache fields 0, output_tokens 120.
    # litellm: prompt_tokens 2100; Aider adds the 0 writes: sent 2100, no cache figure shown.
    "anthropic",
    "0.86.2",
    "anthropic/claude-sonnet-4-20250514",
    "Tokens: 2.1k sent, 120 received. Cost: $0.0081 message, $0.0081 session.",
    2100,
    120,
    2100,
    (2100, 0, 0, 120),
    (2100, 0, 0, 120),
    announce=", infinite output",
)
OPENAI = Call(
    # OpenAI (o4-mini): prompt_tokens 2048 with prompt_tokens_details.cached_tokens 1536, completion_tokens
    # 300 with completion_tokens_details.reasoning_tokens 256. litellm keeps cached_tokens in the details,
    # where Aider does not look: sent 2048, no cache figure. The hits stay in input: Aider never says.
    "openai",
    "0.86.2",
    "o4-mini",
    "Tokens: 2.0k sent, 300 received. Cost: $0.0023 message, $0.0023 session.",
    2048,
    300,
    2048,
    (2048, 0, 0, 300),
    (2000, 0, 0, 300),
)
OPENROUTER = Call(
    # OpenRouter (a Claude model): prompt_tokens 2000 with prompt_tokens_details {cached_tokens 1536,
    # cache_write_tokens 0}, completion_tokens 80. Nested as OpenAI's are: sent 2000, no cache figure.
    "openrouter",
    "0.86.2",
    "openrouter/anthropic/claude-sonnet-4",
    "Tokens: 2.0k sent, 80 received. Cost: $0.0018 message, $0.0018 session.",
    2000,
    80,
    2000,
    (2000, 0, 0, 80),
    (2000, 0, 0, 80),
)
GEMINI_OLD = Call(
    # Gemini's usage of GEMINI through Aider 0.82.3: litellm 1.68.0 keeps cachedContentTokenCount in the
    # details only: sent 4230, no cache figure; the 3100 hits stay in input.
    "gemini, Aider 0.82.3",
    "0.82.3",
    "gemini/gemini-2.5-pro",
    "Tokens: 4.2k sent, 300 received. Cost: $0.0054 message, $0.0054 session.",
    4230,
    300,
    4230,
    (4230, 0, 0, 300),
    (4200, 0, 0, 300),
)
NO_CACHE_FIGURES = (ANTHROPIC_UNCACHED, OPENAI, OPENROUTER, GEMINI_OLD)
"""The calls where Aider shows no cache figure: ``sent`` is the input as Entire counts it, hits or not."""


def history(call: Call, log: Path | None = None, *, turns: int = 1) -> bytes:
    """A session of ``turns`` turns as Aider ``call.version`` logs it, each one ``call``; ``log`` named as
    its ``--analytics-log``."""
    analytics = f" --analytics-log {log}" if log is not None else ""
    head = (
        f"\n# aider chat started at {HEADER}\n\n"
        f"> /home/dev/.venv/bin/aider --model {call.model}{call.flags} --no-stream{analytics} hello.py  \n"
        f"> Aider v{call.version}  \n"
        f"> Main model: {call.model} with diff edit format{call.announce}  \n"
        "> Git repo: .git with 1 files  \n"
        "> Repo-map: using 4096 tokens, files refresh  \n"
        "> Added hello.py to the chat.  \n"
    )
    turn = f"\n#### {PROMPT}  \n\n{REPLY}\n\n> {call.line}  \n"
    return (head + turn * turns).encode()


def analytics(call: Call, launched: float, *, turns: int = 1) -> bytes:
    """The analytics log of that session: ``launched``, then one ``message_send`` per turn."""
    user = "d1a82d72-1108-4143-ac75-1d6dafbad347"
    events: list[dict[str, object]] = [
        {"event": "launched", "properties": {}, "user_id": user, "time": int(launched)}
    ]
    for _ in range(turns):
        properties = {
            "main_model": call.model,
            "weak_model": call.model,
            "editor_model": call.model,
            "edit_format": "diff",
            "prompt_tokens": call.sent,
            "completion_tokens": call.received,
            "total_tokens": call.sent + call.received,
            "cost": 0.0065,
            "total_cost": 0.0065,
        }
        events.append(
            {"event": "message_send_starting", "properties": {}, "user_id": user, "time": int(launched) + 1}
        )
        events.append(
            {"event": "message_send", "properties": properties, "user_id": user, "time": int(launched) + 2}
        )
    return b"".join(json.dumps(e).encode() + b"\n" for e in events)
