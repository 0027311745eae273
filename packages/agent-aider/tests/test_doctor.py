"""doctor's fixes are the ones that work: following each one makes its check pass."""

from __future__ import annotations

import os
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
    (bin_dir / "aider").write_text(f"#!/bin/sh\necho 'aider {WINDOW.newest}'\n")
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
    assert (report.exit_code, report.summary()) == (0, "result: 10 ok"), report.render()


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


@pytest.mark.skipif(os.name == "nt", reason="POSIX scripts stand in for the programs")
def test_a_config_aider_cannot_parse_fails(agent: AiderAgent) -> None:
    conf = Path(hooks.conf_path(agent.repo_root))
    conf.write_text("model: [unclosed\n")
    [(what, fix)] = failures(agent).items()
    assert (
        what.startswith(f"{conf} cannot be read as Aider reads it")
        and fix == f"edit {conf} until it is valid YAML"
    )


@pytest.mark.skipif(os.name == "nt", reason="POSIX scripts stand in for the programs")
def test_external_agents_off_fails_with_enable(agent: AiderAgent) -> None:
    agent.install_hooks()
    Path(agent.repo_root, ".entire", "settings.json").write_text('{"enabled": true}')
    assert failures(agent) == {
        "the Entire CLI does not find entire-agent-aider: every hook fails with 'unknown agent' "
        "(external_agents is off)": "`entire enable --agent aider`"
    }


@pytest.mark.skipif(os.name == "nt", reason="POSIX scripts stand in for the programs")
def test_outside_a_git_repository_the_fix_is_git_init(tmp_path: Path, make_agent: MakeAgent) -> None:
    agent = make_agent(AiderAgent, git=False, PATH=str(tmp_path / "nothing"))
    report = doctor.diagnose(agent)
    fixes = [c.fix for c in report.checks if c.status == "FAIL"]
    assert "`git init`" in fixes and not any("entire enable" in (f or "") for f in fixes), report.render()
    assert "skip  Entire's block in .aider.conf.yml (not checked: not a git repository)" in report.render()
