"""Small files the plugin keeps between its own processes (the CLI starts one process per call).

- The turn a Stop hook announced, so that ``prepare-transcript`` knows what to wait for.
- The stand-in rollout of an ephemeral session (``codex exec --ephemeral`` writes none), built from
  the hook payloads so that the turn can still be recorded.

Both live in the repository's ``.entire/tmp/entire-agent-openai-codex/``, which git ignores.
"""

from __future__ import annotations

import os

from entire_core.jsonvalues import obj as as_dict
from entire_core.jsonvalues import text as as_str

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

PROGRAM = "entire-agent-openai-codex"


# -- scratch files in the repository -----------------------------------------------------------------------


def _scratch(repo_root: str, name: str) -> str:
    from entire_core import sessions

    return os.path.join(sessions.default_session_dir(repo_root, "openai-codex"), name)


def _turn_file(repo_root: str, ref: str) -> str:
    import hashlib

    # normcase: on Windows one rollout spelled C:\X or c:\x must map to one file (no-op on POSIX).
    key = os.path.normcase(os.path.abspath(ref))
    digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:24]
    return _scratch(repo_root, f"turn-end-{digest}.json")


def expect_turn_end(repo_root: str, ref: str, payload: Mapping[str, Any]) -> None:
    """Note what the Stop hook said ended (turn id, last message) for ``prepare-transcript``.

    Best effort: a hook must not fail because scratch space is not writable; prepare then just does
    not wait.
    """
    import contextlib
    import json

    from entire_core import fsutil

    expected = {
        "transcript": ref,
        "turn_id": as_str(payload.get("turn_id")),
        "message": as_str(payload.get("last_assistant_message")),
    }
    with contextlib.suppress(OSError):
        fsutil.atomic_write(_turn_file(repo_root, ref), json.dumps(expected).encode("utf-8"))


def pending_turn_end(repo_root: str, ref: str) -> dict[str, str]:
    """What the last Stop hook for this rollout announced, or an empty dict."""
    import json

    try:
        with open(_turn_file(repo_root, ref), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in as_dict(data).items() if isinstance(v, str)}


def clear_turn_end(repo_root: str, ref: str) -> None:
    """Forget the announced turn once the rollout holds it."""
    import contextlib

    from entire_core import fsutil

    with contextlib.suppress(OSError):
        fsutil.remove_file(_turn_file(repo_root, ref))


# -- ephemeral sessions -------------------------------------------------------------------------------------


def ephemeral_path(repo_root: str, session_id: str) -> str:
    """The stand-in rollout of an ephemeral session."""
    from entire_core import validate

    return _scratch(repo_root, f"ephemeral-{validate.session_id(session_id)}.jsonl")


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _append(path: str, session_id: str, payload: Mapping[str, Any], items: list[dict[str, Any]]) -> str:
    import json

    from entire_core import locks

    os.makedirs(os.path.dirname(path), exist_ok=True)
    stamp = _now()
    # The lock keeps concurrent hooks from both writing a session_meta line and, on Windows (where
    # the C runtime emulates O_APPEND by seeking, then writing), from overwriting each other's lines.
    # O_BINARY: no \r\n translation there.
    with locks.exclusive(path + ".lock"):
        lines: list[dict[str, Any]] = []
        if not os.path.exists(path):
            meta = {"id": session_id, "session_id": session_id, "timestamp": stamp, "cwd": as_str(payload.get("cwd")),
                    "originator": PROGRAM, "source": "exec", "thread_source": "user", "ephemeral": True}  # fmt: skip
            lines.append({"timestamp": stamp, "type": "session_meta", "payload": meta})
        lines += [{"timestamp": stamp, **item} for item in items]
        data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_BINARY", 0), 0o600)
        try:
            view = memoryview(data)
            while view:  # whole lines in as few writes as the OS allows; readers skip a partial last line
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    return path


def ephemeral_prompt(repo_root: str, session_id: str, prompt: str, payload: Mapping[str, Any]) -> str:
    """Record a prompt of an ephemeral session; return the stand-in rollout's path."""
    turn_id = as_str(payload.get("turn_id"))
    message = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}
    typed = {"type": "UserMessage", "content": [{"type": "text", "text": prompt}]}
    items = [
        {"type": "event_msg", "payload": {"type": "task_started", "turn_id": turn_id}},
        {"type": "response_item", "payload": message},
        {"type": "event_msg", "payload": {"type": "item_completed", "turn_id": turn_id, "item": typed}},
    ]
    return _append(ephemeral_path(repo_root, session_id), session_id, payload, items)


def ephemeral_stop(repo_root: str, session_id: str, payload: Mapping[str, Any]) -> str:
    """Record the end of an ephemeral session's turn; return the stand-in rollout's path."""
    turn_id = as_str(payload.get("turn_id"))
    text = as_str(payload.get("last_assistant_message"))
    items: list[dict[str, Any]] = []
    if text:
        message = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
        items.append({"type": "response_item", "payload": message})
    done = {"type": "task_complete", "turn_id": turn_id, "last_agent_message": text or None}
    items.append({"type": "event_msg", "payload": done})
    return _append(ephemeral_path(repo_root, session_id), session_id, payload, items)
