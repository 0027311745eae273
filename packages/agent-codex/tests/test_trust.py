"""Hook trust: Codex's hashes, the doctor's verdicts and what ``trust`` writes into config.toml."""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest
import tomli_w
from entire_agent_openai_codex import doctor, hooks, trust
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_agent_openai_codex.versions import WINDOW
from entire_core.chain import INSTALL_ENTIRE
from entire_core.cli_flags import Flags
from entire_core.errors import ConfigError
from entire_core.testing.host import fake_entire, fake_plugin
from entire_core.testing.pytest_plugin import MakeAgent

CONFIG = """\
# my Codex config
model = "gpt-5.5"   # keep this comment

[projects."/elsewhere"]
trust_level = "trusted"
"""


def _flags(command: str, *args: str) -> Flags:
    """The command line of one of the agent's commands, parsed as the dispatcher parses it."""
    return OpenAICodexAgent.commands[command].parse(args)


# Hashes Codex 0.171.0 accepted in the end-to-end run: with these entries (and no bypass flag) it ran
# the hooks. A hook's hash does not depend on where its file is, so they hold on any machine.
# (The shared capture's config_with_trust_state.toml cannot serve: its hooks files' commands were
# rewritten to /srv/... after the hashes were computed.) Stop's is that of its 120 s timeout
# (hooks.TURN_END_TIMEOUT_SECONDS), with which Codex 0.171.0 ran the Stop hook under the real host
# (tests/host, the killed run, 2026-12-07).
ACCEPTED = {
    "stop": "sha256:f6bf101472442755ef1aec9e2b504b3afe6d95e40adc1fd15a065ab65e4d3752",
    "session-end": "sha256:9becdd1da3dcbb3d3eb9b09f7042aa2fc565b4debb79254aee32bb9ed7a06f1f",
    "subagent-start": "sha256:b1e22d978f62549c482425866faa9e56587a6e037ab1ed2fd073c667c23a8b75",
}


@pytest.mark.parametrize("hook", sorted(ACCEPTED))
def test_hashes_match_the_ones_codex_accepted(hook: str) -> None:
    event = hooks.HOOK_EVENTS[hook]
    assert trust.handler_hash(event, None, hooks.handler("openai-codex", hook)) == ACCEPTED[hook]


def test_hash_identity_details() -> None:
    handler = {"type": "command", "command": "echo hi"}
    default = trust.handler_hash("Stop", None, handler)
    assert default == trust.handler_hash("Stop", None, handler | {"timeout": 600})  # Codex's default timeout
    assert default == trust.handler_hash("Stop", None, handler | {"timeoutSec": 600})
    assert default != trust.handler_hash("Stop", "*", handler)
    assert default != trust.handler_hash("Stop", None, handler | {"async": True})
    assert default != trust.handler_hash("SessionEnd", None, handler)


def test_on_windows_the_hash_is_over_the_windows_command(monkeypatch: pytest.MonkeyPatch) -> None:
    # Codex (codex-rs/hooks/src/engine/discovery.rs) hashes {command: command_windows.unwrap_or(command),
    # command_windows: None, ...} on Windows: the same identity as a handler whose command is that text.
    ours = hooks.handler("openai-codex", "stop")
    posix = trust.handler_hash("Stop", None, ours)
    assert posix == ACCEPTED["stop"]  # elsewhere commandWindows is not part of the identity
    monkeypatch.setattr(sys, "platform", "win32")
    windows = trust.handler_hash("Stop", None, ours)
    plain = {k: v for k, v in ours.items() if k != "commandWindows"}
    assert windows == trust.handler_hash("Stop", None, plain | {"command": ours["commandWindows"]})
    assert windows != posix
    alias = plain | {"command_windows": ours["commandWindows"]}
    assert trust.handler_hash("Stop", None, alias) == windows
    assert trust.handler_hash("Stop", None, plain) == posix  # no Windows command: command itself


def test_trust_written_on_windows_reads_back_as_trusted(
    agent: OpenAICodexAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent.install_hooks()
    from entire_core import locks

    monkeypatch.setattr(locks, "sys", SimpleNamespace(platform=sys.platform))  # keep this OS's file locks
    monkeypatch.setattr(sys, "platform", "win32")
    hooks_path = os.path.join(agent.repo_root, ".codex", "hooks.json")
    events = json.loads(Path(hooks_path).read_text())["hooks"]
    config_path = os.path.join(agent.env["CODEX_HOME"], "config.toml")
    trust.write_trust(config_path, hooks_path, events, agent.name)
    assert set(statuses(agent)) == {"trusted"}
    monkeypatch.setattr(sys, "platform", "linux")  # the same entries are stale for the POSIX command
    assert set(statuses(agent)) == {"modified"}


@pytest.mark.parametrize(
    ("event", "label"),
    [("SessionStart", "session_start"), ("UserPromptSubmit", "user_prompt_submit"), ("Stop", "stop")],
)
def test_event_labels(event: str, label: str) -> None:
    assert trust.snake(event) == label


@pytest.fixture
def agent(tmp_path: Path, make_agent: MakeAgent) -> OpenAICodexAgent:
    codex_home = tmp_path / "codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(CONFIG)
    return make_agent(
        OpenAICodexAgent, git=True, CODEX_HOME=str(codex_home), PATH=str(tmp_path / "empty-bin")
    )


def statuses(agent: OpenAICodexAgent) -> list[str]:
    config = tomllib.loads(Path(agent.env["CODEX_HOME"], "config.toml").read_text())
    events = json.loads(Path(agent.repo_root, ".codex", "hooks.json").read_text())["hooks"]
    return [
        item.status
        for item in trust.assess(
            os.path.join(agent.repo_root, ".codex", "hooks.json"), events, config, agent.name
        )
    ]


def test_trust_appends_only_our_entries_and_keeps_every_byte(
    agent: OpenAICodexAgent, capsys: pytest.CaptureFixture[str]
) -> None:
    agent.install_hooks()
    assert statuses(agent) == ["untrusted"] * 8
    assert trust.trust_command(agent, _flags("trust")) == 0
    assert "The project itself is not trusted" in capsys.readouterr().out
    text = Path(agent.env["CODEX_HOME"], "config.toml").read_text()
    assert text.startswith(CONFIG)
    assert statuses(agent) == ["trusted"] * 8
    assert trust.trust_command(agent, _flags("trust", "--project")) == 0
    config = Path(agent.env["CODEX_HOME"], "config.toml")
    again = config.read_text()
    repo = os.path.realpath(agent.repo_root)
    # The project goes next to the user's other projects; nothing else moves.
    assert again.replace(f'[projects."{repo}"]\ntrust_level = "trusted"\n\n', "", 1) == text
    assert tomllib.loads(again)["projects"][repo] == {"trust_level": "trusted"}
    # ... and the command names that change too, not only the hooks (already trusted this time).
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"Trusted 8 Entire hooks in {config} ([hooks.state] entries):"
    assert all(line.endswith(" (already trusted)") for line in out[1:9])
    assert out[9:] == [
        f'Marked {repo} a trusted project in {config} ([projects."{repo}"] trust_level = "trusted")'
    ]
    assert trust.trust_command(agent, _flags("trust", "--project")) == 0
    assert config.read_text() == again  # nothing more to write
    assert capsys.readouterr().out.splitlines()[-1] == f"{repo} was already a trusted project in {config}"


def test_modified_disabled_and_moved_hooks(
    agent: OpenAICodexAgent, capsys: pytest.CaptureFixture[str]
) -> None:
    agent.install_hooks()
    trust.trust_command(agent, _flags("trust", "--project"))
    hooks_path = Path(agent.repo_root, ".codex", "hooks.json")
    data = json.loads(hooks_path.read_text())
    data["hooks"]["Stop"][0]["hooks"][0]["timeout"] = 45  # changed since trusted
    data["hooks"]["SessionEnd"].insert(
        0, {"hooks": [{"type": "command", "command": "mine"}]}
    )  # ours moved to 1:0
    hooks_path.write_text(json.dumps(data))
    config_path = Path(agent.env["CODEX_HOME"], "config.toml")
    key = f"{os.path.realpath(hooks_path)}:user_prompt_submit:0:0"
    config = tomllib.loads(config_path.read_text())
    config["hooks"]["state"][key]["enabled"] = False
    config_path.write_text(tomli_w.dumps(config))
    assert statuses(agent) == [
        "trusted",
        "disabled",
        "modified",
        "trusted",
        "trusted",
        "untrusted",
        "trusted",
        "trusted",
    ]
    report = doctor.diagnose(agent).render()
    assert "FAIL  modified since they were trusted, so Codex skips them: stop\n" in report
    assert "FAIL  user-prompt-submit is disabled in config.toml (enabled = false)\n" in report
    assert f'fix: remove `enabled = false` from [hooks.state."{key}"]' in report
    assert "FAIL  untrusted, so Codex skips them: session-end\n" in report
    assert "Entire hooks out of date: stop" in report
    capsys.readouterr()
    trust.trust_command(agent, _flags("trust"))
    states = trust.hook_states(tomllib.loads(config_path.read_text()))
    stale = f"{os.path.realpath(hooks_path)}:session_end:0:0"
    assert stale not in states  # our stale entry went, and the command says so
    assert f"Removed the stale entry {stale} from {config_path}: our hook no longer sits there" in (
        capsys.readouterr().out.splitlines()
    )
    assert states[key]["enabled"] is False  # the user's choice stays
    assert statuses(agent) == [
        "trusted",
        "disabled",
        "trusted",
        "trusted",
        "trusted",
        "trusted",
        "trusted",
        "trusted",
    ]


def test_doctor_names_each_broken_link(agent: OpenAICodexAgent, capsys: pytest.CaptureFixture[str]) -> None:
    assert doctor.doctor(agent, _flags("doctor")) == 1
    lines = capsys.readouterr().out.splitlines()
    hooks_path = os.path.join(agent.repo_root, ".codex", "hooks.json")
    assert lines[0] == f"entire-agent-openai-codex doctor: {agent.repo_root}"
    assert lines[1:] == [
        "FAIL  codex is not on PATH: Codex CLI is not installed",
        f"      fix: `npm install -g @openai/codex@{WINDOW.newest}`",
        f"ok    {agent.repo_root} is in a git repository",
        "FAIL  the `entire` command is not on PATH: every hook exits without recording",
        f"      fix: {INSTALL_ENTIRE}",
        f"FAIL  Entire is not set up in {agent.repo_root}: every hook does nothing",
        "      fix: `entire enable --agent openai-codex`",
        "skip  the Entire CLI finds this plugin (not checked: `entire` is not on PATH)",
        "ok    no stuck OpenAI Codex session (0 in the Entire CLI's session state)",
        f"FAIL  Entire's hooks are not installed: {hooks_path} does not exist",
        "      fix: `entire enable --agent openai-codex` (or `entire-agent-openai-codex install-hooks`)",
        "FAIL  the project is not trusted: Codex ignores .codex/ and every hook in it",
        "      fix: `entire-agent-openai-codex trust --project` (or run `codex` here and accept its trust prompt)",
        "skip  hook trust (not checked: Entire's hooks are not installed)",
        "result: 5 failed, 2 ok, 2 not checked",
    ]
    Path(agent.repo_root, ".codex").mkdir()
    Path(agent.repo_root, ".codex", "hooks.json").write_text('{"hooks": {}, "extra": 1}')
    report = doctor.diagnose(agent).render()
    assert "Codex rejects this file, your own hooks included, because of the top-level key 'extra'" in report
    Path(agent.env["CODEX_HOME"], "config.toml").write_text("model = = 1\n")
    report = doctor.diagnose(agent).render()
    assert "Codex refuses to start" in report
    assert "skip  project and hook trust (not checked: " in report and "the project is" not in report


def test_doctor_passes_when_everything_is_in_place(agent: OpenAICodexAgent, tmp_path: Path) -> None:
    bin_dir = Path(agent.env["PATH"])
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "codex").write_text(f"#!/bin/sh\necho 'codex-cli {WINDOW.newest}'\n")
    (bin_dir / "codex").chmod(0o755)
    fake_entire(bin_dir)
    fake_plugin(bin_dir, agent.name)
    Path(agent.repo_root, ".entire").mkdir()
    Path(agent.repo_root, ".entire", "settings.json").write_text('{"enabled": true, "external_agents": true}')
    agent.install_hooks()
    assert trust.trust_command(agent, _flags("trust", "--project")) == 0
    report = doctor.diagnose(agent)
    assert (report.exit_code, report.summary()) == (0, "result: 10 ok"), report.render()


def test_doctor_fails_on_a_project_config_codex_cannot_parse(agent: OpenAICodexAgent) -> None:
    Path(agent.repo_root, ".codex").mkdir()
    project = Path(agent.repo_root, ".codex", "config.toml")
    project.write_text('model = "gpt-5.5"\n[tui\n')
    report = doctor.diagnose(agent)
    check = next(c for c in report.checks if str(project) in c.what)
    assert check.status == "FAIL" and "Codex refuses to start" in check.what
    assert check.fix == f"edit {project} until it is valid TOML"
    project.write_text('model = "gpt-5.5"\n')
    assert f"ok    {project} parses\n" in doctor.diagnose(agent).render()


def test_doctor_outside_a_git_repository_says_git_init(make_agent: MakeAgent, tmp_path: Path) -> None:
    agent = make_agent(
        OpenAICodexAgent, git=False, CODEX_HOME=str(tmp_path / "codex"), PATH=str(tmp_path / "b")
    )
    report = doctor.diagnose(agent)
    text = report.render()
    assert f"FAIL  {agent.repo_root} is not in a git repository: Entire records only inside one\n" \
           "      fix: `git init`\n      note: then `entire enable --agent openai-codex`\n" in text  # fmt: skip
    assert not any(c.fix and "entire enable" in c.fix for c in report.checks), text
    assert "skip  Entire's hooks, project and hook trust (not checked: not a git repository)" in text


def test_trust_refuses_without_our_hooks(agent: OpenAICodexAgent) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        trust.trust_command(agent, _flags("trust"))
    Path(agent.repo_root, ".codex").mkdir()
    Path(agent.repo_root, ".codex", "hooks.json").write_text('{"hooks": {}}')
    with pytest.raises(ConfigError, match="holds no Entire hooks"):
        trust.trust_command(agent, _flags("trust"))
    from entire_core.cli import run

    assert run(OpenAICodexAgent, ["trust", "--bogus"]) == 2  # the dispatcher refuses undeclared flags


LABELLED = """\
# my Codex config
model = "gpt-5.5"

# the projects I trust
[projects."/elsewhere"]
trust_level = "trusted"

# my MCP servers: this comment labels the table below it
[mcp_servers.docs]
command = "docs-server"

[hooks.state."/other/.codex/hooks.json:stop:0:0"]
trusted_hash = "sha256:mine"
# the last of my hook entries
[hooks.state."/other/.codex/hooks.json:stop:0:1"]
trusted_hash = "sha256:mine too"
"""


def test_trust_inserts_after_a_table_not_between_it_and_its_comment(agent: OpenAICodexAgent) -> None:
    config = Path(agent.env["CODEX_HOME"], "config.toml")
    config.write_text(LABELLED)
    agent.install_hooks()
    assert trust.trust_command(agent, _flags("trust", "--project")) == 0
    text = config.read_text()
    repo = os.path.realpath(agent.repo_root)
    assert (
        '[projects."/elsewhere"]\ntrust_level = "trusted"\n\n'
        f'[projects."{repo}"]\ntrust_level = "trusted"\n\n'
        "# my MCP servers: this comment labels the table below it\n[mcp_servers.docs]\n"
    ) in text
    assert '# the last of my hook entries\n[hooks.state."/other/.codex/hooks.json:stop:0:1"]' in text
    assert tomllib.loads(text)["mcp_servers"] == {"docs": {"command": "docs-server"}}


def test_trust_remove_gives_back_the_users_bytes(
    agent: OpenAICodexAgent, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Path(agent.env["CODEX_HOME"], "config.toml")
    config.write_text(LABELLED)
    agent.install_hooks()
    assert trust.trust_command(agent, _flags("trust")) == 0
    assert statuses(agent) == ["trusted"] * 8
    assert trust.trust_command(agent, _flags("trust", "--remove")) == 0
    assert "Removed 8 trust entries" in capsys.readouterr().out
    assert config.read_text() == LABELLED
    # After uninstall-hooks too: the entries are recognised by the hashes install-hooks writes.
    assert trust.trust_command(agent, _flags("trust")) == 0
    agent.uninstall_hooks()
    assert trust.trust_command(agent, _flags("trust", "--remove")) == 0
    assert config.read_text() == LABELLED
    assert trust.trust_command(agent, _flags("trust", "--remove")) == 0  # nothing left: nothing written
    assert config.read_text() == LABELLED


def test_trust_remove_keeps_user_entries_and_project_trust(agent: OpenAICodexAgent) -> None:
    config = Path(agent.env["CODEX_HOME"], "config.toml")
    agent.install_hooks()
    assert trust.trust_command(agent, _flags("trust", "--project")) == 0
    hooks_path = os.path.realpath(os.path.join(agent.repo_root, ".codex", "hooks.json"))
    mine = {"hooks": {"state": {f"{hooks_path}:stop:3:0": {"trusted_hash": "sha256:a hook of my own"}}}}
    config.write_text(config.read_text() + "\n" + tomli_w.dumps(mine))
    assert trust.trust_command(agent, _flags("trust", "--remove")) == 0
    data = tomllib.loads(config.read_text())
    assert list(trust.hook_states(data)) == [f"{hooks_path}:stop:3:0"]
    assert data["projects"][os.path.realpath(agent.repo_root)] == {"trust_level": "trusted"}
    assert trust.trust_command(agent, _flags("trust", "--remove", "--project")) == 2
    assert (
        trust.trust_command(agent, _flags("trust", "-remove", "--project=true")) == 2
    )  # Go's spellings mean the same


@pytest.mark.parametrize("spelling", ["-remove", "--remove=true", "-remove=1"])
def test_trust_remove_in_each_spelling_the_dispatcher_accepts(agent: OpenAICodexAgent, spelling: str) -> None:
    config = Path(agent.env["CODEX_HOME"], "config.toml")
    config.write_text(LABELLED)
    agent.install_hooks()
    assert trust.trust_command(agent, _flags("trust")) == 0
    assert trust.trust_command(agent, _flags("trust", spelling)) == 0
    assert config.read_text() == LABELLED


def test_trust_remove_without_a_config_writes_nothing(agent: OpenAICodexAgent) -> None:
    config = Path(agent.env["CODEX_HOME"], "config.toml")
    config.unlink()
    assert trust.trust_command(agent, _flags("trust", "--remove")) == 0
    assert not config.exists()
