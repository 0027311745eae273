"""The files a Codex thread changed: its ``FileChange`` records, else the ``apply_patch`` envelopes it sent."""

from __future__ import annotations

import os

from entire_core.jsonvalues import array as as_list
from entire_core.jsonvalues import obj as as_dict
from entire_core.jsonvalues import text as as_str

from entire_agent_openai_codex.transcript import Record, event_type, payload_of, records

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

SHELL_TOOLS = frozenset(["shell", "exec_command", "shell_command", "local_shell", "container.exec"])


def patch_paths(patch: str) -> list[str]:
    """Every path an ``apply_patch`` envelope touches: added, updated, deleted, and both ends of a move."""
    paths: list[str] = []
    for line in patch.splitlines():
        for marker in ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "):
            if line.startswith(marker):
                path = line[len(marker) :].strip()
                if path and path not in paths:
                    paths.append(path)
                break
    return paths


def _patch_of_call(payload: Record) -> str | None:
    """The patch text of a tool call that applies one, in any of the shapes models use."""
    from entire_core import _json

    kind, name = payload.get("type"), payload.get("name")
    if kind == "custom_tool_call" and name == "apply_patch":
        return as_str(payload.get("input")) or None
    if kind == "function_call" and name == "apply_patch":
        raw = as_str(payload.get("arguments"))
        try:
            arguments = as_dict(_json.loads(raw))
        except ValueError:  # some models send the bare envelope
            return raw if "*** Begin Patch" in raw else None
        return as_str(arguments.get("input") or arguments.get("patch")) or None
    # A shell call that runs `apply_patch` with the envelope as an argument or in a heredoc.
    if kind == "local_shell_call":
        command = as_dict(payload.get("action")).get("command")
    elif kind == "function_call" and name in SHELL_TOOLS:
        try:
            arguments = as_dict(_json.loads(as_str(payload.get("arguments"))))
        except ValueError:
            return None
        command = arguments.get("cmd") or arguments.get("command")
    else:
        return None
    text = "\n".join(str(part) for part in as_list(command)) or as_str(command)
    if "apply_patch" not in text or "*** Begin Patch" not in text:
        return None
    return text[text.index("*** Begin Patch") :]


def _changed_paths(changes: object) -> list[str]:
    """Paths of a ``FileChange`` / ``patch_apply_end`` change map, with a move's destination too."""
    paths: list[str] = []
    for path, change in sorted(as_dict(changes).items()):  # Codex's map has no stable order
        paths.append(path)
        moved = as_str(as_dict(change).get("move_path"))
        if moved:
            paths.append(moved)
    return paths


def changed_paths(lines: Iterable[bytes], *, cwd: str) -> list[str]:
    """Paths of the files the thread changed in these lines, in order (absolute once a cwd is known).

    Codex's ``FileChange`` items (and ``patch_apply_end`` events of older releases) list what a patch
    really changed, so they win over parsing the patch a call sent; a call with no such record falls
    back to its envelope. ``cwd`` resolves relative patch paths until a ``turn_context`` says otherwise.
    """
    applied: set[str] = set()
    entries: list[tuple[bool, str, list[str]]] = []  # (is a call, call id, absolute paths)
    for record in records(lines, b"apply_patch", b"FileChange", b"patch_apply_end", b"turn_context"):
        payload = payload_of(record)
        kind = event_type(record)
        if record.get("type") == "turn_context":
            cwd = as_str(payload.get("cwd")) or cwd
            continue
        if kind in ("event_msg/item_completed", "event_msg/patch_apply_end"):
            item = as_dict(payload.get("item")) if kind == "event_msg/item_completed" else payload
            if kind == "event_msg/item_completed" and item.get("type") != "FileChange":
                continue
            call_id = as_str(item.get("id") or item.get("call_id"))
            done = item.get("status") in (None, "completed") and item.get("success") is not False
            paths = [_absolute(p, cwd) for p in _changed_paths(item.get("changes"))] if done else []
            applied.add(call_id)
            entries.append((False, call_id, paths))
        elif record.get("type") == "response_item":
            patch = _patch_of_call(payload)
            if patch is not None:
                call_id = as_str(payload.get("call_id"))
                entries.append((True, call_id, [_absolute(p, cwd) for p in patch_paths(patch)]))
    return [
        path for is_call, call_id, paths in entries if not (is_call and call_id in applied) for path in paths
    ]


def _absolute(path: str, cwd: str) -> str:
    if path.startswith("file://"):
        path = path[len("file://") :]
    if not os.path.isabs(path) and cwd:
        path = os.path.join(cwd, path)
    return os.path.normpath(path) if os.path.isabs(path) else path
