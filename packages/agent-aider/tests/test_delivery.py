"""Our deliverers acknowledge the events their ``entire hooks`` calls take (issue 37): the plugin's
``delivered`` command, and the launcher's ``Hooks.settle`` that runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from entire_agent_aider import bootstrap
from entire_agent_aider import state as store
from entire_core import eventqueue, liveness
from entire_core.scratch import Scratch

PLUGIN = str(Path(sys.executable).parent / "entire-agent-aider")


def _state(root: Path, queue: list[dict[str, object]]) -> tuple[str, str]:
    history = str(root / ".aider.chat.history.md")
    Path(history).write_text("")
    scratch = Scratch(str(root), "aider")
    store.save(scratch, history, {"v": store.STATE_VERSION, "queue": queue})
    return history, store.state_path(scratch, history)


def _delivered(root: Path, history: str, token: str, status: int) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENTIRE_")}
    env.update(ENTIRE_REPO_ROOT=str(root), HOME=str(root / "home"), ENTIRE_AGENT_FRONT="0")
    argv = [PLUGIN, "delivered", "--history", history, "--delivery", token, "--status", str(status)]
    return subprocess.run(argv, capture_output=True, env=env, cwd=root, timeout=60, check=False)


def test_delivered_acknowledges_or_releases_the_event_of_its_delivery(tmp_path: Path) -> None:
    mine = liveness.token()
    history, path = _state(tmp_path, [{"type": 3, eventqueue.MARK: mine}, {"type": 4}])
    assert _delivered(tmp_path, history, mine, 1).returncode == 0  # entire hooks failed: answered again
    assert json.loads(Path(path).read_bytes())["queue"] == [{"type": 3, eventqueue.TRIES: 1}, {"type": 4}]
    state = json.loads(Path(path).read_bytes())
    state["queue"][0][eventqueue.MARK] = mine
    Path(path).write_text(json.dumps(state))
    assert _delivered(tmp_path, history, mine, 0).returncode == 0  # the host has it: it leaves
    assert json.loads(Path(path).read_bytes())["queue"] == [{"type": 4}]
    refused = _delivered(tmp_path, history, "not-a-token", 0)
    assert refused.returncode != 0 and b"process token" in refused.stderr


def test_the_launcher_settles_only_a_call_that_took_an_event(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    logger = tmp_path / "logger.py"
    logger.write_text(f"import sys\nopen({str(log)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n")
    history, path = _state(tmp_path, [{"type": 3}])
    hooks = bootstrap.Hooks({"history": history, "state": path, "root": str(tmp_path),
                             "plugin": [sys.executable, str(logger)]})  # fmt: skip
    hooks.settle(0)  # nothing marked as ours: Entire not enabled, or it failed before the plugin
    assert not log.exists()
    _state(tmp_path, [{"type": 3, eventqueue.MARK: bootstrap._token()}])  # pyright: ignore[reportPrivateUsage]
    hooks.settle(7)
    token = liveness.token()  # the launcher's token is its process's, as entire_core.liveness names it
    assert log.read_text() == f"delivered --history {history} --delivery {token} --status 7\n"
    assert hooks.failures == []
