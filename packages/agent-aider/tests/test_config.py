"""The marked block in .aider.conf.yml: byte-exact round trips, refusals, idempotence."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from entire_agent_aider import hooks
from entire_core.errors import ConfigError

USER_FILES = [
    b"# my settings\nmodel: openai/gpt-4o   # trailing comment\n\n",
    b"model: x\r\nauto-lint: false\r\n",
    b"\xef\xbb\xbfmodel: caf\xc3\xa9  # unicode\nno-final-newline: 1",
    b"",
    b"# only a comment",
]


@pytest.mark.parametrize("original", USER_FILES)
def test_install_uninstall_round_trip(tmp_path: Path, original: bytes) -> None:
    conf = tmp_path / ".aider.conf.yml"
    conf.write_bytes(original)
    assert hooks.install(str(tmp_path)) == 1
    assert hooks.installed(str(tmp_path))
    text = conf.read_bytes()
    assert text.startswith(original.rstrip(b"\n") if not original.endswith(b"\n") else original)
    values = yaml.safe_load(text.decode("utf-8-sig")) or {}
    assert values["notifications"] is True
    assert values["notifications-command"] == hooks.NOTIFY_COMMAND
    assert hooks.install(str(tmp_path)) == 0
    assert conf.read_bytes() == text
    assert hooks.install(str(tmp_path), force=True) == 1
    hooks.uninstall(str(tmp_path))
    assert conf.read_bytes() == original
    assert not hooks.installed(str(tmp_path))
    hooks.uninstall(str(tmp_path))


def test_created_file_is_removed_again(tmp_path: Path) -> None:
    assert hooks.install(str(tmp_path)) == 1
    assert hooks.CREATED in (tmp_path / ".aider.conf.yml").read_text()
    hooks.uninstall(str(tmp_path))
    assert not (tmp_path / ".aider.conf.yml").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"notifications: false\n", "already sets 'notifications'"),
        (
            b"notifications-command: say done\nnotifications: true\n",
            "'notifications' and 'notifications-command'",
        ),
        (b"model: [unclosed\n", "is not valid YAML (line 2)"),
        (b"- a list\n", "must hold a mapping"),
    ],
)
def test_refusals_write_nothing(tmp_path: Path, content: bytes, message: str) -> None:
    conf = tmp_path / ".aider.conf.yml"
    conf.write_bytes(content)
    with pytest.raises(
        ConfigError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
    ):
        hooks.install(str(tmp_path))
    assert conf.read_bytes() == content


def test_flow_mapping_cannot_take_a_block(tmp_path: Path) -> None:
    conf = tmp_path / ".aider.conf.yml"
    conf.write_bytes(b"{model: x}\n")
    with pytest.raises(ConfigError):
        hooks.install(str(tmp_path))
    assert conf.read_bytes() == b"{model: x}\n"


def test_the_installed_command_is_one_shell_line() -> None:
    body = hooks.block_body(created=False)
    assert yaml.safe_load(body)["notifications-command"] == hooks.NOTIFY_COMMAND
    assert "</dev/null" in hooks.NOTIFY_COMMAND and '"$PPID"' in hooks.NOTIFY_COMMAND
