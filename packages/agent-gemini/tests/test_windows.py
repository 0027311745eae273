"""Installing on Windows, exercised on Linux with the platform check forced.

Gemini CLI runs a hook's one ``command`` through PowerShell on Windows (``getShellConfiguration`` in
packages/core/src/utils/shell-utils.ts; checked in the 0.61.0 bundle), so install writes the
PowerShell-guarded form there and the POSIX-guarded one elsewhere; both are ours.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from entire_agent_google_gemini import hooks
from entire_agent_google_gemini.agent import GeminiAgent
from entire_core.errors import AgentError

PS_STOP = (
    "if (Get-Command entire -ErrorAction SilentlyContinue) "
    "{ entire hooks google-gemini after-agent ; exit $LASTEXITCODE } else { exit 0 }"
)


def commands(repo: Path) -> dict[str, str]:
    document = json.loads((repo / ".gemini" / "settings.json").read_text())
    return {event: groups[-1]["hooks"][-1]["command"] for event, groups in document["hooks"].items()}


@pytest.mark.usefixtures("windows")
def test_install_on_windows_writes_the_powershell_guarded_commands(agent: GeminiAgent, repo: Path) -> None:
    assert agent.install_hooks() == 7
    installed = commands(repo)
    assert installed["AfterAgent"] == PS_STOP
    for event, (hook, _, _) in {e: (h, m, t) for h, (e, m, t) in hooks.EVENTS.items()}.items():
        assert (
            installed[event].startswith("if (Get-Command entire ")
            and f"google-gemini {hook} ;" in installed[event]
        )
    assert agent.are_hooks_installed() and agent.install_hooks() == 0
    agent.uninstall_hooks()
    assert not (repo / ".gemini").exists()


def test_a_windows_install_is_ours_on_linux_and_is_replaced_not_duplicated(
    agent: GeminiAgent, repo: Path, force_platform: Callable[[str], None]
) -> None:
    force_platform("win32")
    agent.install_hooks()
    force_platform("linux")
    assert agent.are_hooks_installed()
    assert agent.install_hooks() == 7  # a settings file shared with a Windows machine flips to this OS's form
    installed = commands(repo)
    assert (
        installed["AfterAgent"]
        == "command -v entire >/dev/null 2>&1 || exit 0; exec entire hooks google-gemini after-agent"
    )
    document = json.loads((repo / ".gemini" / "settings.json").read_text())
    assert all(len(groups) == 1 and len(groups[0]["hooks"]) == 1 for groups in document["hooks"].values())
    force_platform("win32")
    agent.install_hooks()
    force_platform("linux")
    agent.uninstall_hooks()  # the other platform's form is removed too
    assert not (repo / ".gemini").exists()


@pytest.mark.parametrize("model", ['gemini" & calc', "m%PATH%", "a^b", "-x", "a b"])
def test_generate_text_refuses_a_model_cmd_exe_would_misread(agent: GeminiAgent, model: str) -> None:
    # On Windows gemini is npm's gemini.cmd, run through cmd.exe; the check comes before anything runs.
    with pytest.raises(AgentError, match="invalid model name"):
        agent.generate_text("hi", model)


@pytest.mark.usefixtures("windows")
def test_generate_text_private_home_links_the_gemini_files_under_userprofile_on_windows(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from entire_agent_google_gemini import textgen
    from entire_core.process import Guard

    calls: list[dict[str, object]] = []

    def run(self: Guard, argv: list[str], **kwargs: Any) -> SimpleNamespace:
        calls.append(
            {
                **kwargs,
                "settings": os.readlink(Path(kwargs["env"]["GEMINI_CLI_HOME"], ".gemini", "settings.json")),
            }
        )
        return SimpleNamespace(returncode=0, stdout=b'{"response": "ok"}', stderr=b"")

    monkeypatch.setattr(Guard, "run", run)
    monkeypatch.setattr(textgen, "find_gemini", lambda env: "gemini")
    env = {"HOME": str(tmp_path / "msys"), "USERPROFILE": str(tmp_path / "profile"), "GEMINI_API_KEY": "k",
           "TMPDIR": str(tmp_path)}  # fmt: skip
    (tmp_path / "profile" / ".gemini").mkdir(parents=True)
    (tmp_path / "profile" / ".gemini" / "settings.json").write_text("{}")
    assert textgen.generate("hi", "gemini-2.5-flash", env) == "ok"
    assert calls[0]["settings"] == str(tmp_path / "profile" / ".gemini" / "settings.json")
    assert not str(calls[0]["cwd"]).startswith(str(repo))
