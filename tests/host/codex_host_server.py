"""The Codex end-to-end test's scripted Responses-API server, with the scripts the ``host`` scenarios add.

Every script of ``codex_scripted_server`` stays as it is; these keywords are added:

- ``MID-COMMIT``: apply_patch adding mid.txt, then the shell tool running ``git commit`` of mid.txt (a
  commit the agent makes in the middle of its turn), then apply_patch adding late.txt, then a message.
- ``EDIT-THREE``: apply_patch updating late.txt and adding notes.txt, then a message.
- ``TEXT-ONLY``: one message and nothing else.

Each prompt of a scenario carries one keyword, because the server picks the script from the last
prompt that has one (a resumed session's history holds the earlier ones).

Run: ``python codex_host_server.py --port N --log REQUESTS.jsonl [--lifetime SECONDS]``.
"""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import host_server

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "packages" / "agent-codex" / "tests" / "e2e"))

base: Any = importlib.import_module("codex_scripted_server")

PATCH_MID = "*** Begin Patch\n*** Add File: mid.txt\n+committed by the agent mid-turn\n*** End Patch\n"
SHELL_COMMIT = host_server.SHELL_COMMIT
PATCH_LATE = "*** Begin Patch\n*** Add File: late.txt\n+written after the agent's commit\n*** End Patch\n"
PATCH_THREE = (
    "*** Begin Patch\n"
    "*** Update File: late.txt\n"
    "@@\n"
    "-written after the agent's commit\n"
    "+edited in turn three\n"
    "*** Add File: notes.txt\n"
    "+notes of turn three\n"
    "*** End Patch\n"
)
FINAL_MID = host_server.ANSWERS["mid-commit"]
FINAL_THREE = "Turn three done: late.txt edited, notes.txt added."
FINAL_TEXT = host_server.ANSWERS["text-only"]

_original_plan = base.plan


def commit_call(n: int) -> dict[str, Any]:
    """The shell tool running the agent's ``git commit``, waited for: its hooks (the host's) take seconds on
    a busy machine, and with the end-to-end server's 2 s the turn would run on while the commit runs."""
    call = base.shell_call(SHELL_COMMIT, n)
    call["arguments"] = json.dumps({"cmd": SHELL_COMMIT, "yield_time_ms": 120000})
    return call


base.KEYWORDS = (*base.KEYWORDS, "MID-COMMIT", "EDIT-THREE", "TEXT-ONLY")


def plan(body: dict[str, Any], headers: dict[str, str], n: int) -> tuple[list[dict[str, Any]], int]:
    """The scenario scripts first, then everything the end-to-end server answers."""
    keyword, step, _ = base._script(body)
    metadata = headers.get("x-codex-turn-metadata", "").replace(" ", "")
    if '"request_kind":"compaction"' in metadata:
        return _original_plan(body, headers, n)
    tools = base._tools(body)
    if keyword == "MID-COMMIT":
        steps = [
            [base.patch_call(tools, PATCH_MID, n)],
            [commit_call(n)],
            [base.patch_call(tools, PATCH_LATE, n)],
            [base.message(FINAL_MID, n)],
        ]
        return steps[min(step, 3)], step
    if keyword == "EDIT-THREE":
        return (
            [base.patch_call(tools, PATCH_THREE, n)] if step == 0 else [base.message(FINAL_THREE, n)]
        ), step
    if keyword == "TEXT-ONLY":
        return [base.message(FINAL_TEXT, n)], step
    return _original_plan(body, headers, n)


base.plan = plan

if __name__ == "__main__":
    raise SystemExit(base.main())
