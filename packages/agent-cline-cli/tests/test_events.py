"""Hook payloads to events: each session's in order, exactly once, whatever order the hooks run in.

The payloads and session files are the real Cline's (``cline_fixtures``); the plugin runs as the host
runs it, one process per hook, through its console script.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from cline_fixtures import CAPTURES, Capture
from entire_core.testing.runner import Sandbox

HOOK = {"TaskStart": "task-start", "TaskResume": "task-resume", "TaskComplete": "task-complete"}
SCRIPT = str(Path(sys.executable).parent / "entire-agent-cline-cli")


def payloads(capture: Capture) -> list[tuple[str, bytes]]:
    """The captured hooks we install, in the order Cline fired them."""
    found = []
    for path in capture.hooks:
        event = path.stem.split("-", 1)[1]
        if event in HOOK:
            found.append((HOOK[event], path.read_bytes()))
    return found


def session_of(payload: bytes) -> str:
    return json.loads(payload)["sessionContext"]["rootSessionId"]


class Plugin:
    """The console script in a sandbox whose Cline data directory holds a capture's sessions."""

    def __init__(self, root: Path, capture: Capture) -> None:
        self.sandbox = Sandbox(root)
        self.sandbox.git_init()
        data = root / "cline-data"
        shutil.copytree(capture.sessions, data / "sessions")
        self.env = {**self.sandbox.env, "CLINE_DATA_DIR": str(data)}

    def hook(self, hook: str, payload: bytes) -> dict[str, Any] | None:
        done = subprocess.run([SCRIPT, "parse-hook", "--hook", hook], input=payload, capture_output=True,
                              cwd=self.sandbox.repo, env=self.env, timeout=60, check=False)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)


def summary(event: dict[str, Any] | None) -> tuple[Any, ...] | None:
    if event is None:
        return None
    return event["type"], event["session_id"], event.get("prompt", "")


@pytest.fixture(params=[c.version for c in CAPTURES])
def capture(request: pytest.FixtureRequest) -> Capture:
    return next(c for c in CAPTURES if c.version == request.param)


def expected(capture: Capture) -> list[tuple[Any, ...]]:
    """Per session, in order: its turn's start (with the prompt), then its end."""
    out = []
    for prompt, session in capture.session_of.items():
        out += [(2, session, prompt), (3, session, "")]
    return out


def test_in_order(tmp_path: Path, capture: Capture) -> None:
    plugin = Plugin(tmp_path, capture)
    got = [summary(plugin.hook(h, p)) for h, p in payloads(capture)]
    events = [e for e in got if e is not None]
    by_session = {s: [e for e in events if e[1] == s] for s in capture.session_of.values()}
    for prompt, session in capture.session_of.items():
        assert by_session[session] == [(2, session, prompt), (3, session, "")]
    # a subagent's hooks deliver nothing of their own
    assert got.count(None) == 2


@pytest.mark.parametrize("order", ["ends first", "reversed"])
def test_a_late_start_never_follows_its_end(tmp_path: Path, order: str) -> None:
    capture = CAPTURES[-1]
    plugin = Plugin(tmp_path, capture)
    hooks = [(h, p) for h, p in payloads(capture) if not json.loads(p)["parent_agent_id"]]
    hooks = sorted(hooks, key=lambda hp: hp[0] == "task-start") if order == "ends first" else hooks[::-1]
    events = [summary(plugin.hook(h, p)) for h, p in hooks]
    for session in capture.session_of.values():
        mine = [e[0] for e in events if e is not None and e[1] == session]
        assert mine == [2, 3], (session, events)


def test_concurrent_hooks_deliver_each_event_once_in_order(tmp_path: Path) -> None:
    """Every hook of five sessions at once, four at a time: per session a start, then its end."""
    capture = CAPTURES[-1]
    plugin = Plugin(tmp_path, capture)
    hooks = payloads(capture)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda hp: plugin.hook(*hp), hooks))
    events = [e for e in results if e is not None]
    assert len(events) == 2 * len(capture.session_of)
    for prompt, session in capture.session_of.items():
        mine = sorted((e for e in events if e["session_id"] == session), key=lambda e: e["type"])
        assert [(e["type"], e.get("prompt", "")) for e in mine] == [(2, prompt), (3, "")]
    # the state says nothing is left to deliver, and no lock or temporary file is left behind
    for session in capture.session_of.values():
        probe = {"sessionContext": {"rootSessionId": session}, "parent_agent_id": "agent_1"}  # delivers only
        assert plugin.hook("task-complete", json.dumps(probe).encode()) is None
    left = [p for p in (tmp_path).rglob("*") if p.name.endswith((".tmp", ".next"))]
    assert left == []


def test_a_resumed_tui_session_keeps_one_task_id(tmp_path: Path) -> None:
    """Two turns of a resumed session carry one ``taskId``: the times tell them apart."""
    capture = CAPTURES[-1]
    plugin = Plugin(tmp_path, capture)
    session = capture.session_of["just say hi"]
    base = json.loads(next(p for h, p in payloads(capture) if session_of(p) == session and h == "task-start"))
    times = ["2026-12-07T22:00:00.000Z", "2026-12-07T22:00:01.000Z", "2026-12-07T22:00:05.000Z",
             "2026-12-07T22:00:06.000Z"]  # fmt: skip
    hooks = [
        ("task-resume" if i % 2 == 0 else "task-complete", {**base, "timestamp": t})
        for i, t in enumerate(times)
    ]
    kinds = [e["type"] for e in (plugin.hook(h, json.dumps(p).encode()) for h, p in hooks) if e]
    assert kinds == [2, 3, 2, 3]


def test_every_order_of_two_turns(tmp_path: Path) -> None:
    """Any order of a two-turn session's four hooks: starts and ends alternate, the first a start, the last an
    end. Where a hook of the first turn comes before any of the second's, both turns are heard apart; else
    the first turn's late hooks fall into the second (the host heard that one start already)."""
    capture = CAPTURES[-1]
    session = capture.session_of["just say hi"]
    base = json.loads(next(p for h, p in payloads(capture) if session_of(p) == session and h == "task-start"))
    hooks = [("task-resume", "22:00:00"), ("task-complete", "22:00:01"), ("task-resume", "22:00:05"),
             ("task-complete", "22:00:06")]  # fmt: skip
    for n, order in enumerate(itertools.permutations(hooks)):
        if n % 3:
            continue  # a third of the 24 orders: each starts a process per hook
        plugin = Plugin(tmp_path / str(n), capture)
        got = []
        for hook, at in order:
            payload = {**base, "timestamp": f"2026-12-07T{at}.000Z"}
            event = plugin.hook(hook, json.dumps(payload).encode())
            got.append(event["type"] if event else None)
        kinds = [k for k in got if k]
        assert kinds in ([2, 3, 2, 3], [2, 3]), order
        first_turn_first = min(i for i, (_, at) in enumerate(order) if at < "22:00:02") == 0
        assert (kinds == [2, 3, 2, 3]) == first_turn_first, order
