"""A new user's first day, from a clean copy of the checkout, following the READMEs; in ``make test``.

The README's demo; each agent installed from the checkout into an environment of its own, its
command linked into the user's bin directory (what ``uv tool install ./packages/agent-codex`` and the like do;
``uv tool`` resolves against the package index, which no test may reach, so ``uv sync --package``
installs the same package with the locked dependencies, offline, from uv's cache); the simulator put
on PATH after the plugins, as its README says; each agent enabled through the simulator's ``entire``
in a repository with config files of the user's own (an empty Gemini settings file, an Aider config
ending in YAML's ``...``), with the mistakes a new user makes on the way; one recorded turn per agent,
from its captured session; then the uninstall the READMEs give, in their order. Then:

- the repository is as it was (only the files the "agents" edited are new) and every config file that
  was there before, in the repository and in the home directory, is byte for byte what it was;
- nothing of ours is left in the temporary directory, and nothing anywhere in the home and XDG
  directories outside what the agent READMEs list under "What it writes outside the repository";
- every error a plugin printed in the run is one line in core's format.

``test_walkthrough.py`` is the same hour from built wheels and ``uv tool install`` (``make walkthrough``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from checkout import copy_checkout
from entire_core.testing.checks import error_format_problem
from entire_sim.demo import Replay, manifests
from first_day import (
    USER_HOME_FILES,
    USER_REPO_FILES,
    agent_loads_its_config,
    clean_env,
    expand_listed,
    hook_calls,
    listed_outside,
    one_turn,
    run,
    sh,
    snapshot,
    turns,
    user_world,
)
from readme_commands import AGENTS, shown

PACKAGE_DIR = {
    "aider": "agent-aider",
    "cline-cli": "agent-cline-cli",
    "google-gemini": "agent-gemini",
    "openai-codex": "agent-codex",
    "qwen-code": "agent-qwen-code",
}

REPO_FILES = {
    **USER_REPO_FILES,
    # The reproductions: a 0-byte settings file, and YAML that ends with its document end marker.
    ".gemini/settings.json": "",
    ".aider.conf.yml": "# the team's Aider settings\nauto-commits: false\n...\n",
}


def _install_from_checkout(clone: Path, agent: str, tools: Path, user_bin: Path, env: dict[str, str]) -> None:
    """``entire-agent-<agent>`` in an environment of its own, linked into ``user_bin`` as uv tool does."""
    environment = tools / agent
    # --reinstall-package: uv keys its cache of a local package's build by its pyproject.toml, which a
    # copy keeps; without it, a wheel built from other sources of the same version would be reused.
    sh(f"uv sync --frozen --no-dev --no-editable --package entire-agent-{agent}"
       f" --reinstall-package entire-core --reinstall-package entire-agent-{agent}", cwd=clone,
       env={**env, "UV_PROJECT_ENVIRONMENT": str(environment)})  # fmt: skip
    (user_bin / f"entire-agent-{agent}").symlink_to(environment / "bin" / f"entire-agent-{agent}")


def test_a_new_users_first_day(tmp_path: Path) -> None:
    clone = copy_checkout(tmp_path / "clone")
    env = clean_env(TMPDIR=str(tmp_path / "uv-tmp"))
    (tmp_path / "uv-tmp").mkdir()

    # The README's first step: the demo, with the runtime packages only.
    out = sh(shown("uv run --no-dev entire-sim demo"), cwd=clone, env=env)
    assert "5 agent(s) replayed, 0 protocol violation(s)" in out

    # Each agent installed from the checkout, into its own environment, linked into the user's bin.
    tools, user_bin = tmp_path / "tools", tmp_path / "user-bin"
    user_bin.mkdir()
    for agent in AGENTS:
        _install_from_checkout(clone, agent, tools, user_bin, env)

    # The user's world: a repository with config files of their own, and a home with theirs.
    world, repo = user_world(tmp_path, REPO_FILES)
    home_before, repo_before = snapshot(USER_HOME_FILES, world), snapshot(REPO_FILES, repo)
    tmp = world / "tmp"  # the user's /tmp: every plugin, shim and simulator process writes there
    tmp.mkdir()
    user_env = {**env, "HOME": str(world / "home"), "CODEX_HOME": str(world / "codex-home"),
                "XDG_DATA_HOME": str(world / "data"), "XDG_CONFIG_HOME": str(world / "config"),
                "XDG_CACHE_HOME": str(world / "cache"), "XDG_STATE_HOME": str(world / "state"),
                "TMPDIR": str(tmp), "PATH": os.pathsep.join([str(user_bin), "/usr/local/bin", "/usr/bin", "/bin"])}  # fmt: skip

    # The simulator after the plugins on PATH (its README), and its shim first, outside the repository.
    after_plugins = shown('export PATH="$PATH:$PWD/.venv/bin"')
    user_env["PATH"] = sh(after_plugins + '; echo "$PATH"', cwd=clone, env=user_env).strip()
    sh(shown('entire-sim install-shim ~/.entire-sim/bin && export PATH="$HOME/.entire-sim/bin:$PATH"'),
       cwd=repo, env=user_env)  # fmt: skip
    user_env["PATH"] = f"{world}/home/.entire-sim/bin{os.pathsep}{user_env['PATH']}"
    found = json.loads(sh(shown("entire-sim discover"), cwd=repo, env=user_env))
    assert {p["name"]: p["path"] for p in found["plugins"]} == {
        agent: str(user_bin / f"entire-agent-{agent}") for agent in AGENTS
    }, "the workspace's copies shadow the installed plugins"

    errors: list[tuple[str, str]] = []  # (agent, stderr) of every plugin call in the run that wrote any

    def plugin(agent: str, command: str, *, stdin: str = "", codes: tuple[int, ...] = (0,)) -> str:
        done = run(f"entire-agent-{agent} {command}", cwd=repo, env=user_env, stdin=stdin)
        assert done.returncode in codes, f"{agent} {command}: {done.returncode} {done.stderr}"
        if done.stderr:
            errors.append((agent, done.stderr))
        return done.stdout

    # Enabling, with a new user's mistakes on the way.
    mistake = run("entire enable --agent codex", cwd=repo, env=user_env)
    assert mistake.returncode == 1 and "did you mean --agent openai-codex?" in mistake.stderr
    for agent in AGENTS:
        out = sh(f"entire enable --agent {agent}", cwd=repo, env=user_env)
        assert f"hooks for {agent}" in out
        assert plugin(agent, "doctor", codes=(0, 1)).startswith(f"entire-agent-{agent} doctor: ")
        assert plugin(agent, "parse-hook --help").startswith(f"usage: entire-agent-{agent} parse-hook")
        plugin(agent, "info --bogus", codes=(2,))
        plugin(agent, "read-session", stdin="[]", codes=(1,))
        assert plugin(agent, f"parse-hook --hook {_first_hook(agent)}") == "null\n"  # nothing on stdin
    assert json.loads((repo / ".entire" / "settings.json").read_text())["external_agents"] is True  # v0.10.3
    assert "Trusted 8 Entire hooks" in plugin("openai-codex", "trust")

    # One recorded turn per agent, from its captured session.
    edited: set[str] = set()
    written: set[Path] = set()
    by_agent = {json.loads(m.read_text(encoding="utf-8"))["agent"]: m for m in manifests(clone)}
    for agent in AGENTS:
        one_turn(Replay(by_agent[agent], world), user_env, edited, written)
        agent_loads_its_config(repo, agent)
        assert turns(repo, agent)[0]["prompt"]
    for record in hook_calls(repo):
        assert not record.get("error"), record
        errors += [(str(record["agent"]), c["stderr"]) for c in record["calls"] if c.get("stderr")]

    # Uninstalling, in the READMEs' order: trust, hooks, then the plugins.
    assert "Removed 8 trust entries" in plugin("openai-codex", "trust --remove")
    out = sh(shown("entire disable --uninstall --force"), cwd=repo, env=user_env)
    assert all(agent in out for agent in AGENTS), out
    for agent in AGENTS:  # what `uv tool uninstall entire-agent-<name>` does: the link and the environment
        (user_bin / f"entire-agent-{agent}").unlink()
        shutil.rmtree(tools / agent)

    # The repository and every config file that was there are as they were.
    assert not (repo / ".entire").exists()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo,
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert {line[3:] for line in status.splitlines()} == edited, status
    assert snapshot(REPO_FILES, repo) == repo_before
    assert snapshot(USER_HOME_FILES, world) == home_before

    # Nothing of ours in the temporary directory, nor outside what the READMEs list.
    assert sorted(p.name for p in tmp.iterdir()) == []
    listed = [expand_listed(path, user_env) for agent in AGENTS
              for path in listed_outside(clone / "packages" / PACKAGE_DIR[agent] / "README.md")]  # fmt: skip
    listed.append(world / "home" / ".entire-sim")  # the simulator's shim, where its README puts it
    theirs = {world / name for name in USER_HOME_FILES} | written
    left = [path for path in _files(world) if path not in theirs and not path.is_relative_to(repo)
            and not any(path == p or path.is_relative_to(p) for p in listed)]  # fmt: skip
    assert left == [], f"left outside the repository and the READMEs' lists: {left}"
    assert any(p.is_relative_to(world / "state") for p in _files(world)), "no view was kept at all?"

    # Every error a plugin printed in the run is one line in core's format.
    assert len(errors) >= 2 * len(AGENTS)
    wrong = [(agent, text, problem) for agent, text in errors
             if (problem := error_format_problem(text, agent)) is not None]  # fmt: skip
    assert wrong == []


def _first_hook(agent: str) -> str:
    return {
        "aider": "turn-end",
        "cline-cli": "task-complete",
        "google-gemini": "after-agent",
        "openai-codex": "stop",
        "qwen-code": "stop",
    }[agent]


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() or p.is_symlink())
