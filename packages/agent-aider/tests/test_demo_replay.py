"""The bundled demo (``demo/replay.json``): it replays what ``notify`` really sends, and what Entire records.

The manifest grows the captured ``.aider.chat.history.md`` (and the analytics log) to where they
stood at each notification of the capture, then fires the hook calls of that notification. The
first test runs the real ``notify.deliver`` at the same points, through the simulator's ``entire``
shim, and checks that it makes exactly the manifest's calls with exactly its payloads.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from entire_agent_aider import notify
from entire_core.paths import state_dir
from entire_sim import Simulator, demo

MANIFEST = Path(__file__).parents[1] / "demo" / "replay.json"


class Sandbox:
    """The demo's sandbox layout (``{root}``, ``{repo}``, ``{home}``) and its placeholder table."""

    def __init__(self, root: Path) -> None:
        self.spec: dict[str, Any] = json.loads(MANIFEST.read_text(encoding="utf-8"))
        self.root, self.repo, self.home = root, root / "repo", root / "home"
        names = {"{root}": str(root), "{repo}": str(self.repo), "{home}": str(self.home)}
        self.expand = lambda text: _replace(text, names)
        self.table = {old: self.expand(new) for old, new in self.spec["placeholders"].items()}

    def read(self, relative: str) -> bytes:
        return _replace((MANIFEST.parent / relative).read_text(encoding="utf-8"), self.table).encode()


def _replace(text: str, table: dict[str, str]) -> str:
    for old, new in table.items():
        text = text.replace(old, new)
    return text


def test_the_manifest_replays_what_notify_delivers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    box = Sandbox(tmp_path)
    demo.make_repo(box.repo)
    box.home.mkdir()
    (tmp_path / "tmp").mkdir()
    base = {
        "PATH": os.environ["PATH"],
        "HOME": str(box.home),
        "LANG": "C.UTF-8",
        "TMPDIR": str(tmp_path / "tmp"),
    }
    base.update({k: box.expand(v) for k, v in box.spec["env"].items()})
    sim = Simulator(box.repo, state_dir=tmp_path / "state", env=base)
    sim.install_shim(tmp_path / "bin")
    for name, value in sim.env().items():
        monkeypatch.setenv(name, value)  # notify finds the shim on PATH, as under Aider
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    sim.enable("aider")
    history = str(box.repo / ".aider.chat.history.md")
    expected: list[tuple[str, Any]] = []
    notified = 0
    after_write = False
    for step in box.spec["steps"]:
        if "write" in step:
            target = Path(box.expand(step["write"]))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(b"".join(box.read(step["from"]).splitlines(keepends=True)[: step["lines"]]))
            after_write = True
            continue
        payload = json.loads(box.read(step["payload"]))
        expected.append((step["hook"], payload))
        if after_write:  # a notification: the first call is notify's, the rest follow from the queue
            assert payload["source"] == "notification" and step["hook"] == "turn-end"
            assert notify.deliver("aider", str(box.repo), history, "turn-end", payload) == 0
            notified += 1
        after_write = False
    assert notified == 9
    assert [(c["hook"], c["payload"]) for c in sim.hook_calls()] == expected
    assert sim.violations() == []
    # Nine deliveries and an install leave nothing of ours in the temporary directory, and no lock in
    # the plugin's state directory (where the drain lock is, while a delivery holds it).
    assert os.listdir(tmp_path / "tmp") == []
    state = Path(state_dir(os.environ, "aider"))  # notify's own environment, as under Aider
    assert state.is_dir() and list(state.glob("drain-*")) == []


def test_what_entire_records_from_the_demo(tmp_path: Path) -> None:
    sim, _ = demo.Replay(MANIFEST, tmp_path).run()
    assert sim.violations() == []
    assert [c["error"] for c in sim.hook_calls() if c["error"]] == []
    turns = [(c["prompt"], c["transcript_files"], c["files"], _usage(c["tokens"])) for c in sim.checkpoints()]
    assert turns == [
        # run 2 (interactive): the bell at "Create new file?" did not end the turn before its edit
        ("Please create NOTES.md describing the change", ["NOTES.md"], ["NOTES.md"], (1234, 56, 1)),
        ("What does greet do?", [], [], None),  # no change: the CLI computes no usage
        # run 3 (piped input, whole-file edits): markdown figures, no analytics log
        ("WHOLE: rewrite hello.py greeting", ["hello.py"], ["hello.py"], (817, 40, 1)),
        ("What changed?", [], [], None),
        # run 4 (architect, --message: no bell of its own) found at run 5's bell; the editor step is
        # part of the architect's turn, with both calls, exact from the analytics log
        ("ARCHPLAN make greet say Howdy", ["hello.py"], ["hello.py"], (289 + 1627, 35 + 36, 2)),
        ("What does greet do?", [], [], None),  # run 5
        # run 6: /clear and /undo are local commands, not turns
        ("What does greet do?", [], [], None),
        ("And what about main?", [], [], None),
        ("Explain hello.py", [], [], None),
        ("WHOLE: rewrite hello.py greeting", ["hello.py"], ["hello.py"], (842, 40, 1)),  # run 7
    ]
    events = [(r["event_name"], r["event"]["session_id"]) for r in sim.hook_calls()]
    sessions = list(dict.fromkeys(session for _, session in events))
    assert [s.split("-")[1:3] for s in sessions] == [
        ["20261130", "030451"], ["20261130", "030506"], ["20261130", "030510"], ["20261130", "030514"],
        ["20261130", "030543"], ["20261130", "030555"],
    ]  # fmt: skip
    # Every session but the last (Aider still "running") ended when the next one appeared.
    ended = [session for name, session in events if name == "SessionEnd"]
    assert ended == sessions[:-1]


def _usage(tokens: dict[str, Any] | None) -> tuple[int, int, int] | None:
    if tokens is None:
        return None
    assert tokens["cache_creation_tokens"] == tokens["cache_read_tokens"] == 0
    return tokens["input_tokens"], tokens["output_tokens"], tokens["api_call_count"]
