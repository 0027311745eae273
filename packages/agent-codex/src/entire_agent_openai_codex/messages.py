"""What was said in a rollout: the user's prompts (without the context Codex injects) and the assistant's messages."""

from __future__ import annotations

from entire_core import offsets
from entire_core.jsonvalues import array as as_list
from entire_core.jsonvalues import obj as as_dict
from entire_core.jsonvalues import text as as_str

from entire_agent_openai_codex.transcript import Record, event_type, payload_of, records

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# Injected context Codex stores as user messages: (start, end) markers, compared case-insensitively
# on the trimmed text, as Codex itself recognises them. None of it was typed by the user.
CONTEXT_MARKERS = (
    ("# agents.md instructions for ", "</instructions>"),
    ("<environment_context>", "</environment_context>"),
    ("<user_instructions>", "</user_instructions>"),
    ("<skill>", "</skill>"),
    ("<user_shell_command>", "</user_shell_command>"),
    ("<turn_aborted>", "</turn_aborted>"),
    ("<subagents>", "</subagents>"),
    ("<subagent_notification>", "</subagent_notification>"),
    ("<hook_prompt", "</hook_prompt>"),
)


def is_injected(text: str) -> bool:
    """True for context Codex adds to the conversation as a user message (AGENTS.md, environment, ...)."""
    start, end = text.lstrip().lower(), text.rstrip().lower()
    return any(start.startswith(open_) and end.endswith(close) for open_, close in CONTEXT_MARKERS)


def texts_of(content: object, kinds: tuple[str, ...]) -> list[str]:
    parts = (as_dict(item) for item in as_list(content))
    return [
        as_str(part.get("text")) for part in parts if part.get("type") in kinds and as_str(part.get("text"))
    ]


def user_prompts(lines: Iterable[bytes]) -> list[str]:
    """What the user typed, oldest first, without the context Codex injects.

    Newer Codex records every real prompt as an ``item_completed`` ``UserMessage``; older releases as
    ``event_msg`` ``user_message``. The model-visible ``response_item`` user messages, which also carry
    the injected context, are the last resort.
    """
    typed: list[str] = []
    legacy: list[str] = []
    visible: list[str] = []
    for record in records(lines, b'"user'):
        payload = payload_of(record)
        kind = event_type(record)
        if kind == "event_msg/item_completed":
            item = as_dict(payload.get("item"))
            text = "\n".join(texts_of(item.get("content"), ("text", "Text")))
            if item.get("type") == "UserMessage" and text.strip():
                typed.append(text)
        elif kind == "event_msg/user_message":
            message = payload.get("message")
            if isinstance(message, str) and message.strip() and not is_injected(message):
                legacy.append(message)
        elif kind == "response_item/message" and payload.get("role") == "user":
            texts = [t for t in texts_of(payload.get("content"), ("input_text",)) if not is_injected(t)]
            if texts and any(t.strip() for t in texts):
                visible.append("\n".join(texts))
    return typed or legacy or visible


def assistant_text(payload: Record) -> str:
    """The text of a ``response_item`` assistant message."""
    return "\n".join(texts_of(payload.get("content"), ("output_text",)))


def agent_message_text(item: object) -> str:
    """The text of an ``item_completed`` ``AgentMessage`` item ("" for any other item)."""
    item = as_dict(item)
    return (
        "\n".join(texts_of(item.get("content"), ("Text", "text")))
        if item.get("type") == "AgentMessage"
        else ""
    )


def summary(path: str) -> str | None:
    """The last thing the assistant said, read backwards from the end of the rollout."""
    for record in records(offsets.reverse_lines(path), b"task_complete", b'"assistant"', b"AgentMessage"):
        payload = payload_of(record)
        kind = event_type(record)
        if kind == "event_msg/task_complete":
            message = payload.get("last_agent_message")
            if isinstance(message, str) and message:
                return message
        elif kind == "response_item/message" and payload.get("role") == "assistant":
            text = assistant_text(payload)
            if text:
                return text
        elif kind == "event_msg/item_completed":
            text = agent_message_text(payload.get("item"))
            if text:
                return text
    return None


def first_prompt(path: str, limit: int = 1 << 18) -> str:
    """The first prompt of a rollout, reading at most ``limit`` bytes (a subagent's task)."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit)
    except OSError:
        return ""
    end = data.rfind(b"\n") + 1
    prompts = user_prompts(data[:end].split(b"\n"))
    return prompts[0] if prompts else ""
