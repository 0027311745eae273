"""install-hooks / uninstall-hooks / are-hooks-installed on real and hand-written Gemini settings files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from entire_agent_google_gemini import hooks
from entire_agent_google_gemini.agent import GeminiAgent
from entire_core.config.json import parse_json_text
from entire_core.errors import ConfigError
from gemini_fixtures import DATA

SETTINGS = DATA / "settings"
GUARD = "command -v entire >/dev/null 2>&1 || exit 0; exec entire hooks google-gemini"
EXPECTED_EVENTS = {
    "SessionStart": ("session-start", None, 30000),
    "BeforeAgent": ("before-agent", None, 30000),
    "AfterAgent": ("after-agent", None, 120000),
    "PreCompress": ("pre-compress", None, 30000),
    "SessionEnd": ("session-end", None, 60000),
    "BeforeTool": ("before-tool", "^invoke_agent$", 30000),
    "AfterTool": ("after-tool", "^invoke_agent$", 60000),
}


def settings_file(repo: Path) -> Path:
    return repo / ".gemini" / "settings.json"


def put(repo: Path, source: Path | bytes) -> bytes:
    target = settings_file(repo)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = source.read_bytes() if isinstance(source, Path) else source
    target.write_bytes(data)
    return data


def ours(document: dict[str, object]) -> dict[str, list[dict[str, object]]]:
    by_event = document["hooks"]
    assert isinstance(by_event, dict)
    return {
        event: [group for group in groups if any(hooks.is_ours(h, "google-gemini") for h in group["hooks"])]
        for event, groups in by_event.items()
    }


def test_fresh_install_writes_exactly_our_groups(agent: GeminiAgent, repo: Path) -> None:
    assert agent.are_hooks_installed() is False
    assert agent.install_hooks() == 7
    document = json.loads(settings_file(repo).read_bytes())
    assert document["hooksConfig"] == {"enabled": True}
    expected = {}
    for event, (hook, matcher, timeout) in EXPECTED_EVENTS.items():
        group: dict[str, object] = {} if matcher is None else {"matcher": matcher}
        group["hooks"] = [{"name": f"entire-google-gemini-{hook}", "type": "command",
                           "command": f"{GUARD} {hook}", "timeout": timeout}]  # fmt: skip
        expected[event] = [group]
    assert document["hooks"] == expected
    assert agent.are_hooks_installed() is True
    before = settings_file(repo).read_bytes()
    assert agent.install_hooks() == 0
    assert settings_file(repo).read_bytes() == before
    assert agent.install_hooks(force=True) == 7
    assert settings_file(repo).read_bytes() == before
    agent.uninstall_hooks()
    assert not (repo / ".gemini").exists()
    assert agent.are_hooks_installed() is False
    agent.uninstall_hooks()  # nothing to do is fine


@pytest.mark.parametrize("name", ["user-comments-tabs-crlf.jsonc", "captured-logger-hooks.json"])
def test_user_bytes_survive_install_and_uninstall(agent: GeminiAgent, repo: Path, name: str) -> None:
    original = put(repo, SETTINGS / name)
    assert agent.install_hooks() == 7
    installed = settings_file(repo).read_bytes()
    text = installed.decode("utf-8")
    if name.endswith(".jsonc"):
        for kept in (
            "// Project settings for Gemini CLI — édité à la main\r\n",
            "// hooks on",
            "/* our own formatter hook */",
            '"ui": { "theme": "GitHub" } // trailing comment',
            '"command": "npx prettier',
        ):
            assert kept in text, kept  # fmt: skip
        assert "\r\n" in text and "\n" not in text.replace("\r\n", "")
    document = parse_json_text(text, comments=True)
    before = parse_json_text(original.decode("utf-8"), comments=True)
    assert {k: v for k, v in document.items() if k != "hooks"} == {
        k: v for k, v in before.items() if k != "hooks"
    }
    for event, groups in before["hooks"].items():  # every foreign group is still there, first
        assert document["hooks"][event][: len(groups)] == groups
    assert all(len(groups) == 1 for groups in ours(document).values() if groups)
    assert agent.install_hooks() == 0
    assert settings_file(repo).read_bytes() == installed
    agent.uninstall_hooks()
    assert settings_file(repo).read_bytes() == original


def test_stale_hooks_enabled_is_stripped_and_other_tools_hooks_kept(agent: GeminiAgent, repo: Path) -> None:
    put(repo, SETTINGS / "older-entire-hooks-enabled.json")
    assert agent.are_hooks_installed() is False  # Entire's built-in gemini hooks are not ours
    assert agent.install_hooks() == 7
    document = json.loads(settings_file(repo).read_bytes())
    assert "enabled" not in document["hooks"]
    assert document["hooks"]["SessionStart"][0]["hooks"][0]["command"] == "entire hooks gemini session-start"
    assert document["hooks"]["AfterAgent"][0]["hooks"][0]["command"] == "entire hooks gemini after-agent"
    assert document["hooksConfig"] == {"enabled": True}
    agent.uninstall_hooks()
    document = json.loads(settings_file(repo).read_bytes())
    assert set(document["hooks"]) == {"SessionStart", "AfterAgent"}
    assert "hooksConfig" not in document  # we added it, so it goes: the file had none


def test_stale_key_alone_is_repaired_even_when_our_hooks_are_in_place(agent: GeminiAgent, repo: Path) -> None:
    agent.install_hooks()
    document = json.loads(settings_file(repo).read_bytes())
    document["hooks"] = {"enabled": True, **document["hooks"]}
    put(repo, json.dumps(document, indent=2).encode())
    assert agent.install_hooks() == 0
    assert "enabled" not in json.loads(settings_file(repo).read_bytes())["hooks"]


def test_a_users_hook_switch_turned_off_is_refused_not_flipped(agent: GeminiAgent, repo: Path) -> None:
    original = put(repo, b'{\n  "hooksConfig": {"enabled": false, "disabled": ["fmt"]}\n}\n')
    with pytest.raises(
        ConfigError, match=r"settings\.json: hooksConfig\.enabled is false.*set it to true"
    ) as info:
        agent.install_hooks()
    assert "\n" not in str(info.value)
    assert settings_file(repo).read_bytes() == original


def test_a_users_hook_switch_turned_on_stays_after_uninstall(agent: GeminiAgent, repo: Path) -> None:
    original = put(repo, b'{"hooksConfig": {"enabled": true}}')
    agent.install_hooks()
    agent.uninstall_hooks()
    assert settings_file(repo).read_bytes() == original


def test_an_empty_settings_file_comes_back_byte_for_byte(agent: GeminiAgent, repo: Path) -> None:
    for original in (b"{}", b"{}\n", b"{}\r\n"):
        put(repo, original)
        assert agent.install_hooks() == 7
        assert agent.install_hooks() == 0
        agent.uninstall_hooks()
        assert settings_file(repo).read_bytes() == original


def test_uninstall_does_not_leave_hooks_enabled_beside_the_users_own_hooks(
    agent: GeminiAgent, repo: Path
) -> None:
    original = put(
        repo,
        b'{\n  "hooks": {\n    "AfterTool": [{"hooks": [{"type": "command", "command": "fmt"}]}]\n  }\n}\n',
    )
    agent.install_hooks()
    assert json.loads(settings_file(repo).read_bytes())["hooksConfig"] == {"enabled": True}
    agent.uninstall_hooks()
    assert settings_file(repo).read_bytes() == original


def test_a_stale_record_does_not_delete_the_users_own_settings(agent: GeminiAgent, repo: Path) -> None:
    agent.install_hooks()
    shutil.rmtree(repo / ".gemini")
    original = put(repo, b"{}")
    agent.install_hooks()
    agent.uninstall_hooks()
    assert settings_file(repo).read_bytes() == original


def test_partial_and_edited_installs_are_repaired(agent: GeminiAgent, repo: Path) -> None:
    agent.install_hooks()
    document = json.loads(settings_file(repo).read_bytes())
    del document["hooks"]["PreCompress"]
    document["hooks"]["SessionEnd"][0]["hooks"][0]["command"] = "entire hooks google-gemini session-end --old"
    put(repo, json.dumps(document, indent=2).encode())
    assert agent.are_hooks_installed() is True
    assert agent.install_hooks() == 2
    document = json.loads(settings_file(repo).read_bytes())
    assert document["hooks"]["SessionEnd"] == [{"hooks": [hooks.handler("google-gemini", "session-end")]}]
    assert document["hooks"]["PreCompress"] == [{"hooks": [hooks.handler("google-gemini", "pre-compress")]}]


def test_ours_are_recognised_by_name_too(agent: GeminiAgent, repo: Path) -> None:
    renamed = {"hooks": {"BeforeAgent": [{"hooks": [{"name": "entire-google-gemini-before-agent", "type": "command",
                                                      "command": "/opt/entire/bin/entire-wrapper before"}]}]}}  # fmt: skip
    put(repo, json.dumps(renamed).encode())
    assert agent.are_hooks_installed() is True
    agent.uninstall_hooks()  # no record of ours: only our handler goes, the rest is the user's
    assert json.loads(settings_file(repo).read_bytes()) == {"hooks": {}}


def test_unparseable_settings_are_never_written(agent: GeminiAgent, repo: Path) -> None:
    for broken in (
        b'{"hooks": {,}}',
        b'{"a": 1} trailing',
        b"[1, 2]",
        b'{"hooks": []}',
        b'{"hooksConfig": 3}',
    ):
        put(repo, broken)
        with pytest.raises(ConfigError):
            agent.install_hooks()
        assert settings_file(repo).read_bytes() == broken
    put(repo, b'{"hooks": {,}}')
    with pytest.raises(ConfigError):
        agent.are_hooks_installed()  # "unknown", not "no"
    with pytest.raises(ConfigError):
        agent.uninstall_hooks()
    assert settings_file(repo).read_bytes() == b'{"hooks": {,}}'


def test_uninstall_keeps_a_gemini_dir_with_other_files(agent: GeminiAgent, repo: Path) -> None:
    (repo / ".gemini").mkdir()
    (repo / ".gemini" / "GEMINI.md").write_text("notes")
    agent.install_hooks()
    agent.uninstall_hooks()
    assert not settings_file(repo).exists()
    assert (repo / ".gemini" / "GEMINI.md").read_text() == "notes"


def test_a_settings_symlink_stays_a_link(agent: GeminiAgent, repo: Path, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "gemini-settings.json"
    real.parent.mkdir()
    shutil.copy(SETTINGS / "user-comments-tabs-crlf.jsonc", real)
    (repo / ".gemini").mkdir()
    settings_file(repo).symlink_to(real)
    agent.install_hooks()
    assert settings_file(repo).is_symlink()
    assert b"entire hooks google-gemini" in real.read_bytes()


def test_an_install_by_0_1_0_is_upgraded_to_the_guarded_commands(agent: GeminiAgent, repo: Path) -> None:
    old = put(repo, SETTINGS / "installed-by-0.1.0.json")
    assert agent.are_hooks_installed() is True  # the bare commands are ours
    assert agent.install_hooks() == 7
    document = json.loads(settings_file(repo).read_bytes())
    for event, (hook, _, _) in EXPECTED_EVENTS.items():
        mine = [
            h
            for group in document["hooks"][event]
            for h in group["hooks"]
            if hooks.is_ours(h, "google-gemini")
        ]
        assert [h["command"] for h in mine] == [f"{GUARD} {hook}"]
    assert document["hooks"]["AfterTool"][0] == json.loads(old)["hooks"]["AfterTool"][0]  # the user's
    assert agent.install_hooks() == 0
    agent.uninstall_hooks()
    assert json.loads(settings_file(repo).read_bytes()) == {
        "ui": {"theme": "GitHub"},
        "hooks": {"AfterTool": [json.loads(old)["hooks"]["AfterTool"][0]]},
        "hooksConfig": {"enabled": True},  # 0.1.0 left no record of adding it: it stays
    }


def test_uninstall_removes_bare_and_guarded_commands_alike(agent: GeminiAgent, repo: Path) -> None:
    bare = {"type": "command", "command": "entire hooks google-gemini before-agent"}  # no name: by command
    guarded = {"type": "command", "command": f"{GUARD} after-agent"}
    put(
        repo,
        json.dumps(
            {"hooks": {"BeforeAgent": [{"hooks": [bare]}], "AfterAgent": [{"hooks": [guarded]}]}}
        ).encode(),
    )
    assert set(hooks.installed(agent)) == {"BeforeAgent", "AfterAgent"}
    agent.uninstall_hooks()
    assert json.loads(settings_file(repo).read_bytes()) == {"hooks": {}}


def _run(command: str, shell: str, path: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """``command`` run the way Gemini runs a hook on Linux and macOS: ``<shell> -c``, payload on stdin."""
    exe = shutil.which(shell)
    assert exe is not None
    return subprocess.run(
        [exe, "-c", command], input=stdin, capture_output=True, env={"PATH": path}, check=False
    )


@pytest.mark.skipif(os.name == "nt", reason="Gemini runs hooks through bash -c on Linux and macOS only")
@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_the_guarded_command_is_quiet_without_entire_and_runs_it_with_entire(
    tmp_path: Path, shell: str
) -> None:
    command = hooks.command("google-gemini", "after-agent")
    empty = tmp_path / "no-entire"
    empty.mkdir()
    quiet = _run(command, shell, str(empty), b'{"session_id": "s"}')
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"", b"")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    entire = bin_dir / "entire"
    sh = shutil.which("sh")
    entire.write_text(f'#!{sh}\necho "args: $*"\nIFS= read -r payload\nprintf %s "$payload"\nexit 3\n')
    entire.chmod(0o755)
    ran = _run(command, shell, f"{bin_dir}{os.pathsep}{empty}", b'{"session_id": "s"}')
    assert (ran.returncode, ran.stdout) == (3, b'args: hooks google-gemini after-agent\n{"session_id": "s"}')


@pytest.mark.parametrize("original", [None, b"{}\n"], ids=["missing", "empty object"])
def test_an_install_recorded_by_0_1_0_still_uninstalls_exactly(
    agent: GeminiAgent, repo: Path, original: bytes | None
) -> None:
    from entire_core import installs

    path = settings_file(repo)
    if original is not None:
        put(repo, original)
    agent.install_hooks()
    # The record as 0.1.0 wrote it: its own names for what the install created.
    old = {"created_hooks": True, "created_hooksConfig": True, "created_enabled": True}
    if original is None:
        old |= {"created_file": True, "created_dir": True}
    installs.remember(agent.env, agent.name, str(path), **old)
    agent.uninstall_hooks()
    if original is None:
        assert not path.exists() and not path.parent.exists()
    else:
        assert path.read_bytes() == original
