"""Hooks and the TurnEnd subcommands import nothing heavy (``python -X importtime`` on the console script)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from entire_core.testing.pytest_plugin import Imports, heavy
from gemini_fixtures import RUN1, RUN1_CHAT, RUN3, RUN3_SUBAGENT_DIR, RUN3_SUBAGENT_MAIN

CHAT = str(RUN1_CHAT)


def _payload(run: Path, name: str) -> bytes:
    return (run / "hook-payloads" / name).read_bytes()


HOT: list[tuple[list[str], bytes]] = [
    (["info"], b""),
    (["--help"], b""),
    (["detect"], b""),
    (["get-transcript-position", "--path", CHAT], b""),
    (["parse-hook", "--hook", "session-start"], _payload(RUN3, "014-7cd6fc3e-SessionStart.json")),
    (["parse-hook", "--hook", "before-agent"], _payload(RUN1, "001-e7a78f69-BeforeAgent.json")),
    (["parse-hook", "--hook", "pre-compress"], _payload(RUN1, "002-e7a78f69-PreCompress.json")),
    (["parse-hook", "--hook", "after-tool"], _payload(RUN3, "046-eb665009-AfterTool.json")),
    (["parse-hook", "--hook", "after-agent"], b""),
    (["prepare-transcript", "--session-ref", CHAT], b""),
    (["read-transcript", "--session-ref", CHAT], b""),
    (["extract-prompts", "--session-ref", CHAT, "--offset", "15"], b""),
    (["extract-modified-files", "--path", CHAT, "--offset", "15"], b""),
    (["calculate-tokens", "--offset", "15"], RUN1_CHAT.read_bytes()),
    (["extract-all-modified-files", "--offset", "2", "--subagents-dir", str(RUN3_SUBAGENT_DIR / "subagents")],
     RUN3_SUBAGENT_MAIN.read_bytes()),
    (["calculate-total-tokens", "--offset", "2", "--subagents-dir", str(RUN3_SUBAGENT_DIR / "subagents")],
     RUN3_SUBAGENT_MAIN.read_bytes()),
]  # fmt: skip


@pytest.fixture
def script(launcher: Callable[[str, str], Path]) -> Path:
    return launcher("google-gemini", "entire_agent_google_gemini:main")


@pytest.mark.parametrize(("args", "stdin"), HOT, ids=[f"{a[0]}-{i}" for i, (a, _) in enumerate(HOT)])
def test_hot_subcommands_stay_light(script: Path, imports: Imports, args: list[str], stdin: bytes) -> None:
    modules = imports(script, *args, stdin=stdin)
    assert "entire_agent_google_gemini.agent" in modules  # the measurement itself works
    assert heavy(modules) == set()
    # nor the config editor or subprocess machinery, which only install-hooks and generate-text need
    assert not {"entire_core.config.json", "subprocess", "entire_agent_google_gemini.doctor"} & modules


def test_install_hooks_does_use_the_editor(script: Path, imports: Imports) -> None:
    assert "entire_core.config.json" in imports(script, "install-hooks")
