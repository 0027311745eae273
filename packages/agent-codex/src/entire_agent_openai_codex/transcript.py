"""Reading Codex rollouts: positions, modified files, prompts, summary, token usage and subagents.

A rollout is JSONL, one ``{"timestamp", "type", "payload"}`` object per line, appended as the thread
runs (see ``docs/agents/codex.md``). Offsets are byte offsets just after a complete line, so reading
from an offset costs only the new bytes and a line still being written is left for the next call.
Every reader is tolerant: unknown line types and lines that do not parse are skipped, because the
format changes between Codex releases.
"""

from __future__ import annotations

import os

from entire_core import offsets
from entire_core.jsonvalues import array as as_list
from entire_core.jsonvalues import obj as as_dict
from entire_core.jsonvalues import text as as_str
from entire_core.paths import repo_relative
from entire_core.types import TokenUsage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping
    from typing import Any

Record = dict[str, "Any"]

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
SHELL_TOOLS = frozenset(["shell", "exec_command", "shell_command", "local_shell", "container.exec"])
MAX_SUBAGENT_DEPTH = 8


# -- reading lines -----------------------------------------------------------------------------------


def position(path: str) -> int:
    """The byte offset just after the last complete line; 0 for a missing file."""
    from entire_core import offsets

    return offsets.complete_end(path)


def read_range(path: str, offset: int) -> tuple[list[bytes], int]:
    """Complete lines after ``offset`` and the offset read up to (nothing for a stale offset)."""
    from entire_core import offsets

    return offsets.read_lines(path, offset)


def records(lines: Iterable[bytes], *needles: bytes) -> Iterator[Record]:
    """The JSON objects among ``lines``; with ``needles``, only lines containing one of them are parsed."""
    import json

    for line in lines:
        if needles and not any(n in line for n in needles):
            continue
        try:
            record = as_dict(json.loads(line))
        except (ValueError, RecursionError):
            continue
        if record:
            yield record


def payload_of(record: Record) -> Record:
    """A line's payload (an empty dict when it has none or it is not an object)."""
    return as_dict(record.get("payload"))


def event_type(record: Record) -> str:
    """``"<line type>/<payload type>"``, for example ``"event_msg/token_count"``."""
    kind = payload_of(record).get("type")
    return f"{record.get('type')}/{kind if isinstance(kind, str) else ''}"


def first_line(data: bytes) -> bytes:
    """The first line of ``data`` (the session_meta line of a rollout)."""
    newline = data.find(b"\n")
    return data if newline < 0 else data[:newline]


def head(path: str, limit: int = 1 << 20) -> bytes:
    """The first line of the file at ``path`` (at most ``limit`` bytes); empty when unreadable."""
    try:
        with open(path, "rb") as f:
            return f.readline(limit)
    except OSError:
        return b""


def session_meta(line: bytes) -> Record:
    """The payload of a rollout's first line when it is ``session_meta``, else an empty dict."""
    for record in records([line]):
        if record.get("type") == "session_meta":
            return payload_of(record)
    return {}


def is_subagent_thread(meta: Record) -> bool:
    """True when a rollout's ``session_meta`` payload belongs to a thread a subagent spawn started.

    Codex 0.171 says so in ``thread_source``; 0.130 writes ``source: {"subagent": ...}`` too.
    """
    source = meta.get("source")
    return meta.get("thread_source") == "subagent" or (isinstance(source, dict) and "subagent" in source)


# -- texts --------------------------------------------------------------------------------------------


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


# -- modified files -----------------------------------------------------------------------------------


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
    import json

    kind, name = payload.get("type"), payload.get("name")
    if kind == "custom_tool_call" and name == "apply_patch":
        return as_str(payload.get("input")) or None
    if kind == "function_call" and name == "apply_patch":
        raw = as_str(payload.get("arguments"))
        try:
            arguments = as_dict(json.loads(raw))
        except ValueError:  # some models send the bare envelope
            return raw if "*** Begin Patch" in raw else None
        return as_str(arguments.get("input") or arguments.get("patch")) or None
    # A shell call that runs `apply_patch` with the envelope as an argument or in a heredoc.
    if kind == "local_shell_call":
        command = as_dict(payload.get("action")).get("command")
    elif kind == "function_call" and name in SHELL_TOOLS:
        try:
            arguments = as_dict(json.loads(as_str(payload.get("arguments"))))
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


def modified_files(lines: Iterable[bytes], *, cwd: str, repo_root: str) -> list[str]:
    """Files the thread changed in these lines, repo-relative where they lie in ``repo_root``.

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
    files: dict[str, None] = {}
    for is_call, call_id, paths in entries:
        if is_call and call_id and call_id in applied:
            continue
        for path in paths:
            files[repo_relative(path, repo_root)] = None
    return list(files)


def _absolute(path: str, cwd: str) -> str:
    if path.startswith("file://"):
        path = path[len("file://") :]
    if not os.path.isabs(path) and cwd:
        path = os.path.join(cwd, path)
    return os.path.normpath(path) if os.path.isabs(path) else path


# -- token usage ----------------------------------------------------------------------------------------


def counter(usage: object, name: str) -> int:
    """A non-negative integer counter of a Codex usage object (0 when absent or malformed)."""
    value = as_dict(usage).get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _usage_of(usage: object, calls: int) -> TokenUsage:
    """Codex usage as Entire counts it: input without cache reads or writes; output with reasoning."""
    cached = counter(usage, "cached_input_tokens")
    written = counter(usage, "cache_write_input_tokens")
    return TokenUsage(
        input_tokens=max(0, counter(usage, "input_tokens") - cached - written),
        cache_creation_tokens=written,
        cache_read_tokens=cached,
        output_tokens=counter(usage, "output_tokens"),
        api_call_count=calls,
    )


def _delta(after: object, before: object) -> dict[str, int]:
    names = ("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens")
    return {n: max(0, counter(after, n) - counter(before, n)) for n in names}


def _total_of(record: Record) -> dict[str, Any] | None:
    """The cumulative totals of a ``token_count`` event (None when it has none)."""
    if event_type(record) != "event_msg/token_count":
        return None
    return as_dict(as_dict(payload_of(record).get("info")).get("total_token_usage")) or None


def token_usage(data: bytes, offset: int) -> TokenUsage:
    """Token usage of the rollout ``data`` after ``offset``, as deltas of Codex's cumulative counts.

    ``token_usage_record`` lines (one per model response, newer Codex) are summed when the range has
    them, counting only this thread's own records. Otherwise the last cumulative ``token_count``
    snapshot in the range minus the last one before it; ``api_call_count`` is then the number of
    snapshots that moved the totals (Codex repeats the previous snapshot at a turn's start).
    """
    own_id = session_meta(first_line(data)).get("id")
    lines = offsets.lines_after(data, offset)
    total = TokenUsage()
    found = False
    for record in records(lines, b'"token_usage_record"'):
        if record.get("type") != "token_usage_record":
            continue
        payload = payload_of(record)
        thread = payload.get("thread_id")
        if isinstance(own_id, str) and isinstance(thread, str) and thread != own_id:
            continue
        total += _usage_of(payload.get("usage"), 1)
        found = True
    if found:
        return total
    previous = _baseline(data, offset)
    last = previous
    moves = 0
    for record in records(lines, b'"token_count"'):
        current = _total_of(record)
        if current is None:
            continue
        if any(_delta(current, last).values()):
            moves += 1
        last = current
    return _usage_of(_delta(last, previous), moves)


def _baseline(data: bytes, offset: int) -> dict[str, Any] | None:
    """The last cumulative snapshot before ``offset``, searched backwards."""
    end = offset
    while end > 0:
        at = data.rfind(b'"token_count"', 0, end)
        if at < 0:
            return None
        start = data.rfind(b"\n", 0, at) + 1
        stop = data.find(b"\n", at)
        for record in records([data[start : stop if stop >= 0 else len(data)]]):
            total = _total_of(record)
            if total is not None:
                return total
        end = start
    return None


# -- subagents --------------------------------------------------------------------------------------------


def spawned_threads(lines: Iterable[bytes]) -> list[str]:
    """Ids of the subagent threads spawned in these lines (from ``spawn_agent`` results), in order."""
    import json

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
                result = as_dict(json.loads(output) if isinstance(output, str) else output)
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


def _safe_thread_id(value: str) -> bool:
    from entire_core import validate
    from entire_core.errors import InvalidInput

    try:
        validate.tool_id(value, "thread id")
    except InvalidInput:
        return False
    return bool(value)


def subagent_rollouts(lines: Iterable[bytes], env: Mapping[str, str], near: str) -> list[str]:
    """Rollout paths of every subagent spawned in ``lines`` and, recursively, of their subagents."""
    from entire_agent_openai_codex import paths

    found: list[str] = []
    seen: set[str] = set()
    frontier = [(thread, 1) for thread in spawned_threads(lines)]
    while frontier:
        thread, depth = frontier.pop(0)
        if thread in seen or not _safe_thread_id(thread) or depth > MAX_SUBAGENT_DEPTH:
            continue
        seen.add(thread)
        path = paths.find_rollout(thread, env, near=near)
        if path is None:
            continue
        found.append(path)
        child_lines, _ = read_range(path, 0)
        frontier += [(grandchild, depth + 1) for grandchild in spawned_threads(child_lines)]
    return found


def file_usage(path: str) -> TokenUsage:
    """Token usage of a whole rollout file (a subagent's own thread)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return TokenUsage()
    return token_usage(data, 0)


# -- the end of a turn --------------------------------------------------------------------------------------

TURN_END_WAIT_SECONDS = 2.0
"""How long ``prepare-transcript`` waits for Codex to flush the turn its Stop hook announced."""
TURN_END_SCAN_BYTES = 4 << 20


def holds_turn_end(path: str, turn_id: str, message: str) -> bool:
    """True when the rollout's complete lines already hold the end of the turn a Stop hook announced.

    Codex runs the Stop hook after the turn's last response but writes the rollout from a background
    task, so the final assistant message may still be on its way. The turn has ended in the file once
    its final message is there (or its ``task_complete``); meeting the turn's start first means not yet.
    """
    if not os.path.exists(path):
        return False
    if not turn_id and not message:
        return True
    scanned = 0
    for line in offsets.reverse_lines(path):
        scanned += len(line) + 1
        if scanned > TURN_END_SCAN_BYTES:
            return False
        for record in records([line], b"task_complete", b"task_started", b'"assistant"', b"AgentMessage"):
            payload = payload_of(record)
            kind = event_type(record)
            same_turn = bool(turn_id) and payload.get("turn_id") == turn_id
            if kind == "event_msg/task_complete" and same_turn:
                return True
            if kind == "event_msg/task_started" and same_turn:
                return not message
            if (
                message
                and kind == "response_item/message"
                and payload.get("role") == "assistant"
                and assistant_text(payload) == message
            ):
                return True
            if (
                message
                and kind == "event_msg/item_completed"
                and agent_message_text(payload.get("item")) == message
            ):
                return True
    return False


def wait_for_turn_end(path: str, turn_id: str, message: str, timeout: float = TURN_END_WAIT_SECONDS) -> bool:
    """Poll, briefly and bounded, until ``holds_turn_end``; True if it did within ``timeout``."""
    import time

    deadline = time.monotonic() + timeout
    delay = 0.01
    while not holds_turn_end(path, turn_id, message):
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
    return True
