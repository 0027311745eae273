"""The marked block in .aider.conf.yml: byte-exact round trips, refusals, idempotence."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from entire_agent_aider import hooks
from entire_agent_aider.agent import AiderAgent
from entire_core.errors import ConfigError


@pytest.fixture
def agent(tmp_path: Path) -> AiderAgent:
    """The agent in a fresh repository, with its own home and data directory (the install records)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        "ENTIRE_REPO_ROOT": str(repo),
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    return AiderAgent(env=env, cwd=str(repo))


def conf_of(agent: AiderAgent) -> Path:
    return Path(agent.repo_root) / ".aider.conf.yml"


def records_of(agent: AiderAgent) -> Path:
    return Path(agent.env["XDG_DATA_HOME"]) / "entire-agent-aider" / "installs.json"


USER_FILES = [
    b"# my settings\nmodel: openai/gpt-4o   # trailing comment\n\n",
    b"model: x\r\nauto-lint: false\r\n",
    b"\xef\xbb\xbfmodel: caf\xc3\xa9  # unicode\nno-final-newline: 1",
    b"",
    b"# only a comment",
    # YAML's document end marker: the block goes before it, or it would be a second document
    b"model: sonnet\n...\n",
    b"---\nmodel: sonnet\r\n... # the end\r\n# notes after the document\r\n",
    b"model: sonnet\n...",
]


@pytest.mark.parametrize("original", USER_FILES)
def test_install_uninstall_round_trip(agent: AiderAgent, original: bytes) -> None:
    conf = conf_of(agent)
    conf.write_bytes(original)
    assert hooks.install(agent) == 1
    assert hooks.installed(agent.repo_root)
    text = conf.read_bytes()
    if b"\n..." not in original:
        assert text.startswith(original.rstrip(b"\n") if not original.endswith(b"\n") else original)
    values = yaml.safe_load(text.decode("utf-8-sig")) or {}
    assert values["notifications"] is True
    assert values["notifications-command"] == hooks.NOTIFY_COMMAND
    assert hooks.install(agent) == 0
    assert conf.read_bytes() == text
    assert hooks.install(agent, force=True) == 1
    hooks.uninstall(agent)
    assert conf.read_bytes() == original
    assert not hooks.installed(agent.repo_root)
    hooks.uninstall(agent)


def test_created_file_is_removed_again_and_so_is_its_record(agent: AiderAgent) -> None:
    assert hooks.install(agent) == 1
    assert hooks.CREATED not in conf_of(agent).read_text()  # the record says it now, not the file
    assert records_of(agent).exists()
    assert hooks.install(agent) == 0
    hooks.uninstall(agent)
    assert not conf_of(agent).exists()
    assert not records_of(agent).exists()


def test_a_created_file_the_user_then_wrote_in_is_kept(agent: AiderAgent) -> None:
    hooks.install(agent)
    conf = conf_of(agent)
    conf.write_bytes(b"model: sonnet\n" + conf.read_bytes())
    hooks.uninstall(agent)
    assert conf.read_bytes() == b"model: sonnet\n"


def test_a_stale_record_is_not_trusted_over_the_users_own_file(agent: AiderAgent) -> None:
    """Install (creating the file), then by hand: delete it and write one's own; install, uninstall."""
    hooks.install(agent)
    conf = conf_of(agent)
    conf.write_bytes(b"")
    assert hooks.install(agent) == 1
    hooks.uninstall(agent)
    assert conf.read_bytes() == b""


def old_block(*, created: bool) -> bytes:
    """What 0.1.0 wrote: a file it created said so in its block."""
    body = (hooks.CREATED + "\n" if created else "") + hooks.block_body()
    return f"{hooks.BEGIN}\n{body}{hooks.END}\n".encode()


def test_a_file_created_by_0_1_0_is_still_removed(agent: AiderAgent) -> None:
    conf = conf_of(agent)
    conf.write_bytes(old_block(created=True))
    assert hooks.installed(agent.repo_root)
    hooks.uninstall(agent)
    assert not conf.exists()


def test_a_reinstall_over_0_1_0_moves_its_marker_to_the_record(agent: AiderAgent) -> None:
    conf = conf_of(agent)
    conf.write_bytes(old_block(created=True))
    assert hooks.install(agent) == 1
    assert hooks.CREATED not in conf.read_text()
    hooks.uninstall(agent)
    assert not conf.exists()
    assert not records_of(agent).exists()


def test_a_users_file_with_a_0_1_0_block_keeps_the_users_lines(agent: AiderAgent) -> None:
    conf = conf_of(agent)
    conf.write_bytes(b"model: sonnet\n" + old_block(created=False))
    hooks.uninstall(agent)
    assert conf.read_bytes() == b"model: sonnet\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"notifications: false\n", "already sets 'notifications'"),
        (b"notifications: false\n", "run 'entire enable --agent aider' again"),
        (
            b"notifications-command: say done\nnotifications: true\n",
            "'notifications' and 'notifications-command'",
        ),
        (b"model: [unclosed\n", "is not valid YAML (line 2)"),
        (b"model: [unclosed\n", "fix it (Aider cannot read it either) and run again"),
        (b"- a list\n", "must hold a mapping"),
    ],
)
def test_refusals_write_nothing(agent: AiderAgent, content: bytes, message: str) -> None:
    conf = conf_of(agent)
    conf.write_bytes(content)
    with pytest.raises(
        ConfigError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")
    ):
        hooks.install(agent)
    assert conf.read_bytes() == content


@pytest.mark.parametrize("original", [b"{model: x}\n", b"# mine\n{model: x,\n auto-lint: false}\n"])
def test_a_flow_mapping_is_refused_as_the_users_valid_file_with_what_to_do(
    agent: AiderAgent, original: bytes
) -> None:
    conf = conf_of(agent)
    conf.write_bytes(original)
    with pytest.raises(ConfigError) as refused:
        hooks.install(agent)
    assert conf.read_bytes() == original
    message = str(refused.value)
    # Not "is not valid YAML": the user's file is valid; the file with our block added would not be.
    assert message.startswith(f"{conf} is valid YAML, but Entire's block cannot be added to it: ")
    assert "flow-style mapping" in message and message.endswith("write it in block style, one 'key: "
                                                               "value' per line (model: sonnet), and run again")  # fmt: skip


def test_a_document_end_marker_gets_the_block_before_it(agent: AiderAgent) -> None:
    conf = conf_of(agent)
    conf.write_bytes(b"model: sonnet\n...\n")
    hooks.install(agent)
    text = conf.read_text()
    assert text.startswith(f"model: sonnet\n{hooks.BEGIN}\n") and text.endswith(f"{hooks.END}\n...\n")
    assert yaml.safe_load(text)["notifications"] is True


def test_the_installed_command_is_one_shell_line() -> None:
    body = hooks.block_body()
    assert yaml.safe_load(body)["notifications-command"] == hooks.NOTIFY_COMMAND
    assert "</dev/null" in hooks.NOTIFY_COMMAND and '"$PPID"' in hooks.NOTIFY_COMMAND
