"""doctor's fixes are the ones that work: following each one makes its check pass."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from entire_agent_aider import doctor, hooks
from entire_agent_aider.agent import AiderAgent
from entire_agent_aider.versions import WINDOW
from entire_core.errors import ConfigError
from entire_core.testing.host import fake_entire, fake_plugin
from entire_core.testing.pytest_plugin import MakeAgent


@pytest.fixture
def agent(tmp_path: Path, make_agent: MakeAgent) -> AiderAgent:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    # Aider is a Python script (a uv tool or pipx install), which the launcher can hook into.
    (bin_dir / "aider").write_text(f"#!{sys.executable}\nprint('aider {WINDOW.newest}')\n")
    (bin_dir / "aider").chmod(0o755)
    fake_entire(bin_dir)
    fake_plugin(bin_dir, "aider")
    agent = make_agent(AiderAgent, PATH=str(bin_dir))
    Path(agent.repo_root, ".entire").mkdir()
    Path(agent.repo_root, ".entire", "settings.json").write_text('{"enabled": true, "external_agents": true}')
    return agent


def failures(agent: AiderAgent) -> dict[str, str | None]:
    return {c.what: c.fix for c in doctor.diagnose(agent).checks if c.status == "FAIL"}


@pytest.mark.skipif(os.name == "nt", reason="POSIX scripts stand in for the programs")
def test_a_ready_repository_passes(agent: AiderAgent) -> None:
    agent.install_hooks()
    report = doctor.diagnose(agent)
    assert (report.exit_code, report.summary()) == (0, "result: 1 warning, 10 ok"), report.render()
    [warning] = [c for c in report.checks if c.status == "WARN"]
    assert warning.what.startswith("plain `aider` records no checkpoints")
    assert warning.fix == "start Aider with `entire-agent-aider run -- <aider arguments>`"


@pytest.mark.skipif(os.name == "nt", reason="POSIX scripts stand in for the programs")
def test_an_aider_that_is_no_python_script_cannot_be_launched(agent: AiderAgent) -> None:
    agent.install_hooks()
    aider = Path(agent.env["PATH"], "aider")
    aider.write_text(f"#!/bin/sh\necho 'aider {WINDOW.newest}'\n")  # a wrapper the launcher cannot see into
    [(what, fix)] = failures(agent).items()
    assert what == "cannot find the Python that runs `aider`, so `entire-agent-aider run` cannot hook into it"
    assert fix is not None and "uv tool install aider-chat" in fix
    aider.write_text(f"#!{sys.executable}\nprint('aider {WINDOW.newest}')\n")  # the fix: a Python tool
    assert failures(agent) == {}


@pytest.mark.skipif(os.name == "nt", reason="POSIX scripts stand in for the programs")
def test_without_the_block_the_fix_is_enable(agent: AiderAgent) -> None:
    conf = hooks.conf_path(agent.repo_root)
    assert failures(agent) == {
        f"Entire's block is not in {conf}": (
            "`entire enable --agent aider` (or start Aider with `entire-agent-aider run -- ...`)"
        )
    }
    agent.install_hooks()  # what `entire enable` runs
    assert failures(agent) == {}


@pytest.mark.skipif(os.name == "nt", reason="POSIX scripts stand in for the programs")
@pytest.mark.parametrize("installed_first", [False, True])
def test_a_users_notification_command_gets_the_edit_that_install_needs(
    agent: AiderAgent, installed_first: bool
) -> None:
    """enable refuses a config that sets our keys, so the fix is removing them, not running enable."""
    conf = Path(hooks.conf_path(agent.repo_root))
    if installed_first:
        agent.install_hooks()
    conf.write_text(
        "notifications-command: say done\nmodel: x\n" + (conf.read_text() if installed_first else "")
    )
    [(what, fix)] = failures(agent).items()
    assert (
        what
        == f"{conf} sets 'notifications-command' outside Entire's block, so Aider runs your command, not Entire's"
    )
    assert fix is not None and fix.startswith(
        f"remove 'notifications-command' from {conf} outside Entire's block"
    )
    assert ("entire enable" in fix) is not installed_first
    if not installed_first:
        with pytest.raises(ConfigError, match="already sets 'notifications-command'"):
            agent.install_hooks()  # `entire enable` alone would fail here
    conf.write_text(conf.read_text().replace("notifications-command: say done\n", ""))  # the fix
    if not installed_first:
        agent.install_hooks()
    assert failures(agent) == {}


@pytest.mark.skipif(os.name == "nt", reason="POSIX scripts stand in for the programs")
def test_an_edited_block_is_reinstalled_and_overrides_are_named(agent: AiderAgent) -> None:
    agent.install_hooks()
    conf = Path(hooks.conf_path(agent.repo_root))
    conf.write_text(conf.read_text().replace("notifications: true", "notifications: false"))
    dotenv = Path(agent.repo_root, ".env")
    dotenv.write_text("AIDER_NOTIFICATIONS=false\n")
    assert failures(agent) == {
        f"Entire's block in {conf} was edited: Aider would not run Entire's command": (
            "`entire-agent-aider install-hooks --force`"
        ),
        f"{dotenv} sets AIDER_NOTIFICATIONS, which overrides .aider.conf.yml": (
            f"remove the AIDER_NOTIFICATIONS line from {dotenv}"
        ),
    }
    agent.install_hooks(force=True)
    dotenv.unlink()
    assert failures(agent) == {}
