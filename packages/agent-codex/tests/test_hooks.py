"""The hooks file: what install writes, that it is idempotent, and that uninstall gives files back byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codex_fixtures import HOOKS
from entire_agent_openai_codex import hooks
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_core.errors import ConfigError

GUARD = "command -v entire >/dev/null 2>&1 || exit 0; exec entire hooks openai-codex"
CMD_GUARD = "(where /q entire || exit 0) && entire hooks openai-codex"


def hooks_file(agent: OpenAICodexAgent) -> Path:
    return Path(agent.repo_root) / ".codex" / "hooks.json"


def test_install_writes_one_guarded_handler_per_event_and_nothing_else_at_the_top(
    agent: OpenAICodexAgent,
) -> None:
    assert agent.install_hooks() == 8
    data = json.loads(hooks_file(agent).read_text())
    assert list(data) == ["hooks"]
    assert list(data["hooks"]) == [
        "SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "PostCompact", "SessionEnd", "SubagentStart", "SubagentStop",
    ]  # fmt: skip
    # commandWindows: what Codex runs instead of command on Windows, through cmd.exe. Stop outlasts the
    # host's own 30 s kill of a hung call (hooks.TURN_END_TIMEOUT_SECONDS), the other hooks have 30 s.
    assert data["hooks"]["Stop"] == [
        {"hooks": [{"type": "command", "command": f"{GUARD} stop", "commandWindows": f"{CMD_GUARD} stop",
                    "timeout": 120}]}
    ]  # fmt: skip
    assert data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"] == 30
    assert data["hooks"]["SessionEnd"][0]["hooks"][0] == {
        "type": "command",
        "command": f"{GUARD} session-end",
        "commandWindows": f"{CMD_GUARD} session-end",
        "timeout": 3,
    }


def test_install_is_idempotent_and_force_reinstalls(agent: OpenAICodexAgent) -> None:
    agent.install_hooks()
    before = hooks_file(agent).read_bytes()
    assert agent.install_hooks() == 0
    assert hooks_file(agent).read_bytes() == before
    assert agent.install_hooks(force=True) == 8
    assert hooks_file(agent).read_bytes() == before
    assert agent.are_hooks_installed()


def test_fresh_install_then_uninstall_leaves_nothing(agent: OpenAICodexAgent) -> None:
    agent.install_hooks()
    agent.uninstall_hooks()
    assert not (Path(agent.repo_root) / ".codex").exists()
    assert not agent.are_hooks_installed()
    assert not (Path(agent.env["XDG_DATA_HOME"]) / "entire-agent-openai-codex" / "installs.json").exists()
    agent.uninstall_hooks()  # nothing installed: still fine


USER_FILES = [
    "{}",
    "{}\n",
    '{"hooks": {}}\n',
    '{\r\n\t"hooks": {\r\n\t\t"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]\r\n\t}\r\n}\r\n',
    # the user's own Stop group (ours goes after it), an event we do not use, a description, unicode
    '{\n  "description": "mes crochets ✓",\n  "hooks": {\n    "Stop": [\n      {\n        "matcher": null,\n'
    '        "hooks": [{"type": "command", "command": "say done", "timeout": 5}]\n      }\n    ],\n'
    '    "PreToolUse": [{"matcher": "^Bash$", "hooks": [{"type": "command", "command": "audit"}]}]\n  }\n}\n',
    (HOOKS.parent / "config" / "project_hooks.json").read_text(),
]


@pytest.mark.parametrize("original", USER_FILES)
def test_uninstall_gives_a_users_file_back_byte_for_byte(agent: OpenAICodexAgent, original: str) -> None:
    path = hooks_file(agent)
    path.parent.mkdir()
    path.write_bytes(original.encode())
    assert agent.install_hooks() == 8
    data = json.loads(path.read_text())
    user = json.loads(original).get("hooks", {})
    for event, groups in user.items():
        assert data["hooks"][event][: len(groups)] == groups  # the user's groups stay first, untouched
    assert agent.install_hooks() == 0
    agent.uninstall_hooks()
    assert path.read_bytes() == original.encode()


@pytest.mark.parametrize("own", ["{}", '{"description": "mine", "hooks": {}}'])
def test_a_stale_install_record_is_not_trusted_over_the_users_own_file(
    agent: OpenAICodexAgent, own: str
) -> None:
    """Install, then by hand: delete .codex/ and write one's own hooks.json; install, uninstall."""
    import shutil

    agent.install_hooks()
    path = hooks_file(agent)
    shutil.rmtree(path.parent)
    path.parent.mkdir()
    path.write_bytes(own.encode())
    assert agent.install_hooks() == 8
    agent.uninstall_hooks()
    assert path.read_bytes() == own.encode()


def test_a_record_survives_reinstalls_while_the_file_is_ours(agent: OpenAICodexAgent) -> None:
    agent.install_hooks()
    agent.install_hooks()
    agent.install_hooks(force=True)
    agent.uninstall_hooks()
    assert not (Path(agent.repo_root) / ".codex").exists()


def test_an_install_recorded_by_0_1_0_still_uninstalls_cleanly(agent: OpenAICodexAgent) -> None:
    """0.1.0 named the ``hooks`` key it created ``created_key`` in its record; core names it ``created:hooks``."""
    agent.install_hooks()
    records = Path(agent.env["XDG_DATA_HOME"]) / "entire-agent-openai-codex" / "installs.json"
    data = json.loads(records.read_text())
    [record] = data.values()
    assert record.pop("created:hooks") is True
    record["created_key"] = True
    records.write_text(json.dumps(data))
    agent.uninstall_hooks()
    assert not (Path(agent.repo_root) / ".codex").exists()
    assert not records.exists()


def test_a_read_only_hooks_file_is_refused(agent: OpenAICodexAgent) -> None:
    path = hooks_file(agent)
    path.parent.mkdir()
    path.write_bytes(b"{}")
    path.chmod(0o444)
    with pytest.raises(ConfigError, match=r"hooks\.json is read-only"):
        agent.install_hooks()
    assert path.read_bytes() == b"{}"


def test_a_user_handler_in_our_group_survives_uninstall(agent: OpenAICodexAgent) -> None:
    agent.install_hooks()
    path = hooks_file(agent)
    data = json.loads(path.read_text())
    data["hooks"]["Stop"][0]["hooks"].append({"type": "command", "command": "echo mine"})
    path.write_text(json.dumps(data, indent=2) + "\n")
    agent.uninstall_hooks()
    assert json.loads(path.read_text()) == {
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"hooks": {}, "_owner": "x"}', "top-level key '_owner'"),
        ('{"hooks": []}', "'hooks' is not an object"),
        ('{"hooks": {"Stop": {}}}', "hooks.Stop is not a list"),
        ("[]", "not a JSON object"),
        ('{"hooks": {} // comment\n}', "cannot parse"),
    ],
)
def test_a_file_codex_would_reject_is_never_written(agent: OpenAICodexAgent, text: str, message: str) -> None:
    path = hooks_file(agent)
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(ConfigError, match=message):
        agent.install_hooks()
    assert path.read_text() == text


def test_are_hooks_installed_errors_on_a_broken_file(agent: OpenAICodexAgent) -> None:
    path = hooks_file(agent)
    path.parent.mkdir()
    path.write_text("{nope")
    with pytest.raises(ConfigError, match="cannot parse"):
        agent.are_hooks_installed()


def test_wanted_groups_match_hook_names() -> None:
    assert OpenAICodexAgent.hook_names == tuple(hooks.HOOK_EVENTS)
    assert set(hooks.wanted_groups("openai-codex")) == set(hooks.HOOK_EVENTS.values())


def test_every_handler_has_a_windows_command_for_the_same_hook() -> None:
    from entire_core.hooks import hook_of

    for hook, event in hooks.HOOK_EVENTS.items():
        [handler] = hooks.wanted_groups("openai-codex")[event]["hooks"]
        assert hook_of(handler["command"], "openai-codex") == hook
        assert hook_of(handler["commandWindows"], "openai-codex") == hook
        assert handler["commandWindows"] == f"{CMD_GUARD} {hook}"


@pytest.mark.parametrize("key", ["commandWindows", "command_windows"])
def test_a_handler_ours_only_by_its_windows_command_is_ours(agent: OpenAICodexAgent, key: str) -> None:
    path = hooks_file(agent)
    path.parent.mkdir()
    mine = {"type": "command", "command": "echo posix", key: f"{CMD_GUARD} stop"}
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [mine]}]}}))
    assert hooks.is_ours(mine, "openai-codex")
    assert not hooks.is_ours({"type": "command", "command": "echo posix", key: "echo win"}, "openai-codex")
    assert agent.are_hooks_installed()
    assert agent.install_hooks() == 8  # the stale one is replaced, not kept beside ours
    stop = json.loads(path.read_text())["hooks"]["Stop"]
    assert stop == [{"hooks": [hooks.handler("openai-codex", "stop")]}]


def test_an_install_without_windows_commands_is_upgraded(agent: OpenAICodexAgent) -> None:
    agent.install_hooks()
    path = hooks_file(agent)
    data = json.loads(path.read_text())
    for groups in data["hooks"].values():
        del groups[0]["hooks"][0]["commandWindows"]  # what 0.1.0 wrote
    path.write_text(json.dumps(data, indent=2) + "\n")
    assert agent.install_hooks() == 8
    assert all("commandWindows" in g[0]["hooks"][0] for g in json.loads(path.read_text())["hooks"].values())
    agent.uninstall_hooks()
    # The file was rewritten by hand after our install, so the record no longer holds: only our
    # handlers go, and the file stays the user's.
    assert json.loads(path.read_text()) == {"hooks": {}}
