"""An agent with no optional capability: the defaults of the base class, and clean refusals."""

from __future__ import annotations

from pathlib import Path

from entire_core.agent import Agent
from entire_core.testing.checks import Env
from entire_core.testing.contract import AgentContract
from entire_core.testing.runner import InProcessRunner, Sandbox


class MinimalAgent(Agent):
    name = "minimal"
    type = "Minimal Agent"
    description = "An agent with only the required subcommands"


class TestMinimalContract(AgentContract):
    agent_cls = MinimalAgent
    skip_reasons = {
        "test_doctor_report": "an agent this small has no human commands, doctor included",
        "test_doctor_refuses_unknown_flags_and_arguments": "an agent this small has no doctor",
        "test_doctor_outside_a_git_repository_says_git_init": "an agent this small has no doctor",
        "test_doctor_names_hooks_of_a_plugin_that_was_uninstalled_first": "an agent this small has no doctor",
    }


def test_defaults(tmp_path: Path) -> None:
    env = Env(sandbox := Sandbox(tmp_path), InProcessRunner(MinimalAgent, sandbox))
    info = env.call("info")
    assert info["hook_names"] == [] and not any(info["capabilities"].values())
    assert env.call("detect") == {"present": False}
    assert env.call("format-resume-command", "--session-id", "s-1") == {"command": "minimal --resume s-1"}
    assert env.call("get-session-dir", "--repo-path", "/r") == {
        "session_dir": "/r/.entire/tmp/entire-agent-minimal"
    }
    # With no --repo-path the repository root comes from ENTIRE_REPO_ROOT, echoed as given.
    assert env.call("get-session-dir")["session_dir"] == f"{sandbox.repo}/.entire/tmp/entire-agent-minimal"
    result = env.fails("parse-hook", "--hook", "stop")
    assert b"hooks" in result.stderr


def test_repo_root_falls_back_to_the_enclosing_git_worktree(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a" / "b").mkdir(parents=True)
    assert MinimalAgent(env={}, cwd=str(tmp_path / "a" / "b")).repo_root == str(tmp_path)
    assert MinimalAgent(env={}, cwd="/").repo_root == "/"
    assert MinimalAgent(env={"ENTIRE_REPO_ROOT": "/x"}, cwd="/").repo_root == "/x"
