"""Hooks and the TurnEnd subcommands import nothing heavy (``python -X importtime`` on the console script)."""

from __future__ import annotations

from pathlib import Path

import pytest
from entire_core.testing.runner import Sandbox, heavy_imports, imported_modules, write_launcher
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


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_launcher(
        tmp_path_factory.mktemp("bin"), "google-gemini", "entire_agent_google_gemini.__main__:main"
    )


@pytest.mark.parametrize(("args", "stdin"), HOT, ids=[f"{a[0]}-{i}" for i, (a, _) in enumerate(HOT)])
def test_hot_subcommands_stay_light(script: Path, tmp_path: Path, args: list[str], stdin: bytes) -> None:
    modules = imported_modules(script, args, Sandbox(tmp_path), stdin=stdin)
    assert "entire_agent_google_gemini.agent" in modules  # the measurement itself works
    assert heavy_imports(modules) == set()
    # nor the config editor or subprocess machinery, which only install-hooks and generate-text need
    assert not {"entire_core.config.json", "subprocess", "entire_agent_google_gemini.doctor"} & modules


def test_install_hooks_does_use_the_editor(script: Path, tmp_path: Path) -> None:
    assert "entire_core.config.json" in imported_modules(script, ["install-hooks"], Sandbox(tmp_path))
