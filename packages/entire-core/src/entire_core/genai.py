"""Google GenAI's content shapes, read once for every agent that records them.

Gemini CLI records a message's ``parts`` (``{text}``, ``{text, thought: true}``, ``{functionCall}``,
``{functionResponse}``) and the model's ``usageMetadata``; Qwen Code, forked from it, records the
same shapes in its own JSONL. Both views (``entire_core.views``) cut inline data and tool outputs alike. Here, in core, so that neither agent's wheel depends on the other's.
"""

from __future__ import annotations

from entire_core.jsonvalues import array, integer, obj

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.types import TokenUsage


def text_of(content: object) -> str:
    """The visible text of a content: a string, or its text parts (strings or ``{text}``) without thoughts."""
    if isinstance(content, str):
        return content
    parts = array(content) or ([] if isinstance(content, list) else [content])
    texts: list[str] = []
    for part in parts:
        if isinstance(part, str):
            texts.append(part)
        else:
            p = obj(part)
            if isinstance(p.get("text"), str) and not p.get("thought"):
                texts.append(p["text"])
    return "\n".join(t for t in texts if t)


def function_calls(parts: object) -> list[dict[str, Any]]:
    """The ``functionCall`` objects among ``parts`` (``{id?, name, args}``), in order."""
    return [call for call in (obj(obj(p).get("functionCall")) for p in array(parts)) if call]


def only_function_responses(parts: object) -> bool:
    """True for a non-empty list of parts that are all ``functionResponse`` (tool results, not typed text)."""
    found = array(parts)
    return bool(found) and all("functionResponse" in obj(p) for p in found)


def response_text(parts: object) -> str:
    """What the ``functionResponse`` parts among ``parts`` returned: each response's ``output`` or ``error``."""
    texts: list[str] = []
    for part in array(parts):
        response = obj(obj(obj(part).get("functionResponse")).get("response"))
        texts.extend(str(response[key]) for key in ("output", "error") if isinstance(response.get(key), str))
    return "\n".join(texts)


def without_inline_data(value: Any) -> Any:
    """``value`` with every ``inlineData`` part's bytes replaced by a short ``text/plain`` marker (a cut view record)."""
    items = array(value)
    if items:
        return [without_inline_data(v) for v in items]
    d = obj(value)
    if not d:
        return value
    inline = obj(d.get("inlineData"))
    data = inline.get("data")
    from entire_core.cutting import MARKER, MIN_KEEP

    if isinstance(data, str) and len(data) > MIN_KEEP:
        import base64

        size = len(data.encode())
        note = MARKER.format(cut=size, total=size) + f" (inline {inline.get('mimeType') or 'data'})"
        return {
            **d,
            "inlineData": {"mimeType": "text/plain", "data": base64.b64encode(note.encode()).decode()},
        }
    return {k: without_inline_data(v) for k, v in d.items()}


def call_usage(
    *,
    prompt: int,
    cached: int,
    output: int,
    thoughts: int = 0,
    tool: int = 0,
    thoughts_in_candidates: bool = False,
) -> TokenUsage:
    """One model call by Entire's formula for GenAI counts.

    The prompt count includes the cached tokens: input = prompt - cached + tool-use prompt, cache read =
    cached. Output is every generated token once: candidates + thoughts where the candidates exclude the
    thoughts (Google's API), the candidates alone where they already hold them (``thoughts_in_candidates``:
    a completion count converted from another API, whose reasoning part is repeated as the thoughts).
    """
    from entire_core.types import TokenUsage

    return TokenUsage(
        input_tokens=prompt - cached + tool,
        cache_read_tokens=cached,
        output_tokens=output if thoughts_in_candidates else output + thoughts,
        api_call_count=1,
    )


def usage_metadata(metadata: object, *, thoughts_in_candidates: bool = False) -> TokenUsage | None:
    """One model call from a ``usageMetadata`` object, or None when there is none (``call_usage``)."""
    m = obj(metadata)
    if not m:
        return None
    return call_usage(
        prompt=integer(m.get("promptTokenCount")),
        cached=integer(m.get("cachedContentTokenCount")),
        output=integer(m.get("candidatesTokenCount")),
        thoughts=integer(m.get("thoughtsTokenCount")),
        tool=integer(m.get("toolUsePromptTokenCount")),
        thoughts_in_candidates=thoughts_in_candidates,
    )
