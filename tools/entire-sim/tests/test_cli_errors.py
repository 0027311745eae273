"""``entire-sim`` is a tool people touch: bad input is one line on stderr and a non-zero exit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sim_helpers import sample

SCRIPT = str(Path(sys.executable).parent / "entire-sim")


def run(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SCRIPT, *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False, env=env
    )


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode != 0, done
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("entire-sim: "), done.stderr
    return lines[0]


def files(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*") if ".git" not in p.parts)


@pytest.mark.parametrize("session_id", ["nope", "../x", "a b"])
def test_resume_of_an_unknown_session(repo: Path, session_id: str) -> None:
    before = files(repo)
    line = one_line_error(run(repo, "resume", "--agent", "aider", "--session-id", session_id))
    if session_id == "nope":
        assert "no recorded session 'nope'" in line and "(recorded: none)" in line, line
    else:
        assert f"session id {session_id!r}" in line, line
    assert files(repo) == before  # nothing created, not even under .entire/sim


def test_report_on_a_missing_repository(tmp_path: Path) -> None:
    line = one_line_error(run(tmp_path, "report", "--repo", str(tmp_path / "nonexistent")))
    assert "no such directory" in line


def test_demo_with_an_unknown_agent_names_the_agents(tmp_path: Path) -> None:
    line = one_line_error(run(tmp_path, "demo", "--agent", "nope"))
    assert "unknown agent 'nope'" in line
    for name in ("aider", "google-gemini", "openai-codex"):
        assert name in line


def test_enable_of_an_unknown_agent_changes_nothing(repo: Path) -> None:
    before = files(repo)
    line = one_line_error(run(repo, "enable", "--agent", "nope"))
    assert "no entire-agent-nope on PATH: plugins found: " in line and "[]" not in line
    assert files(repo) == before


@pytest.mark.parametrize(("name", "plugin"), [("codex", "openai-codex"), ("gemini", "google-gemini")])
def test_enable_of_a_builtin_name_says_so_and_names_our_plugin(repo: Path, name: str, plugin: str) -> None:
    line = one_line_error(run(repo, "enable", "--agent", name))
    assert line == (
        f"entire-sim: {name!r} is one of the Entire CLI's built-in agents, so a plugin of that name is never "
        f"run: did you mean --agent {plugin}?"
    )


@pytest.mark.parametrize(
    "args", [(), ("enable",), ("resume", "--agent", "aider"), ("nope",), ("report", "--bogus")]
)
def test_usage_errors_are_one_line_with_exit_2(tmp_path: Path, args: tuple[str, ...]) -> None:
    done = run(tmp_path, *args)
    one_line_error(done)
    assert done.returncode == 2 and "--help')" in done.stderr, done.stderr


def test_a_shim_that_cannot_be_written(tmp_path: Path) -> None:
    line = one_line_error(run(tmp_path, "install-shim", "/proc/self/no/such/dir"))
    assert "/proc/self/no" in line


def test_the_shim_enables_and_uninstalls_like_the_cli(repo: Path, bin_dir: Path) -> None:
    sample(bin_dir)
    shim_dir = repo.parent / "shim"
    assert run(repo, "install-shim", str(shim_dir)).returncode == 0
    env = {**os.environ, "PATH": os.pathsep.join([str(shim_dir), str(bin_dir), "/usr/bin", "/bin"])}
    before = files(repo)
    enabled = subprocess.run(["entire", "enable", "--agent", "sample"], cwd=repo, env=env,
                             capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert enabled.returncode == 0 and "Installed" in enabled.stdout, enabled
    assert json.loads((repo / ".entire" / "settings.json").read_text()) == {
        "enabled": True,
        "external_agents": True,
    }
    assert not (repo / ".entire" / "settings.local.json").exists()  # v0.10.3 writes none
    removed = subprocess.run(["entire", "disable", "--uninstall", "--force"], cwd=repo, env=env,
                             capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert removed.returncode == 0 and "sample" in removed.stdout, removed
    assert files(repo) == before
    bad = subprocess.run(["entire", "disable", "--everything"], cwd=repo, env=env,
                         capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert bad.returncode == 1 and bad.stderr.endswith("\nError: Invalid usage: unknown flag: --everything\n")
