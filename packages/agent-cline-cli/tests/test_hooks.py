"""Our hook files in ``.cline/hooks``: what install writes, and uninstall giving the repository back byte for byte."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from entire_agent_cline_cli.agent import ClineCliAgent
from entire_agent_cline_cli.hooks import NATIVE_EVENTS, script
from entire_core.errors import ConfigError


def tree(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` but ``.git``: a file's bytes, None for a folder."""
    out: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if rel == ".git" or rel.startswith(".git" + os.sep):
            continue
        out[rel] = None if path.is_dir() else path.read_bytes()
    return out


def test_install_writes_one_script_per_event(agent: ClineCliAgent) -> None:
    repo = Path(agent.repo_root)
    assert agent.install_hooks() == len(NATIVE_EVENTS)
    for hook, event in NATIVE_EVENTS.items():
        path = repo / ".cline" / "hooks" / event
        assert path.read_bytes() == script("cline-cli", hook)
        assert os.access(path, os.X_OK)
    assert agent.are_hooks_installed()
    assert agent.install_hooks() == 0  # already there
    assert agent.install_hooks(force=True) == len(NATIVE_EVENTS)
    assert sorted(os.listdir(repo / ".cline" / "hooks")) == sorted(NATIVE_EVENTS.values())


def test_the_script_runs_entire_and_is_quiet_without_it(agent: ClineCliAgent, tmp_path: Path) -> None:
    agent.install_hooks()
    hook = Path(agent.repo_root) / ".cline" / "hooks" / "TaskComplete"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "entire"
    fake.write_text(
        '#!/bin/sh\necho "$@" > "$0.args"\ncat > "$0.stdin"\necho "$ENTIRE_EVENT_DELIVERY" > "$0.token"\nexit 3\n'
    )
    plugin = bin_dir / "entire-agent-cline-cli"
    plugin.write_text('#!/bin/sh\necho "$@" > "$0.args"\n')
    for program in (fake, plugin):
        program.chmod(0o755)
    env = {**agent.env, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    done = subprocess.run(["sh", str(hook)], input=b'{"x":1}', env=env, capture_output=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert (bin_dir / "entire.args").read_text() == "hooks cline-cli task-complete\n"
    assert (bin_dir / "entire.stdin").read_bytes() == b'{"x":1}'
    token = (bin_dir / "entire.token").read_text().strip()  # the script's own: entire_core.liveness's form
    assert (
        bin_dir / "entire-agent-cline-cli.args"
    ).read_text() == f"delivered --delivery {token} --status 3\n"
    plugin.unlink()  # no plugin: entire runs, the rest is quiet
    done = subprocess.run(["sh", str(hook)], input=b"{}", env=env, capture_output=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    env["PATH"] = "/nonexistent"
    done = subprocess.run(["/bin/sh", str(hook)], input=b"{}", env=env, capture_output=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_the_script_acknowledges_the_event_only_once_the_host_has_it(
    agent: ClineCliAgent, tmp_path: Path
) -> None:
    """The installed script, the real plugin, and an ``entire`` that hands the payload to parse-hook and
    exits with ``STATUS``: a failed call leaves its event to be answered again, a good one takes it away."""
    import json
    import sys

    from entire_core.scratch import Scratch

    agent.install_hooks()
    session = "1796645615702_oiii7"
    messages = Path(agent.home()) / ".cline" / "data" / "sessions" / session / f"{session}.messages.json"
    messages.parent.mkdir(parents=True)
    messages.write_text(json.dumps({"messages": [
        {"id": "m1", "role": "user", "content": [{"type": "text", "text": '<user_input mode="act">hi</user_input>'}]},
        {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "Hello."}]}]}))  # fmt: skip
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "entire").write_text(
        '#!/bin/sh\nentire-agent-cline-cli parse-hook --hook "$3" >> "$0.heard"\nexit "$STATUS"\n'
    )
    (bin_dir / "entire").chmod(0o755)
    (bin_dir / "entire-agent-cline-cli").symlink_to(Path(sys.executable).parent / "entire-agent-cline-cli")
    payload = json.dumps(
        {"timestamp": "2026-12-01T10:00:00.000Z", "sessionContext": {"rootSessionId": session}}
    )
    hook = Path(agent.repo_root) / ".cline" / "hooks" / "TaskComplete"
    state = Scratch(agent.repo_root, "cline-cli").file("session", session)
    queued = lambda: [e["type"] for e in json.loads(Path(state).read_text())["queue"]]  # noqa: E731
    heard = lambda: [json.loads(line)["type"] for line in (bin_dir / "entire.heard").read_text().splitlines()]  # noqa: E731
    for status, answered, left in (("1", [2], [2, 3]), ("0", [2, 2], [3]), ("0", [2, 2, 3], [])):
        env = {**agent.env, "PATH": f"{bin_dir}:/usr/bin:/bin", "STATUS": status, "ENTIRE_AGENT_FRONT": "0"}
        subprocess.run(
            ["sh", str(hook)], input=payload.encode(), env=env, cwd=agent.repo_root, check=True, timeout=60
        )
        assert (heard(), queued()) == (answered, left), status


OLDER_SCRIPT = (
    "#!/bin/sh\n# Entire records this Cline session here (entire-agent-cline-cli); `entire disable` removes it.\n"
    "command -v entire >/dev/null 2>&1 || exit 0; exec entire hooks cline-cli {hook}\n"
)
"""The script installed before the acknowledgement: it ran `entire hooks` alone."""


def test_install_writes_an_older_releases_scripts_anew_and_uninstall_knows_them(agent: ClineCliAgent) -> None:
    hooks = Path(agent.repo_root) / ".cline" / "hooks"
    hooks.mkdir(parents=True)
    for hook, event in NATIVE_EVENTS.items():
        (hooks / event).write_text(OLDER_SCRIPT.format(hook=hook))
    assert agent.are_hooks_installed()
    assert agent.install_hooks() == len(NATIVE_EVENTS)
    for hook, event in NATIVE_EVENTS.items():
        assert (hooks / event).read_bytes() == script("cline-cli", hook)
    assert agent.install_hooks() == 0
    (hooks / "TaskError").write_text(OLDER_SCRIPT.format(hook="task-error"))
    agent.uninstall_hooks()
    assert list(hooks.iterdir()) == []


@pytest.mark.parametrize("before", ["nothing", "empty .cline", "users hooks", "users TaskStart"])
def test_uninstall_gives_the_repository_back(agent: ClineCliAgent, before: str) -> None:
    repo = Path(agent.repo_root)
    if before != "nothing":
        (repo / ".cline").mkdir()
    if before in ("users hooks", "users TaskStart"):
        (repo / ".cline" / "hooks").mkdir()
        (repo / ".cline" / "hooks" / "PreToolUse.py").write_bytes(b"#!/usr/bin/env python3\nprint('{}')\r\n")
    if before == "users TaskStart":
        for name in ("TaskStart", "TaskStart.sh"):
            (repo / ".cline" / "hooks" / name).write_bytes(b"#!/bin/bash\necho mine\n")
    original = tree(repo)
    agent.install_hooks()
    agent.install_hooks(force=True)
    if before == "users TaskStart":
        assert (repo / ".cline" / "hooks" / "TaskStart.bash").read_bytes() == script(
            "cline-cli", "task-start"
        )
    assert agent.are_hooks_installed()
    agent.uninstall_hooks()
    assert tree(repo) == original
    assert not agent.are_hooks_installed()


def test_a_folder_the_user_filled_since_stays(agent: ClineCliAgent) -> None:
    repo = Path(agent.repo_root)
    agent.install_hooks()
    (repo / ".cline" / "rules.md").write_text("mine\n")
    agent.uninstall_hooks()
    assert sorted(os.listdir(repo / ".cline")) == ["rules.md"]


def test_enabling_one_repository_leaves_another_alone(agent: ClineCliAgent, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    agent.install_hooks()
    assert list(other.iterdir()) == []
    assert not ClineCliAgent(
        env={**agent.env, "ENTIRE_REPO_ROOT": str(other)}, cwd=str(other)
    ).are_hooks_installed()


def test_a_file_where_the_folder_goes_is_refused(agent: ClineCliAgent) -> None:
    repo = Path(agent.repo_root)
    (repo / ".cline").write_text("not a folder\n")
    with pytest.raises(ConfigError, match="not a folder"):
        agent.install_hooks()
    assert (repo / ".cline").read_text() == "not a folder\n"


def test_doctor_names_a_missing_hook_file_and_its_fix(agent: ClineCliAgent) -> None:
    import sys

    script = str(Path(sys.executable).parent / "entire-agent-cline-cli")
    run = lambda: subprocess.run([script, "doctor"], cwd=agent.repo_root, env=dict(agent.env),  # noqa: E731
                                 capture_output=True, check=False, timeout=60)  # fmt: skip
    before = run()
    assert before.returncode == 1
    assert b"no hook file of ours" in before.stdout + before.stderr
    agent.install_hooks()
    (Path(agent.repo_root) / ".cline" / "hooks" / "TaskError").unlink()
    assert b"for TaskError" in run().stdout + run().stderr
    agent.install_hooks()
    after = run()
    assert b"the 5 installed hooks call `entire hooks cline-cli <hook>`" in after.stdout + after.stderr
