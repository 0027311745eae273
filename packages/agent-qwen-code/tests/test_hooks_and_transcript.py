"""Hooks in ``.qwen/settings.json`` with Qwen's own ``"$version"`` write, the version gate, and the live
branch of a rewound recording."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from entire_agent_qwen_code import transcript
from entire_agent_qwen_code.agent import QwenCodeAgent
from entire_core.config.json import parse_json_text
from entire_core.errors import AgentError
from entire_core.testing.pytest_plugin import MakeAgent
from qwen_fixtures import CAPTURES, PROMPTS

USER = """// My Qwen settings (hand-written)
{
  /* the model I use here */
  "model": {"name": "qwen-scripted"}
}
"""


def qwen_loads(path: Path) -> None:
    """What Qwen 0.24.4 did to the file on load (seen in the e2e run): ``"$version": 4`` after the last member."""
    text = path.read_text().rstrip()
    assert text.endswith("}")
    path.write_text(text[:-1].rstrip() + ',\n  "$version": 4\n}\n')


def test_install_writes_seven_named_hooks_in_milliseconds(agent: QwenCodeAgent, repo: Path) -> None:
    settings = repo / ".qwen" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(USER)
    assert agent.install_hooks() == 7
    text = settings.read_text()
    assert text.startswith(USER.split("}\n")[0].rstrip())  # the user's lines first, as they were
    document = parse_json_text(text, comments=True)
    assert sorted(document["hooks"]) == sorted(["SessionStart", "UserPromptSubmit", "Stop", "SessionEnd",
                                                "PreCompact", "SubagentStart", "SubagentStop"])  # fmt: skip
    handlers = [h for groups in document["hooks"].values() for g in groups for h in g["hooks"]]
    assert all(h["timeout"] >= 1000 and h["name"].startswith("entire-qwen-code-") for h in handlers)
    assert agent.are_hooks_installed()


def test_uninstall_after_qwen_added_its_version_leaves_the_users_file_and_qwens_key(
    agent: QwenCodeAgent, repo: Path
) -> None:
    settings = repo / ".qwen" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(USER)
    agent.install_hooks()
    qwen_loads(settings)
    agent.uninstall_hooks()
    assert settings.read_text() == USER.replace('"qwen-scripted"}\n', '"qwen-scripted"},\n  "$version": 4\n')


def test_uninstall_after_qwen_added_its_version_removes_the_file_install_created(
    agent: QwenCodeAgent, repo: Path
) -> None:
    """No ``.qwen/`` before install: none after uninstall, though Qwen wrote its ``"$version"`` into our file."""
    agent.install_hooks()
    qwen_loads(repo / ".qwen" / "settings.json")
    agent.uninstall_hooks()
    assert not (repo / ".qwen").exists()


def test_a_user_edit_after_install_still_makes_the_record_stale(agent: QwenCodeAgent, repo: Path) -> None:
    settings = repo / ".qwen" / "settings.json"
    agent.install_hooks()  # creates the file
    settings.write_text(settings.read_text().replace("{", '{\n  "ui": {"theme": "dark"},', 1))
    agent.uninstall_hooks()
    assert parse_json_text(settings.read_text(), comments=True) == {"ui": {"theme": "dark"}, "hooks": {}}


def _fake_qwen(tmp_path: Path, version: str) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    qwen = bin_dir / "qwen"
    qwen.write_text(f"#!/bin/sh\necho {version}\n")
    qwen.chmod(0o755)
    return f"{bin_dir}:/usr/bin:/bin"


@pytest.mark.parametrize("version", ["0.12.0", "0.13.2"])
def test_install_refuses_experimental_hooks_with_the_upgrade_command(
    make_agent: MakeAgent, tmp_path: Path, version: str
) -> None:
    agent = make_agent(QwenCodeAgent, PATH=_fake_qwen(tmp_path, version))
    with pytest.raises(AgentError) as caught:
        agent.install_hooks()
    assert "npm install -g @qwen-code/qwen-code@0.24.4" in str(caught.value) and version in str(caught.value)


def test_rewound_records_are_not_the_sessions_work() -> None:
    """A rewind derived from the real 0.24.4 recording: after turn 2 the user rewinds to the end of turn 1
    and types another prompt; its records hang off turn 1's last record, leaving turn 2 on a dead branch."""
    capture = CAPTURES[-1]
    lines = capture.chat.read_bytes().split(b"\n")[:-1]
    turn2_end = capture.turn_starts[2]  # turn 2 is lines 8..20
    records = [json.loads(line) for line in lines[:turn2_end]]
    fork = records[capture.turn_starts[1] - 1]["uuid"]  # turn 1's answer
    again = {**records[capture.turn_starts[1]], "uuid": "after-rewind", "parentUuid": fork,
             "message": {"role": "user", "parts": [{"text": "say bye instead"}]}}  # fmt: skip
    answer = {**records[capture.turn_starts[1] - 1], "uuid": "after-rewind-answer", "parentUuid": "after-rewind",
              "message": {"role": "model", "parts": [{"text": "Bye."}]}}  # fmt: skip
    data = b"".join(json.dumps(r).encode() + b"\n" for r in [*records, again, answer])
    items = transcript.scope(data, 0)
    assert transcript.prompts(items) == [PROMPTS[0], "say bye instead"]
    assert transcript.modified_files(items) == []  # the edit of notes.txt was rewound
    assert transcript.summary(items) == "Bye."
    assert transcript.tokens(items).api_call_count == 3  # turn 1's two calls and the new answer
    assert transcript.prompts(transcript.scope(data, capture.turn_starts[1])) == ["say bye instead"]


@pytest.mark.parametrize("version", ["0.12.0", "0.13.2"])
def test_doctor_fails_experimental_hooks_with_the_upgrade_command(
    make_agent: MakeAgent, tmp_path: Path, capsys: pytest.CaptureFixture[str], version: str
) -> None:
    from entire_agent_qwen_code.doctor import doctor

    agent = make_agent(QwenCodeAgent, PATH=_fake_qwen(tmp_path, version))
    assert doctor(agent, QwenCodeAgent.commands["doctor"].parse([])) == 1
    out = capsys.readouterr().out
    assert f"FAIL  Qwen Code {version} at " in out
    assert "fix: `npm install -g @qwen-code/qwen-code@0.24.4`" in out


def test_doctor_names_disable_all_hooks(
    make_agent: MakeAgent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from entire_agent_qwen_code.doctor import doctor

    agent = make_agent(QwenCodeAgent, PATH=_fake_qwen(tmp_path, "0.24.4"))
    agent.install_hooks()
    settings = Path(agent.repo_root) / ".qwen" / "settings.json"
    settings.write_text(settings.read_text().replace("{", '{\n  "disableAllHooks": true,', 1))
    assert doctor(agent, QwenCodeAgent.commands["doctor"].parse([])) == 1
    out = capsys.readouterr().out
    assert "ok    Qwen Code 0.24.4" in out and "sets disableAllHooks" in out


FAKE_QWEN = """#!/bin/sh
echo "args: $*"
echo "cwd: $(pwd)"
echo "runtime: $QWEN_RUNTIME_DIR $QWEN_CODE_MEMORY_BASE_DIR"
mkdir -p "$QWEN_RUNTIME_DIR/projects/x/chats" && echo "$2" > "$QWEN_RUNTIME_DIR/projects/x/chats/s.jsonl"
key=$(printf %s "$(pwd)/logs/openai" | sha256sum | cut -c1-16)
mkdir -p "$HOME/.qwen" && date > "$HOME/.qwen/.openai-logs-cleanup-$key"
"""
"""What Qwen 0.24 does with a run: its chat under the runtime directory, its housekeeping marker in the home."""


def test_generate_text_runs_qwen_p_away_from_the_repository_and_leaves_nothing(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "qwen").write_text(FAKE_QWEN)
    (bin_dir / "qwen").chmod(0o755)
    agent = make_agent(QwenCodeAgent, PATH=f"{bin_dir}:/usr/bin:/bin")
    (Path(agent.home()) / ".qwen").mkdir()
    (Path(agent.home()) / ".qwen" / "settings.json").write_text("{}")
    answer = agent.generate_text("Say hi", "qwen-max")
    assert answer.splitlines()[0] == "args: -p Say hi -m qwen-max"
    cwd = answer.splitlines()[1].removeprefix("cwd: ")
    scratch = os.path.dirname(cwd)
    assert os.path.basename(scratch).startswith("entire-agent-qwen-code-")  # core's Guard's scratch directory
    runtime = os.path.join(scratch, "runtime")
    assert answer.splitlines()[2] == f"runtime: {runtime} {runtime}"  # chats and memory: in the scratch
    assert agent.repo_root not in answer and not os.path.exists(scratch)
    assert sorted(p.name for p in (Path(agent.home()) / ".qwen").iterdir()) == ["settings.json"]


def test_generate_text_without_qwen_names_the_install_command(agent: QwenCodeAgent) -> None:
    with pytest.raises(AgentError) as caught:
        agent.generate_text("Say hi", "")
    assert str(caught.value) == "qwen is not on PATH: Qwen Code is not installed"
    assert caught.value.fix == "`npm install -g @qwen-code/qwen-code@0.24.4`"
