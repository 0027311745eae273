"""A new user's first hour, scripted from the READMEs, on a fresh copy of this checkout.

The demo as one command with runtime packages only; the wheels built; each agent installed with
``uv tool install`` into a temporary tool directory (from the wheels, as from PyPI, and from the source
tree); enabled through the simulator's ``entire``; one recorded turn per agent, from the agent's own
captured hook payloads and transcripts; then the uninstall the READMEs give, in their order. At the end
the repository is clean (only the files the "agents" edited are new) and the user's config files, in
the repository and in the home directory, are byte for byte what they were.

Nothing here uses the network: uv runs offline (``UV_OFFLINE=1``, and inside ``unshare -n`` where that
works), from uv's cache that ``uv sync`` filled and the smoke test's wheelhouse of the third-party
wheels uv.lock pins. ``make walkthrough`` fetches that wheelhouse and runs this test; elsewhere it is
skipped unless ``ENTIRE_WHEELHOUSE`` names one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from checkout import copy_checkout
from entire_sim.demo import Replay, manifests
from first_day import (
    USER_HOME_FILES,
    USER_REPO_FILES,
    agent_loads_its_config,
    one_turn,
    sh,
    snapshot,
    turns,
    user_world,
)
from first_day import clean_env as _clean_env
from readme_commands import AGENTS, for_agent, shown

pytestmark = pytest.mark.walkthrough


def _wheelhouse() -> Path:
    house = os.environ.get("ENTIRE_WHEELHOUSE", "")
    if house and (Path(house) / ".complete").is_file():
        return Path(house)
    message = "needs the smoke test's wheelhouse of pinned third-party wheels: run `make walkthrough`"
    if os.environ.get("ENTIRE_WALKTHROUGH_REQUIRED"):
        pytest.fail(message)
    pytest.skip(message)


def _offline_prefix() -> str:
    unshare = shutil.which("unshare")
    ok = unshare and subprocess.run([unshare, "-n", "true"], capture_output=True, check=False).returncode == 0
    return f"{unshare} -n " if ok else ""


def test_a_new_users_first_hour(tmp_path: Path) -> None:
    house = _wheelhouse()
    offline = _offline_prefix()
    checkout = tmp_path / "checkout"
    copy_checkout(checkout)
    env = _clean_env()

    # The demo: one command, and it installs no dev tool.
    out = sh(offline + shown("uv run --no-dev entire-sim demo"), cwd=checkout, env=env)
    assert "5 agent(s) replayed, 0 protocol violation(s)" in out
    venv_bin = checkout / ".venv" / "bin"
    for tool in ("ruff", "pyright", "pytest"):
        assert not (venv_bin / tool).exists(), f"uv run --no-dev installed {tool}"

    # The wheels, and each agent as a uv tool in a temporary tool directory.
    sh(offline + shown("uv build --all-packages --no-sources --out-dir dist"), cwd=checkout, env=env)
    tools, tool_bin = tmp_path / "uv-tools", tmp_path / "uv-bin"
    env.update(UV_TOOL_DIR=str(tools), UV_TOOL_BIN_DIR=str(tool_bin))
    local = f" --no-index --find-links {house}"
    for agent in AGENTS:
        # Each agent README's command, as from PyPI once released: dist/ stands in for PyPI.
        sh(offline + shown(f"uv tool install --compile-bytecode entire-agent-{agent}") + " --find-links dist" + local,
           cwd=checkout, env=env)  # fmt: skip
        version = sh(f"{tool_bin}/entire-agent-{agent} --version", cwd=tmp_path, env=env)
        assert version.startswith(f"entire-agent-{agent} 0."), version
    # Before a release: from the built wheels, and from the source tree (top-level README).
    for form, agent in (
        ("--find-links dist entire-agent-openai-codex", "openai-codex"),
        ("./packages/agent-aider", "aider"),
    ):
        other = {
            **env,
            "UV_TOOL_DIR": str(tmp_path / f"{agent}-tools"),
            "UV_TOOL_BIN_DIR": str(tmp_path / f"{agent}-bin"),
        }
        command = shown(f"uv tool install --compile-bytecode {form}")
        sh(offline + command + local, cwd=checkout, env=other)
        assert "entire-core" in sh(
            f"{tmp_path}/{agent}-bin/entire-agent-{agent} --version", cwd=tmp_path, env=env
        )
        shown(for_agent("uv tool install --compile-bytecode entire-agent-<name>", agent))

    # The user's world: a repository with config files of their own, and a home with theirs.
    world, repo = user_world(tmp_path, USER_REPO_FILES)
    home_before = snapshot(USER_HOME_FILES, world)
    repo_before = snapshot(USER_REPO_FILES, repo)

    # Enabling through the simulator's `entire`, which finds the plugins on PATH as the CLI does.
    shim_bin = tmp_path / "shim-bin"
    sh(f"{venv_bin}/entire-sim install-shim {shim_bin}", cwd=tmp_path, env=env)
    user_env = {**env, "HOME": str(world / "home"), "CODEX_HOME": str(world / "codex-home"),
                "XDG_DATA_HOME": str(world / "data"), "XDG_CONFIG_HOME": str(world / "config"),
                "XDG_CACHE_HOME": str(world / "cache"),
                "PATH": os.pathsep.join([str(shim_bin), str(tool_bin), "/usr/local/bin", "/usr/bin", "/bin"])}  # fmt: skip
    found = json.loads(
        sh("entire-sim discover", cwd=repo, env={**user_env, "PATH": f"{user_env['PATH']}:{venv_bin}"})
    )
    for agent in AGENTS:
        assert str(tool_bin / f"entire-agent-{agent}") in json.dumps(found), (
            f"{agent} not found in {tool_bin}"
        )
    for agent in AGENTS:
        out = sh(for_agent("entire enable --agent <name>", agent), cwd=repo, env=user_env)
        assert f"hooks for {agent}" in out
        shown(f"entire enable --agent {agent}")
        sh(shown(f"entire-agent-{agent} doctor"), cwd=repo, env=user_env, codes=(0, 1))
    assert json.loads((repo / ".entire" / "settings.json").read_text())["external_agents"] is True  # v0.10.3
    trusted = sh(shown("entire-agent-openai-codex trust"), cwd=repo, env=user_env)
    assert "Trusted 8 Entire hooks" in trusted

    # One recorded turn per agent, from its captured session.
    edited: set[str] = set()
    by_agent = {json.loads(m.read_text(encoding="utf-8"))["agent"]: m for m in manifests(checkout)}
    for agent in AGENTS:
        one_turn(Replay(by_agent[agent], world), user_env, edited)
        agent_loads_its_config(repo, agent)
        turn = turns(repo, agent)[0]
        assert turn["prompt"], turn
    report = json.loads(sh(f"{venv_bin}/entire-sim report --repo {repo} --json", cwd=repo, env=user_env))
    assert report["violations"] == []

    # Uninstalling, in the README's order: trust, hooks, then the plugins.
    assert "Removed 8 trust entries" in sh(
        shown("entire-agent-openai-codex trust --remove"), cwd=repo, env=user_env
    )
    out = sh(shown("entire disable --uninstall --force"), cwd=repo, env=user_env)
    assert all(agent in out for agent in AGENTS), out
    for agent in AGENTS:
        sh(shown(f"uv tool uninstall entire-agent-{agent}"), cwd=tmp_path, env=env)
        assert shown(for_agent("uv tool uninstall entire-agent-<name>", agent))
    assert not list(tool_bin.iterdir())

    # A clean tree: only what the "agents" edited is new, and every config file is as it was.
    assert not (repo / ".entire").exists()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo,
                            capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert {line[3:] for line in status.splitlines()} == edited, status
    assert snapshot(USER_REPO_FILES, repo) == repo_before
    assert snapshot(USER_HOME_FILES, world) == home_before
