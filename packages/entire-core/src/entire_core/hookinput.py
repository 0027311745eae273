"""Hook payloads as every agent reads them: the first non-empty text of several keys, the transcript.

Agents fire hooks with their own payload shapes, and the compliance suite sends the protocol's own
``HookInput`` shape (``session_ref``, ``user_prompt``) to the same ``parse-hook``. These helpers read
either, never raise, and are the one place that knows which key wins.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


def first_text(payload: Mapping[str, object], *keys: str) -> str:
    """The first of ``keys`` whose value is a non-empty string, else ""."""
    for key in keys:
        value = payload.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def transcript_ref(payload: Mapping[str, object]) -> str:
    """The transcript a payload names: the agent's ``transcript_path``, else the protocol's ``session_ref``."""
    return first_text(payload, "transcript_path", "session_ref")
