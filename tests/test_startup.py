"""No agent's hot subcommands import pydantic, tomlkit, YAML or lock libraries; its hook path no json, re or hashlib."""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from agent_scripts import InstalledAgent, installed_agents
from entire_core.testing.pytest_plugin import Imports, heavy
from entire_core.testing.runner import Sandbox, imported_modules, importtime_modules

AGENTS = installed_agents()


def _hot_calls(agent: InstalledAgent) -> list[tuple[list[str], bytes]]:
    payload = json.dumps({"hook_type": "x", "session_id": "s-1", "session_ref": "", "timestamp": ""}).encode()
    calls: list[tuple[list[str], bytes]] = [(["info"], b""), (["--help"], b""), (["detect"], b"")]
    if agent.cls.has("transcript_analyzer"):
        calls.append((["get-transcript-position", "--path", "/nonexistent"], b""))
    for hook in getattr(agent.cls, "hook_names", ()):
        calls.append((["parse-hook", "--hook", hook], payload))
        calls.append((["parse-hook", "--hook", hook], b""))
    return calls


@pytest.mark.parametrize("agent", AGENTS, ids=[a.name for a in AGENTS])
def test_hot_subcommands_import_nothing_heavy(agent: InstalledAgent, imports: Imports) -> None:
    for args, stdin in _hot_calls(agent):
        modules = imports(Path(agent.script), *args, stdin=stdin)
        assert "entire_core.cli" in modules, args
        assert heavy(modules) == set(), f"{agent.name} {args}"
        if args[0] in HOOK_PATH:
            assert modules & NEVER_ON_HOOK_PATH == set(), f"{agent.name} {args}"


INFO_NEEDS = {"entire_core.cli_stdio", "entire_core.commands", "entire_core._json", "entire_core.validate",
              "entire_core.front", "atexit"}  # fmt: skip
"""What ``info`` loads beyond the interpreter's start-up and the agent's modules (whose package holds the
console script's ``main``, from ``entire_core.cli``): the answer channel, the handler and its helpers;
``entire_core.front``, which a launcher's process asks whether to put the front in its place (an
installed plugin's ``info`` is then the front's, without Python); ``atexit``, built into the
interpreter, is what ``cli.exit_now`` asks whether exit has work to do."""


@pytest.mark.parametrize("agent", AGENTS, ids=[a.name for a in AGENTS])
def test_info_imports_only_the_dispatcher_and_its_handler(
    agent: InstalledAgent, imports: Imports, sandbox: Sandbox
) -> None:
    before = imported_modules(Path(agent.script), [], sandbox, code=f"import {agent.cls.__module__}")
    extra = imports(Path(agent.script), "info") - before
    assert {m for m in extra if not m.startswith(agent.cls.__module__.split(".")[0])} == INFO_NEEDS


# -- every hook-path call of a real session ---------------------------------------------------------------

HOOK_PATH = ("parse-hook", "get-transcript-position", "prepare-transcript", "read-transcript", "extract-prompts",
             "extract-modified-files", "extract-all-modified-files", "calculate-tokens", "calculate-total-tokens")  # fmt: skip
"""The subcommands the Entire CLI runs on every prompt and every turn's end."""

NEVER_ON_HOOK_PATH = frozenset(
    ["json", "re", "enum", "hashlib", "_hashlib", "_strptime", "datetime", "contextlib", "typing", "dataclasses",
     "collections", "functools"]
)  # fmt: skip
"""Each of these costs a share of python's own start-up; ``re`` alone pulls enum, functools and collections."""

NOT_FOR_A_SMALL_SESSION = frozenset(["entire_core.cutting", "entire_agent_openai_codex.hooks"])
"""Loaded only when a record is cut (no bundled session has one that big) or hooks are installed."""

ONLY_WHEN_NEEDED = frozenset(["entire_core.errors", "select", "zlib"])
"""The error classes load only to refuse; ``select`` only for a payload pipe that stays open; ``zlib``
only for a re-based view's tag or a view 0.1 made. The last two are shared libraries on most builds."""


_run = subprocess.run


def _payload_from_a_file(*args: Any, **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run`` with a bytes ``input`` given as a file already at its end, never a pipe.

    The CLI writes a hook's payload and closes the pipe before the plugin's interpreter is up. On a
    loaded machine the replay's own pipe may still be open when the plugin reads it, which rightly
    loads ``select`` (ONLY_WHEN_NEEDED): a file is the payload as the CLI gives it, every time.
    """
    data = kwargs.get("input")
    if not isinstance(data, bytes):
        return _run(*args, **kwargs)
    with tempfile.TemporaryFile() as payload:
        payload.write(data)
        payload.seek(0)
        return _run(*args, **{**kwargs, "input": None, "stdin": payload})


def _calls_of_replayed_session(
    agent: InstalledAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[str, set[str]]]:
    """Replay the agent's bundled session as the CLI runs it; every plugin call with what it imported."""
    from entire_sim import demo
    from entire_sim.plugin import Call, Plugin

    manifest = next(m for m in demo.manifests() if json.loads(m.read_text())["agent"] == agent.name)
    seen: list[tuple[str, set[str]]] = []
    run = Plugin.run

    def run_and_note(self: Plugin, subcommand: str, *args: str, **kwargs: object) -> Call:
        self.base_env = {**self.base_env, "PYTHONPROFILEIMPORTTIME": "1"}  # the replay's own environment
        call = run(self, subcommand, *args, **kwargs)  # pyright: ignore[reportArgumentType]
        seen.append((subcommand, importtime_modules(call.stderr)))
        return call

    monkeypatch.setattr(Plugin, "run", run_and_note)
    monkeypatch.setattr(subprocess, "run", _payload_from_a_file)
    sim, _ = demo.Replay(manifest, tmp_path).run()
    assert [r for r in sim.hook_calls() if r["error"]] == []
    return seen


@pytest.mark.parametrize("agent", AGENTS, ids=[a.name for a in AGENTS])
def test_hook_path_of_a_real_session_imports_no_json_re_or_hashlib(
    agent: InstalledAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _calls_of_replayed_session(agent, tmp_path, monkeypatch)
    checked = {name for name, _ in calls if name in HOOK_PATH}
    assert {"parse-hook", "read-transcript"} <= checked  # the replay ran the hooks and the TurnEnd
    assert all("entire_core.cli" in modules for name, modules in calls if name in HOOK_PATH)
    # Every call on its own: a dict by subcommand would keep only the last parse-hook of the session.
    found = [(i, name, sorted(modules & (NEVER_ON_HOOK_PATH | NOT_FOR_A_SMALL_SESSION | ONLY_WHEN_NEEDED)
                             | heavy(modules)))
             for i, (name, modules) in enumerate(calls) if name in HOOK_PATH]  # fmt: skip
    assert [(i, name, bad) for i, name, bad in found if bad] == []
