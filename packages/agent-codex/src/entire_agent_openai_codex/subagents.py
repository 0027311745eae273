"""The subagents a Codex thread spawned, and where their rollouts are (recursively, bounded in depth)."""

from __future__ import annotations

import os

from entire_core.jsonvalues import array as as_list
from entire_core.jsonvalues import obj as as_dict
from entire_core.jsonvalues import text as as_str

from entire_agent_openai_codex.transcript import event_type, payload_of, read_range, records

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

MAX_SUBAGENT_DEPTH = 8


def spawned_threads(lines: Iterable[bytes]) -> list[str]:
    """Ids of the subagent threads spawned in these lines (from ``spawn_agent`` results), in order."""
    from entire_core import _json

    spawn_calls: set[str] = set()
    children: dict[str, None] = {}
    for record in records(lines, b"spawn_agent", b"agent_id", b"CollabAgentToolCall"):
        payload = payload_of(record)
        kind = event_type(record)
        if kind == "response_item/function_call" and payload.get("name") == "spawn_agent":
            spawn_calls.add(as_str(payload.get("call_id")))
        elif kind == "response_item/function_call_output" and payload.get("call_id") in spawn_calls:
            output = payload.get("output")
            try:
                result = as_dict(_json.loads(output) if isinstance(output, str) else output)
            except ValueError:
                continue
            if as_str(result.get("agent_id")):
                children[as_str(result.get("agent_id"))] = None
        elif kind == "event_msg/item_completed":
            item = as_dict(payload.get("item"))
            if item.get("type") == "CollabAgentToolCall" and item.get("tool") == "spawn_agent":
                children.update(
                    dict.fromkeys(r for r in as_list(item.get("receiver_thread_ids")) if as_str(r))
                )
    return list(children)


def subagent_rollouts(lines: Iterable[bytes], env: Mapping[str, str], near: str) -> list[str]:
    """Rollout paths of every subagent spawned in ``lines`` and, recursively, of their subagents."""
    from entire_core import validate

    from entire_agent_openai_codex import paths

    found: list[str] = []
    seen: set[str] = set()
    frontier = [(thread, 1) for thread in spawned_threads(lines)]
    while frontier:
        thread, depth = frontier.pop(0)
        if thread in seen or not validate.is_tool_id(thread) or depth > MAX_SUBAGENT_DEPTH:
            continue
        seen.add(thread)
        path = paths.find_rollout(thread, env, near=near)
        if path is None:
            continue
        found.append(path)
        child_lines, _ = read_range(path, 0)
        frontier += [(grandchild, depth + 1) for grandchild in spawned_threads(child_lines)]
    return found


def parent_dir(subagents_dir: str) -> str:
    """The parent rollout's directory, from the CLI's ``<dir of rollout>/<session>/subagents``."""
    if not subagents_dir or os.path.basename(os.path.normpath(subagents_dir)) != "subagents":
        return ""
    return os.path.dirname(os.path.dirname(os.path.normpath(subagents_dir)))
