"""A deliberately broken plugin: ``BROKEN_MODE`` picks which protocol rule it breaks.

It is written without entire_core on purpose, so it can break rules the core never would. Every
mode exists so that a simulator test can show the simulator notices that exact violation.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import time

MODE = os.environ.get("BROKEN_MODE", "")
MARKER = os.environ.get("BROKEN_MARKER")  # a file touched whenever the plugin runs at all


def info() -> dict[str, object]:
    return {
        "protocol_version": 2 if MODE == "protocol-2" else 1,
        "name": "other-name"
        if MODE == "name-mismatch"
        else os.path.basename(sys.argv[0]).removeprefix("entire-agent-"),
        "type": "Broken Plugin",
        "description": "breaks the protocol on purpose",
        "is_preview": "yes" if MODE == "info-bool-string" else False,
        "protected_dirs": [],
        "hook_names": ["start", "prompt", "stop", "task-end", "--bad"]
        if MODE == "bad-hook-name"
        else ["start", "prompt", "stop", "task-end"],
        "capabilities": {"hooks": True, "transcript_analyzer": True, "token_calculator": True},
    }


EVENTS = {
    "float-type": '{"type": 3.0, "session_id": "s"}',
    "string-type": '{"type": "3", "session_id": "s"}',
    "naive-timestamp": '{"type": 1, "session_id": "s", "timestamp": "2026-01-01T00:00:00"}',
    "metadata-int": '{"type": 1, "session_id": "s", "metadata": {"n": 1}}',
    "bad-session-id": '{"type": 1, "session_id": "../../etc"}',
    "bad-tool-id": '{"type": 6, "session_id": "s", "tool_use_id": "a b"}',
    "unknown-type": '{"type": 12, "session_id": "s"}',
    "trailing-garbage": '{"type": 1, "session_id": "s"} and more',
    "two-values": '{"type": 1, "session_id": "s"}\n{"type": 2, "session_id": "s"}',
    "empty-parse-hook": "",
    "turn-end-no-ref": '{"type": 3, "session_id": "s"}',
    "turn-end-missing-ref": '{"type": 3, "session_id": "s", "session_ref": "/nonexistent/transcript.jsonl"}',
    "turn-start-no-id": '{"type": 2, "session_id": ""}',
}


def main() -> int:
    if MARKER:
        with open(MARKER, "a", encoding="utf-8") as f:
            f.write(" ".join(sys.argv[1:]) + "\n")
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if MODE == "sleep" and command != "info":
        time.sleep(60)
    if command == "info":
        print(json.dumps(info()))
        return 0
    if MODE == "silent-failure" and command != "info":
        return 3
    if MODE == "traceback" and command != "info":
        sys.stderr.write('Traceback (most recent call last):\n  File "x.py", line 1\nValueError: boom\n')
        return 1
    if command == "parse-hook":
        payload = sys.stdin.buffer.read()
        if MARKER:
            with open(MARKER, "a", encoding="utf-8") as f:
                f.write(f"stdin: {payload.decode(errors='replace')}\n")
        if MODE in EVENTS:
            sys.stdout.write(EVENTS[MODE])
            return 0
        hook = sys.argv[sys.argv.index("--hook") + 1]
        ref = os.environ.get("BROKEN_TRANSCRIPT", "")
        kind = {"start": 1, "prompt": 2, "stop": 3, "task-end": 7}[hook]
        print(json.dumps({"type": kind, "session_id": "s", "session_ref": ref}))
        return 0
    if command == "get-transcript-position":
        print('{"position": 1.5}' if MODE == "float-position" else '{"position": 0}')
        return 0
    if command == "read-transcript":
        if MODE == "huge-transcript":
            sys.stdout.buffer.write(b"x" * (10 * 1024 * 1024 + 1))
        else:
            sys.stdout.buffer.write(b'{"line": 1}\n')
        return 0
    if command == "extract-prompts":
        print('{"prompts": "not a list"}' if MODE == "prompts-string" else '{"prompts": []}')
        return 0
    if command == "extract-modified-files":
        print('{"files": ["a.txt", 5], "current_position": 0}' if MODE == "files-int" else
              '{"files": ["a.txt"], "current_position": 0}')  # fmt: skip
        return 0
    if command == "calculate-tokens":
        print(
            '{"input_tokens": "10"}'
            if MODE == "tokens-string"
            else '{"input_tokens": 10, "api_call_count": 1}'
        )
        return 0
    if command == "chunk-transcript":
        data = sys.stdin.buffer.read()
        print(json.dumps({"chunks": [base64.urlsafe_b64encode(b"\xfb\xff" + data).decode()]}))
        return 0
    sys.stderr.write(f"unknown subcommand {command}\n")
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
