"""``HookGroupsFile``: switches set only where absent, refused where the user chose otherwise, taken out exactly."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from entire_core.config.json import parse_json_text
from entire_core.errors import ConfigError
from entire_core.hookfile import HookGroupsFile, Switch

ENABLED = Switch(("hooksConfig", "enabled"), True, "hooksConfig.enabled is false; set it to true")


def _file(tmp_path: Path, original: bytes | None = None, **options: Any) -> HookGroupsFile:
    """The sample's hook file; with ``original``, the user's file holds those bytes before install.

    ``options`` replace the sample's own (JSONC, the ``hooksConfig.enabled`` switch)."""
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path / "home")}
    if original is not None:
        path = tmp_path / "repo" / ".agent" / "settings.json"
        path.parent.mkdir(parents=True)
        path.write_bytes(original)
    return HookGroupsFile(
        str(tmp_path / "repo" / ".agent" / "settings.json"),
        agent_name="sample",
        env=env,
        wanted=lambda: {"Stop": {"hooks": [{"command": "entire hooks sample stop"}]}},
        is_ours=lambda h: "entire hooks sample" in str(h.get("command", "")),
        **({"comments": True, "switches": (ENABLED,)} | options),
    )


def test_a_missing_switch_is_set_and_taken_out_again(tmp_path: Path) -> None:
    original = b'{\n  // mine\n  "theme": "dark"\n}\n'
    hooks = _file(tmp_path, original)
    path = Path(hooks.path)
    assert hooks.install() == 1
    assert '"enabled": true' in path.read_text()
    assert hooks.installed() == {"Stop": [{"command": "entire hooks sample stop"}]}
    hooks.uninstall()
    assert path.read_bytes() == original


def test_a_switch_the_user_turned_off_is_refused_and_the_file_left_alone(tmp_path: Path) -> None:
    original = b'{"hooksConfig": {"enabled": false}}\n'
    hooks = _file(tmp_path, original)
    path = Path(hooks.path)
    with pytest.raises(ConfigError, match="set it to true"):
        hooks.install()
    assert path.read_bytes() == original


def test_a_switch_already_on_stays_on_after_uninstall(tmp_path: Path) -> None:
    original = b'{"hooksConfig": {"enabled": true}}\n'
    hooks = _file(tmp_path, original)
    path = Path(hooks.path)
    hooks.install()
    hooks.uninstall()
    assert path.read_bytes() == original


def test_without_a_matching_record_only_our_handlers_go(tmp_path: Path) -> None:
    hooks = _file(tmp_path)
    hooks.install()
    path = Path(hooks.path)
    path.write_text(
        path.read_text().replace('"hooksConfig"', '"theme": 1, "hooksConfig"')
    )  # the user edits it
    hooks.uninstall()
    text = path.read_text()
    assert "entire hooks" not in text and '"enabled": true' in text and '"theme": 1' in text


@pytest.mark.parametrize("original", [b"", b"\n", b" \r\n\t\n", b"\xef\xbb\xbf"], ids=repr)
def test_a_file_that_held_nothing_comes_back_as_it_was(tmp_path: Path, original: bytes) -> None:
    hooks = _file(tmp_path, original)
    path = Path(hooks.path)
    assert hooks.install() == 1
    assert hooks.install(force=True) == 1  # a second install keeps what the first one found
    assert hooks.installed()
    hooks.uninstall()
    assert path.read_bytes() == original


def test_a_file_that_held_nothing_and_was_edited_since_keeps_the_users_keys(tmp_path: Path) -> None:
    hooks = _file(tmp_path, b"")
    path = Path(hooks.path)
    hooks.install()
    path.write_text(path.read_text().replace('"hooksConfig"', '"theme": 1, "hooksConfig"'))
    hooks.uninstall()  # the record no longer matches the file: the user owns it, only ours goes
    assert '"theme": 1' in path.read_text() and "entire hooks" not in path.read_text()


def test_an_install_that_creates_nothing_records_nothing(tmp_path: Path) -> None:
    hooks = _file(tmp_path, b'{"hooksConfig": {"enabled": true}, "hooks": {}}\n')
    assert hooks.install() == 1
    assert not (tmp_path / "data").exists()  # no record: uninstall has only our handlers to take out
    hooks.uninstall()
    assert Path(hooks.path).read_bytes() == b'{"hooksConfig": {"enabled": true}, "hooks": {}}\n'


def test_a_top_level_that_is_not_an_object_is_refused(tmp_path: Path) -> None:
    hooks = _file(tmp_path, b"[]\n")
    path = Path(hooks.path)
    with pytest.raises(ConfigError, match="not a JSON object"):
        hooks.install()
    assert path.read_text() == "[]\n"


def test_read_json_object_tells_missing_blank_broken_and_not_an_object_apart(tmp_path: Path) -> None:
    from entire_core.config.json import read_json_object

    path = tmp_path / "settings.json"
    assert read_json_object(str(path), comments=True) is None
    path.write_text("  \n")
    assert read_json_object(str(path), comments=True) == {}
    path.write_bytes(b'\xef\xbb\xbf{"a": 1 // mine\n}')
    assert read_json_object(str(path), comments=True) == {"a": 1}
    with pytest.raises(ConfigError, match=r"^cannot parse .*settings\.json"):
        read_json_object(str(path), comments=False)
    path.write_text("[1]")
    with pytest.raises(ConfigError, match="top level is not a JSON object"):
        read_json_object(str(path), comments=True)


def test_a_file_made_without_comments_is_plain_json(tmp_path: Path) -> None:
    # Codex's hooks.json is made this way: Codex rejects a comment, so install refuses one.
    original = b'{\n  // mine\n  "hooks": {}\n}\n'
    sample = _file(tmp_path, original)
    hooks = HookGroupsFile(
        sample.path, agent_name="sample", env=sample.env, wanted=sample.wanted, is_ours=sample.is_ours
    )
    with pytest.raises(ConfigError, match="comments are not allowed"):
        hooks.install()
    assert Path(hooks.path).read_bytes() == original


def test_installing_again_adds_nothing_and_changes_nothing(tmp_path: Path) -> None:
    hooks = _file(tmp_path, b"{}\n")
    path = Path(hooks.path)
    assert hooks.install() == 1
    installed = path.read_bytes()
    assert hooks.install() == 0
    assert path.read_bytes() == installed
    assert hooks.install(force=True) == 1


def test_the_file_and_folder_install_created_go_with_uninstall(tmp_path: Path) -> None:
    hooks = _file(tmp_path)
    folder = Path(hooks.path).parent
    (tmp_path / "repo").mkdir()
    hooks.install()
    assert folder.is_dir()
    hooks.uninstall()
    assert not folder.exists()
    assert list((tmp_path / "repo").iterdir()) == []


def test_a_folder_the_user_had_stays_after_uninstall(tmp_path: Path) -> None:
    hooks = _file(tmp_path)
    folder = Path(hooks.path).parent
    folder.mkdir(parents=True)
    hooks.install()
    hooks.uninstall()
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_an_empty_file_the_user_had_comes_back_byte_for_byte(tmp_path: Path) -> None:
    hooks = _file(tmp_path, b"{}\n")
    hooks.install()
    hooks.uninstall()
    assert Path(hooks.path).read_bytes() == b"{}\n"


DEEP = Switch(("ui", "hooks", "enabled"), True, "ui.hooks.enabled is false; set it to true")


@pytest.mark.parametrize(
    "original",
    [b'{\n  "theme": "dark"\n}\n', b'{\n  "ui": {"theme": "dark"}\n}\n', b'{"ui": {"hooks": {}}}'],
    ids=["no-ui", "user-ui", "user-ui-hooks"],
)
def test_a_switch_three_keys_down_is_set_and_taken_out_exactly(tmp_path: Path, original: bytes) -> None:
    hooks = _file(tmp_path, original, switches=(DEEP,))
    path = Path(hooks.path)
    hooks.install()
    assert parse_json_text(path.read_text(), comments=True)["ui"]["hooks"]["enabled"] is True
    hooks.uninstall()
    assert path.read_bytes() == original


@pytest.mark.parametrize(
    ("original", "named"),
    [(b'{"ui": 1}', "'ui'"), (b'{"ui": {"hooks": []}}', "'ui.hooks'"), (b'{"hooks": []}', "'hooks'")],
)
def test_what_is_in_the_way_of_a_switch_or_the_hooks_is_named(
    tmp_path: Path, original: bytes, named: str
) -> None:
    hooks = _file(tmp_path, original, switches=(DEEP,))
    with pytest.raises(ConfigError, match=f": {named} is not a JSON object$"):
        hooks.install()
    assert Path(hooks.path).read_bytes() == original


def test_a_key_an_earlier_release_recorded_as_already_there_stays(tmp_path: Path) -> None:
    # Gemini's 0.1.0 recorded each key it might create, `false` for one the user already had (`hooks`).
    from entire_core import installs

    earlier = {"created_hooks": "created:hooks", "created_hooksConfig": "created:hooksConfig",
               "created_enabled": "created:hooksConfig.enabled"}  # fmt: skip
    original = b'{"hooks": {}}\n'
    hooks = _file(tmp_path, original, earlier_names=earlier)
    hooks.install()
    as_0_1_0 = {"created_file": False, "created_dir": False, "created_hooks": False,
                "created_hooksConfig": True, "created_enabled": True}  # fmt: skip
    installs.remember(hooks.env, hooks.agent_name, hooks.path, **as_0_1_0)
    hooks.uninstall()
    assert Path(hooks.path).read_bytes() == original


def test_uninstalling_while_another_uninstall_deletes_the_file(tmp_path: Path) -> None:
    # Two uninstalls at once: the first deletes the file it created while the second waits for the
    # file's lock. The second finds nothing left to take out, and must not fail.
    from entire_core.config._lock import locked

    hooks = _file(tmp_path)
    hooks.install()
    path = Path(hooks.path)
    failures: list[Exception] = []

    def uninstall_too() -> None:
        try:
            hooks.uninstall()
        except Exception as exc:  # reported by the assertion below
            failures.append(exc)

    with locked(path):
        other = threading.Thread(target=uninstall_too)
        other.start()
        time.sleep(0.2)  # it is waiting for the lock now
        path.unlink()
    other.join(timeout=30)
    assert failures == []
    assert not path.parent.exists()


def _agent_writes_version(path: Path) -> None:
    """What Qwen Code does to its settings file on load: its own ``"$version"`` after the last member."""
    text = path.read_text().rstrip()
    path.write_text(text[:-1].rstrip() + ',\n  "$version": 4\n}\n')


@pytest.mark.parametrize("original", [None, b"", b"  \n"], ids=["no file", "empty", "blank"])
def test_a_file_we_created_or_that_held_nothing_comes_back_after_the_agents_own_key(
    tmp_path: Path, original: bytes | None
) -> None:
    hooks = _file(tmp_path, original, agent_keys=("$version",))
    path = Path(hooks.path)
    hooks.install()
    _agent_writes_version(path)
    hooks.uninstall()
    if original is None:
        assert not path.exists() and not path.parent.exists()
    else:
        assert path.read_bytes() == original


def test_the_agents_own_key_stays_in_a_file_of_the_users(tmp_path: Path) -> None:
    original = b'{\n  "theme": "dark"\n}\n'
    hooks = _file(tmp_path, original, agent_keys=("$version",))
    path = Path(hooks.path)
    hooks.install()
    _agent_writes_version(path)
    hooks.uninstall()
    assert path.read_bytes() == b'{\n  "theme": "dark",\n  "$version": 4\n}\n'


def test_without_agent_keys_a_key_the_agent_added_is_the_users(tmp_path: Path) -> None:
    hooks = _file(tmp_path)
    path = Path(hooks.path)
    hooks.install()
    _agent_writes_version(path)
    hooks.uninstall()  # the record is stale: the file is no longer what install wrote
    assert parse_json_text(path.read_text(), comments=True)["$version"] == 4
