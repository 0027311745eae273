"""The launcher's hooks inside Aider (``bootstrap``): TurnStart before the first model call of a turn,
TurnEnd when Aider asks for the next input, the view brought up to date before each commit.

Aider here is a small stand-in package with the three functions the bootstrap wraps, run by a real
interpreter; ``entire`` and the plugin's ``sync`` are scripts that log their calls into the same file,
so the order of the log is the order in which Aider and Entire met.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from entire_agent_aider import bootstrap, launcher
from entire_agent_aider.agent import AiderAgent

MAIN = """\
import os
from aider.coders.base_coder import Coder
from aider.repo import GitRepo

def main(argv=None):
    coder, repo = Coder(), GitRepo()
    for step in argv:
        if step == "input":
            coder.get_input()
        elif step == "model":
            list(coder.send_message("x"))
        elif step == "confirm":  # Aider asks "Add file to the chat?" through confirm_ask, not get_input
            coder.io_confirm_ask()
        elif step == "commit":
            repo.commit()
    return 0
"""
CODER = """\
import os

def note(text):
    with open(os.environ["FAKE_LOG"], "a") as f:
        f.write(text + "\\n")

class Coder:
    def send_message(self, inp):
        note("model")
        yield ""

    def get_input(self):
        note("input")
        return "x"

    def io_confirm_ask(self):
        note("confirm")
"""
REPO = """\
import os
from aider.coders.base_coder import note

class GitRepo:
    def commit(self, fnames=None):
        note("commit prompt=" + os.environ.get("GIT_TERMINAL_PROMPT", "unset"))
"""
LOGGER = """\
import json, os, sys
if sys.argv[1] == "hooks":
    body = json.loads(sys.stdin.read())
    line = "hooks " + sys.argv[3] + (" turn_over" if body.get("turn_over") else "")
else:
    line = sys.argv[1] + " " + sys.argv[sys.argv.index("--session") + 1]
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(line + "\\n")
"""


def fake_aider(tmp_path: Path, *, with_commit: bool = True) -> Path:
    site = tmp_path / "site"
    (site / "aider" / "coders").mkdir(parents=True)
    (site / "aider" / "__init__.py").write_text("")
    (site / "aider" / "coders" / "__init__.py").write_text("")
    (site / "aider" / "main.py").write_text(MAIN)
    (site / "aider" / "coders" / "base_coder.py").write_text(CODER)
    (site / "aider" / "repo.py").write_text(REPO if with_commit else REPO.replace("def commit", "def kommit"))
    return site


def run_steps(tmp_path: Path, steps: list[str], *, with_commit: bool = True) -> tuple[list[str], str]:
    site = fake_aider(tmp_path, with_commit=with_commit)
    logger = tmp_path / "logger.py"
    logger.write_text(LOGGER)
    entire = tmp_path / "entire"
    entire.write_text(f'#!/bin/sh\nexec {sys.executable} {logger} "$@"\n')
    entire.chmod(0o755)
    log = tmp_path / "log.txt"
    config = {
        "entire": str(entire),
        "agent": "aider",
        "root": str(tmp_path),
        "history": str(tmp_path / ".aider.chat.history.md"),
        "session": "aider-run-1",
        "state": str(tmp_path / "no-state.json"),
        "drain_lock": str(tmp_path / "drain.lock"),
        "hook_of_type": {},
        "plugin": [sys.executable, str(logger)],
        "aider": "aider",
    }
    env = dict(os.environ, PYTHONPATH=str(site), FAKE_LOG=str(log), **{bootstrap.ENV: json.dumps(config)})
    env.pop("GIT_TERMINAL_PROMPT", None)
    done = subprocess.run(
        [sys.executable, bootstrap.__file__, *steps], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return log.read_text().splitlines() if log.exists() else [], done.stderr


def test_turn_start_waits_before_the_model_and_a_confirm_is_not_a_turn_end(tmp_path: Path) -> None:
    log, _ = run_steps(tmp_path, ["input", "model", "confirm", "model", "commit", "input", "input", "model"])
    assert log == [
        "input",  # nothing to end yet
        "hooks turn-start",  # delivered (and finished) before the model is called
        "model",
        "confirm",  # a confirmation inside the turn: no TurnEnd
        "model",  # the turn's second model call: no second TurnStart
        "sync aider-run-1",  # the view is brought up to date before Aider commits
        "commit prompt=0",  # and Entire's commit hooks ask no one
        "hooks turn-end turn_over",  # Aider asks for the next input: the turn is over
        "input",
        "input",  # a turn without a model call (a /command) is no turn
        "hooks turn-start",
        "model",
        "hooks turn-end turn_over",  # Aider exits in a turn: it ends
    ]


def test_commits_outside_a_turn_do_not_sync_and_leave_the_environment_alone(tmp_path: Path) -> None:
    log, _ = run_steps(tmp_path, ["commit", "input"])
    assert log == ["commit prompt=0", "input"]


def test_an_aider_without_a_hook_point_runs_unwrapped(tmp_path: Path) -> None:
    log, stderr = run_steps(tmp_path, ["input", "model", "input"], with_commit=False)
    assert log == ["input", "model", "input"]  # no hook at all: no turn rather than a wrong one
    assert "Entire records no turns of this session" in stderr


def test_an_interpreter_without_aider_runs_the_aider_executable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "aider"
    seen = tmp_path / "seen.json"
    fake.write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        f"json.dump({{'argv': sys.argv[1:], 'inproc': os.environ.get('{bootstrap.ENV}'),"
        f" 'session': os.environ.get('ENTIRE_AIDER_SESSION')}}, open({str(seen)!r}, 'w'))\n"
    )
    fake.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "no-entire-here"))
    assert (
        launcher.run(
            AiderAgent(),
            AiderAgent.commands["run"].parse(["--aider", str(fake), "--", "--chat-history-file", "talk.md"]),
        )
        == 0
    )
    ran = json.loads(seen.read_text())
    # This interpreter has no aider package: the bootstrap hands over to the executable, unwrapped.
    assert ran == {"argv": ["--chat-history-file", "talk.md"], "inproc": None, "session": ran["session"]}
    assert ran["session"].startswith("aider-run-")


@pytest.mark.parametrize(
    ("head", "found"),
    [
        ("#!{py}\n", True),
        ("#!/usr/bin/env {py}\n", True),
        ("#!/bin/sh\n'''exec' {py} \"$0\" \"$@\"\n' '''\n", True),  # pip's form for a long path
        ("#!/bin/bash\necho not python\n", False),
        ("\x7fELF", False),
    ],
)
def test_aiders_interpreter_is_read_from_its_script(tmp_path: Path, head: str, found: bool) -> None:
    script = tmp_path / "aider"
    script.write_text(head.format(py=sys.executable))
    script.chmod(0o755)
    expected = os.path.realpath(sys.executable) if found else None
    got = launcher.aider_interpreter(str(script))
    assert (os.path.realpath(got) if got else None) == expected


def test_a_windows_aider_exe_runs_with_the_python_beside_it(tmp_path: Path) -> None:
    scripts = tmp_path / "Scripts"
    scripts.mkdir()
    (scripts / "aider.exe").write_bytes(b"MZ\x90\x00 a console-script launcher")
    (scripts / "aider.exe").chmod(0o755)  # found on PATH as Windows finds it
    assert launcher.aider_interpreter(str(scripts / "aider.exe")) is None  # no Python beside it
    (scripts / "python.exe").write_bytes(b"MZ")
    assert launcher.aider_interpreter(str(scripts / "aider.exe")) == str(scripts / "python.exe")
