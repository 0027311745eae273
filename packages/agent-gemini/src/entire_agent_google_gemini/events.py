"""Gemini CLI hook payloads -> Entire lifecycle events.

Every payload carries ``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name`` and
``timestamp``. SessionStart -> SessionStart, BeforeAgent -> TurnStart (with the prompt), AfterAgent ->
TurnEnd, SessionEnd -> SessionEnd, Before/AfterTool on ``invoke_agent`` -> SubagentStart/End.
PreCompress is a Compaction only when the user asked for it or a compression really happened (see
``compressions``). Subagents fire tool and model hooks under the parent's session, never Before/AfterAgent.
"""

from __future__ import annotations

import os

from entire_core.hookinput import first_text, transcript_ref
from entire_core.jsonvalues import obj
from entire_core.types import Event, EventType
from entire_core.validate import is_tool_id

from entire_agent_google_gemini.transcript import SUBAGENT_TOOLS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.scratch import Scratch

_PLAIN = {
    "session-start": EventType.SESSION_START,
    "before-agent": EventType.TURN_START,
    "after-agent": EventType.TURN_END,
    "session-end": EventType.SESSION_END,
}


def to_event(hook: str, payload: object, scratch: Scratch) -> Event | None:
    """The event for one hook payload, or None when it means nothing to Entire.

    ``scratch`` holds what PreCompress remembers between hooks (``compressions``).
    """
    p = obj(payload)
    session_id = first_text(p, "session_id")
    if not session_id:
        return None
    ref = transcript_ref(p)
    stamp = first_text(p, "timestamp")
    kind = _PLAIN.get(hook)
    if kind == EventType.SESSION_START and p.get("source") == "resume" and ref:
        ref = resumed_file(ref, session_id)
    if kind is not None:
        prompt = first_text(p, "prompt", "user_prompt") if kind == EventType.TURN_START else ""
        return Event(kind, session_id, session_ref=ref, prompt=prompt, timestamp=stamp)
    if hook == "pre-compress":
        if p.get("trigger") == "manual" or (ref and _compressed(scratch, session_id, ref)):
            return Event(EventType.COMPACTION, session_id, session_ref=ref, timestamp=stamp)
        return None
    if hook in ("before-tool", "after-tool") and p.get("tool_name") in SUBAGENT_TOOLS:
        return _subagent_event(hook, p, session_id, ref, stamp)
    return None


def _compressed(scratch: Scratch, session_id: str, ref: str) -> bool:
    from entire_agent_google_gemini import compressions

    return compressions.compressed_since_last_check(scratch, session_id, ref)


def resumed_file(ref: str, session_id: str) -> str:
    """The real chat file behind SessionStart's ``transcript_path`` after a resume.

    Resuming across a minute boundary first creates a stray file for the new minute; the session's
    conversation is in the older file of the same session id.
    """
    from entire_agent_google_gemini import sessionfile

    def usable(path: str) -> bool:
        """The file is this session's (its header) and records a message: read until one is found."""
        try:
            with open(path, "rb") as f:
                first = f.readline(1 << 20)
                if sessionfile.header_session(first) != session_id:
                    return False
                carry = b"\n"  # the header's newline: a message may be the very next line
                while block := f.read(1 << 20):
                    if sessionfile.has_conversation(carry + block):
                        return True
                    carry = block[-8:]
        except OSError:
            return False
        return False

    if usable(ref):
        return ref
    for candidate in sessionfile.session_candidates(os.path.dirname(ref), session_id):
        if usable(candidate):
            return candidate
    return ref


# -- subagents -----------------------------------------------------------------------------------------


def _subagent_event(hook: str, p: dict[str, Any], session_id: str, ref: str, stamp: str) -> Event:
    tool_input = obj(p.get("tool_input"))
    agent_type = first_text(tool_input, "agent_name")
    task = first_text(tool_input, "prompt", "objective")
    tool_use_id = task_id(session_id, tool_input)
    if hook == "before-tool":
        return Event(EventType.SUBAGENT_START, session_id, session_ref=ref, timestamp=stamp,
                     tool_use_id=tool_use_id, tool_input=tool_input, subagent_type=agent_type,
                     task_description=task)  # fmt: skip
    agent_id = subagent_id(p.get("tool_response")) or _find_subagent(ref, session_id, task)
    subagent_file = _subagent_file(ref, session_id, agent_id) if agent_id else ""
    # With the subagent's own chat as session_ref, the CLI attributes exactly its files to the task;
    # the parent's chat would hand it every file the session ever wrote.
    return Event(EventType.SUBAGENT_END, session_id, session_ref=subagent_file, timestamp=stamp,
                 tool_use_id=tool_use_id, subagent_id=agent_id, tool_input=tool_input,
                 subagent_type=agent_type, task_description=task)  # fmt: skip


def task_id(session_id: str, tool_input: dict[str, Any]) -> str:
    """A tool-use id for one ``invoke_agent`` call, equal at BeforeTool and AfterTool.

    Gemini's hook payloads carry no tool-call id, and both hooks see the same arguments.
    """
    from entire_core import _json
    from entire_core._digest import sha256_hex

    try:
        canonical = _json.dumps(_sorted(tool_input))
    except TypeError:  # a float: only the json package writes those
        import json

        canonical = json.dumps(tool_input, sort_keys=True, separators=(",", ":"))
    return "gemini-" + sha256_hex((session_id + "\0" + canonical).encode("utf-8", "surrogatepass"))[:24]


def _sorted(value: object) -> object:
    """``value`` with every object's keys in order, so that equal arguments make one text."""
    if isinstance(value, dict):
        mapping: dict[str, object] = value  # pyright: ignore[reportUnknownVariableType]
        return {k: _sorted(mapping[k]) for k in sorted(mapping)}
    if isinstance(value, list):
        items: list[object] = value  # pyright: ignore[reportUnknownVariableType]
        return [_sorted(v) for v in items]
    return value


def subagent_id(tool_response: object) -> str:
    """The subagent's session id from AfterTool's ``returnDisplay.recentActivity[].id`` (``<id>#<n>-<m>``)."""
    from entire_core.jsonvalues import objects as dicts

    activity = obj(obj(tool_response).get("returnDisplay")).get("recentActivity")
    for item in dicts(activity):
        raw = item.get("id")
        if isinstance(raw, str) and "#" in raw:
            candidate = raw.split("#", 1)[0]
            if is_tool_id(candidate):
                return candidate
    return ""


def _subagent_dir(ref: str, session_id: str) -> str:
    from entire_core import validate

    return os.path.join(os.path.dirname(ref), validate.session_id(session_id))


def _subagent_file(ref: str, session_id: str, agent_id: str) -> str:
    path = os.path.join(_subagent_dir(ref, session_id), agent_id + ".jsonl")
    return path if ref and os.path.isfile(path) else ""


def _find_subagent(ref: str, session_id: str, task: str) -> str:
    """A subagent that did no tool calls leaves no activity ids: find its chat by its first prompt."""
    if not ref or not task:
        return ""
    directory = _subagent_dir(ref, session_id)
    try:
        names = [n for n in os.listdir(directory) if n.endswith(".jsonl")]
    except OSError:
        return ""
    from entire_agent_google_gemini import transcript

    newest: tuple[float, str] | None = None
    for name in names:
        path = os.path.join(directory, name)
        try:
            with open(path, "rb") as f:
                head = f.read(1 << 16)
            mtime = os.stat(path).st_mtime
        except OSError:
            continue
        messages = transcript.parse(head).messages()
        matches = bool(messages) and transcript.prompt_of(messages[0]) == task.strip()
        if matches and is_tool_id(name[:-6]) and (newest is None or mtime > newest[0]):
            newest = (mtime, name[:-6])
    return newest[1] if newest else ""
