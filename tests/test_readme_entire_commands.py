"""Every ``entire ...`` command a README names, run against the real Entire CLI and against the simulator's shim.

The commands are read from the READMEs themselves (``readme_commands.entire_commands``: ```sh blocks and inline
spans), their placeholders filled in, and each is run in a scratch repository. ``OUTCOMES`` is what Entire
CLI v0.10.3 answered (exit code, and the message of a refusal); the ``host`` test holds the real binary at
``ENTIRE_BIN`` to it, the twin holds the shim (``entire-sim install-shim``) to it in ``make test``. A command
added to a README without its outcome here fails both, so the docs cannot name a command nobody ran. Both
also check what the READMEs say each command does (the settings it writes, what uninstall leaves).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import readme_commands
from entire_sim.demo import make_repo
from entire_sim.simulator import Simulator

AGENTS = readme_commands.AGENTS
BRANCH = "no-such-branch"
CHECKPOINT = "0123456789ab"
UNKNOWN = 'Error: Invalid usage: unknown command "{}" for "entire"'
NO_CHECKPOINT = f'no checkpoint or commit found matching "{CHECKPOINT}"'

OUTCOMES: dict[str, tuple[int, str]] = {
    "entire agent add google-gemini": (1, 'Unknown agent "google-gemini". Available agents:'),
    "entire agent list": (0, ""),
    f"entire checkpoint explain --generate {CHECKPOINT}": (1, NO_CHECKPOINT),
    f"entire checkpoint explain {CHECKPOINT}": (1, NO_CHECKPOINT),
    **{f"entire configure --summarize-provider {a}": (0, "") for a in AGENTS},
    **{f"entire configure --summarize-provider {a} --local": (0, "") for a in AGENTS},
    "entire disable": (0, ""),
    "entire disable --uninstall": (
        1,
        "No terminal available to confirm the uninstall. Re-run with --force to uninstall non-interactively.",
    ),
    "entire disable --uninstall --force": (0, ""),
    **{f"entire enable --agent {a}": (0, "") for a in AGENTS},
    **{f"entire enable --agent {a} --force": (0, "") for a in AGENTS},
    "entire explain": (1, UNKNOWN.format("explain")),
    **{f"entire hooks {a} session-start": (0, "") for a in AGENTS},
    "entire hooks google-gemini after-agent": (0, ""),
    "entire resume": (1, UNKNOWN.format("resume")),
    "entire rewind": (1, UNKNOWN.format("rewind")),
    f"entire session resume {BRANCH}": (1, f"branch '{BRANCH}' not found locally or on origin"),
    f"entire session resume {BRANCH} --force": (1, f"branch '{BRANCH}' not found locally or on origin"),
    "entire version": (0, ""),
}
"""Entire CLI v0.10.3 (a local build, 2026-12-02): each README command's exit code and refusal message."""

PICKED = "aider"
"""The provider the first ``entire checkpoint explain --generate`` picked on its own in the issue's run."""

_PLACEHOLDER = re.compile(r"^(<[^>]+>|[A-Z]+|\.\.\.)$")


def expand(command: str) -> list[str]:
    """``command`` as runnable commands: ``[--x]`` both ways, agents and hooks filled in, redirections dropped."""
    optional = re.search(r" \[(--[a-z-]+)\]", command)
    if optional:
        return [
            *expand(command.replace(optional[0], "", 1)),
            *expand(command.replace(optional[0], f" {optional[1]}", 1)),
        ]
    command = re.sub(r"<branch>", BRANCH, re.sub(r"<checkpoint id>|<id>", CHECKPOINT, command))
    words = shlex.split(command.split(" < ")[0])
    if words[1:2] == ["hooks"] and len(words) > 2:
        agents = AGENTS if _PLACEHOLDER.match(words[2]) else (words[2],)
        hook = words[3] if len(words) > 3 and not _PLACEHOLDER.match(words[3]) else "session-start"
        return [f"entire hooks {agent} {hook}" for agent in agents]
    if any(_PLACEHOLDER.match(w) for w in words):
        return sorted({" ".join(a if _PLACEHOLDER.match(w) else w for w in words) for a in AGENTS})
    return [" ".join(words)]


def readme_runs() -> dict[str, list[str]]:
    """Each runnable command and the README commands it comes from."""
    runs: dict[str, list[str]] = {}
    for shown in readme_commands.entire_commands():
        for command in expand(shown):
            runs.setdefault(command, []).append(shown)
    return runs


def test_every_readme_entire_command_has_the_hosts_outcome() -> None:
    runs = readme_runs()
    missing = sorted(set(runs) - set(OUTCOMES))
    assert not missing, (
        f"README commands with no recorded v0.10.3 outcome (run them with the host, add them): {missing}"
    )
    stale = sorted(set(OUTCOMES) - set(runs))
    assert not stale, f"OUTCOMES names commands no README shows any more: {stale}"


def test_expand_fills_placeholders() -> None:
    assert expand("entire enable --agent NAME [--force]") == [
        *(f"entire enable --agent {a}" for a in AGENTS),
        *(f"entire enable --agent {a} --force" for a in AGENTS),
    ]
    assert expand("entire hooks <agent> <name>") == [f"entire hooks {a} session-start" for a in AGENTS]
    assert expand("entire hooks google-gemini after-agent < payload.json") == [
        "entire hooks google-gemini after-agent"
    ]
    assert expand("entire session resume <branch>") == [f"entire session resume {BRANCH}"]


# -- running them ---------------------------------------------------------------------------------------------


@dataclass
class World:
    """A home, a PATH with one ``entire`` (the host or the shim) and the plugins, and an enabled template repo."""

    root: Path
    env: dict[str, str]
    template: Path

    def run(
        self, command: str, repo: Path, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        stdin = "{}" if command.startswith("entire hooks ") else None
        return subprocess.run(
            shlex.split(command), cwd=repo, env=env or self.env, input=stdin,
            stdin=None if stdin else subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip

    def without(self, agent: str) -> dict[str, str]:
        """The environment with ``entire-agent-<agent>`` gone from PATH (``uv tool uninstall``), the others kept."""
        bin_dir = self.root / f"bin-without-{agent}"
        if not bin_dir.exists():
            bin_dir.mkdir()
            for other in AGENTS:
                if other != agent:
                    (bin_dir / f"entire-agent-{other}").symlink_to(
                        Path(sys.executable).parent / f"entire-agent-{other}"
                    )
        first, _plugins, *rest = self.env["PATH"].split(os.pathsep)
        return {**self.env, "PATH": os.pathsep.join([first, str(bin_dir), *rest])}

    def fresh(self, name: str) -> Path:
        repo = self.root / "repos" / name
        make_repo(repo)
        return repo


def _world(root: Path, entire_dir: Path) -> World:
    home = root / "home"
    home.mkdir(parents=True)
    plugins = Path(sys.executable).parent  # the workspace's entire-agent-* (and no `entire`)
    env = {
        "HOME": str(home), "XDG_STATE_HOME": str(home / "state"), "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"), "XDG_CACHE_HOME": str(home / "cache"),
        "TMPDIR": os.environ.get("TMPDIR", "/tmp"), "PATH": os.pathsep.join([str(entire_dir), str(plugins), "/usr/bin", "/bin"]),
        "ENTIRE_TELEMETRY_OPTOUT": "1", "ENTIRE_NO_AUTO_UPDATE": "1", "ENTIRE_TEST_TTY": "0",
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }  # fmt: skip
    world = World(root, env, root / "repos" / "template")
    make_repo(world.template)
    for agent in AGENTS:
        done = world.run(f"entire enable --agent {agent}", world.template)
        assert done.returncode == 0, done.stdout + done.stderr
    return world


def _message(done: subprocess.CompletedProcess[str]) -> str:
    """What a refusal says: the last line on stderr, else the first on stdout ("" for a success)."""
    if done.returncode == 0:
        return ""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return lines[-1] if lines else next((line for line in done.stdout.splitlines() if line.strip()), "")


def _settings(repo: Path, name: str) -> dict[str, object]:
    path = repo / ".entire" / name
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _status(repo: Path) -> str:
    return subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo,
                          capture_output=True, text=True, check=True).stdout  # fmt: skip


def run_and_check(world: World, command: str, index: int) -> list[str]:
    """Run ``command`` in a repository in the state it needs; the differences from OUTCOMES and from what it does."""
    problems: list[str] = []
    before = ""
    if command.startswith("entire enable"):
        repo = world.fresh(f"r{index}")
    elif command == "entire disable --uninstall --force":
        repo = world.fresh(f"r{index}")
        before = _status(repo)
        for agent in AGENTS:
            world.run(f"entire enable --agent {agent}", repo)
    else:
        repo = world.root / "repos" / f"r{index}"
        shutil.copytree(world.template, repo, symlinks=True)
    if command.startswith("entire configure "):  # what the first `explain --generate` wrote on its own
        local = repo / ".entire" / "settings.local.json"
        local.write_text(
            json.dumps({"external_agents": True, "summary_generation": {"provider": PICKED}}) + "\n"
        )
    done = world.run(command, repo)
    got = (done.returncode, _message(done))
    if got != OUTCOMES[command]:
        problems.append(f"{command}: {got} instead of {OUTCOMES[command]}\n{done.stdout}{done.stderr}")
        return problems
    words = command.split()
    if words[1] == "enable":
        agent = words[3]
        shared = _settings(repo, "settings.json")
        if not (shared.get("enabled") is True and shared.get("external_agents") is True):
            problems.append(
                f"{command}: .entire/settings.json is {shared} (v0.10.3 writes both switches there)"
            )
        if (repo / ".entire" / "settings.local.json").exists():
            problems.append(f"{command}: wrote .entire/settings.local.json (v0.10.3 writes none)")
        installed = subprocess.run([f"entire-agent-{agent}", "are-hooks-installed"], cwd=repo, env=world.env,
                                   capture_output=True, text=True, check=False)  # fmt: skip
        if json.loads(installed.stdout or "{}").get("installed") is not True:
            problems.append(
                f"{command}: {agent}'s hooks are not installed ({installed.stdout}{installed.stderr})"
            )
    elif command == "entire disable":
        if _settings(repo, "settings.local.json").get("enabled") is not False:
            problems.append(f'{command}: no "enabled": false in .entire/settings.local.json')
    elif command == "entire disable --uninstall --force":
        if (repo / ".entire").exists() or _status(repo) != before:
            problems.append(f"{command}: left {_status(repo)!r} (before enable: {before!r})")
    elif words[1] == "configure":
        # The top-level README: the host's own pick (in the local file) wins over the shared file.
        local = _settings(repo, "settings.local.json").get("summary_generation")
        shared = _settings(repo, "settings.json").get("summary_generation")
        wanted = {"provider": words[3]}
        if "--local" in words:
            if local != wanted:
                problems.append(f"{command}: summary_generation is {local} in .entire/settings.local.json")
        elif shared != wanted or local != {"provider": PICKED}:
            problems.append(f"{command}: summary_generation is {shared} in .entire/settings.json, {local} in "
                            f".entire/settings.local.json (the pick {PICKED!r} should stay there)")  # fmt: skip
    elif command == "entire agent list" and "No agents installed" not in done.stdout:
        problems.append(f"{command}: {done.stdout!r} (v0.10.3 knows no plugin here)")
    return problems


def check_all(world: World) -> None:
    problems = [
        p for i, command in enumerate(sorted(readme_runs())) for p in run_and_check(world, command, i)
    ]
    assert not problems, "\n".join(problems)
    # The top-level README: where external_agents is not true, every hook of ours fails, exit 1.
    repo = world.root / "repos" / "external-agents-off"
    shutil.copytree(world.template, repo, symlinks=True)
    (repo / ".entire" / "settings.local.json").write_text('{"external_agents": false}\n', encoding="utf-8")
    for agent in AGENTS:
        done = world.run(f"entire hooks {agent} session-start", repo)
        unknown = f'unknown agent "{agent}" (not found as built-in or external plugin)'
        assert (done.returncode, _message(done)) == (1, unknown), done
    problems = [p for agent in AGENTS for p in check_uninstalled_first(world, agent)]
    assert not problems, "\n".join(problems)


def check_uninstalled_first(world: World, agent: str) -> list[str]:
    """The top-level README's "Uninstalled in the other order", for one agent: what the host says and leaves,
    what the hooks left do, what another plugin's doctor says, and the way back giving the repository back."""
    problems: list[str] = []
    repo = world.fresh(f"gone-{agent}")
    before = _status(repo)
    world.run(f"entire enable --agent {agent}", repo)
    config = repo / {"aider": ".aider.conf.yml", "cline-cli": ".cline/hooks/TaskStart", "google-gemini": ".gemini/settings.json",
                     "openai-codex": ".codex/hooks.json", "qwen-code": ".qwen/settings.json"}[agent]  # fmt: skip
    gone = world.without(agent)
    done = world.run("entire disable --uninstall --force", repo, gone)
    if (
        done.returncode != 0
        or "· No agent hooks to remove" not in done.stdout
        or ("✓ Entire has been removed from this repository." not in done.stdout)
    ):
        problems.append(
            f"{agent}: uninstall without the plugin: {done.returncode}\n{done.stdout}{done.stderr}"
        )
    if (repo / ".entire").exists() or f"{agent}" not in config.read_text():
        problems.append(f"{agent}: not what the README says is left: {_status(repo)!r}")
    if agent == "aider":  # the block calls the plugin itself: quiet without it
        block = "command -v entire-agent-aider >/dev/null 2>&1 || exit 0; exec entire-agent-aider notify"
        hook = subprocess.run(
            ["sh", "-c", block], cwd=repo, env=gone, capture_output=True, text=True, check=False
        )
        got: tuple[int, str] = (hook.returncode, hook.stdout + hook.stderr)
        expected: tuple[int, str] = (0, "")
    else:
        hook = world.run(f"entire hooks {agent} session-start", repo, gone)
        got = (hook.returncode, _message(hook))
        expected = (1, f'unknown agent "{agent}" (not found as built-in or external plugin)')
    if got != expected:
        problems.append(f"{agent}: a hook left behind gave {got}, not {expected}")
    other = next(a for a in AGENTS if a != agent)
    doctor = world.run(f"entire-agent-{other} doctor", repo, gone)
    if f"`entire-agent-{agent} uninstall-hooks`" not in doctor.stdout:
        problems.append(f"{agent}: entire-agent-{other} doctor gives no way back:\n{doctor.stdout}")
    back = world.run(readme_commands.shown(f"entire-agent-{agent} uninstall-hooks"), repo)  # the plugin back
    if back.returncode != 0 or _status(repo) != before or config.exists():
        problems.append(f"{agent}: the way back left {_status(repo)!r} ({back.returncode} {back.stderr})")
    return problems


# -- the real host ------------------------------------------------------------------------------------------


def _host_binary() -> Path:
    binary = os.environ.get("ENTIRE_BIN", "")
    if not binary:
        reason = "host: needs ENTIRE_BIN=/path/to/entire (the real Entire CLI)"
        if os.environ.get("ENTIRE_HOST") == "1":
            pytest.fail(f"{reason}; ENTIRE_HOST=1 requires it")
        pytest.skip(f"{reason}; set ENTIRE_HOST=1 to require it")
    path = Path(binary).resolve()
    assert path.is_file() and os.access(path, os.X_OK), f"ENTIRE_BIN={binary} is not an executable"
    return path


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    binary = _host_binary()
    root = tmp_path_factory.mktemp("host")
    (root / "bin").mkdir()
    (root / "bin" / "entire").symlink_to(binary)
    yield _world(root, root / "bin")


@pytest.mark.host
def test_the_host_runs_every_readme_command_as_recorded(host: World) -> None:
    check_all(host)


@pytest.mark.host
def test_the_hosts_builtin_gemini_fails_uninstall_on_a_commented_settings_file(host: World) -> None:
    """The README's quirk: our hooks out and the file byte for byte, yet exit 1 from the built-in ``gemini``."""
    repo = host.fresh("commented")
    settings = repo / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{\n  // mine\n  "ui": {"theme": "Default"}\n}\n', encoding="utf-8")
    original = settings.read_bytes()
    assert host.run("entire enable --agent google-gemini", repo).returncode == 0
    assert settings.read_bytes() != original
    done = host.run("entire disable --uninstall --force", repo)
    assert done.returncode == 1 and "could not check whether Gemini CLI hooks are installed" in done.stderr
    assert "invalid character '/'" in done.stderr
    assert settings.read_bytes() == original and not (repo / ".entire").exists()


# -- the simulator's shim -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("shim")
    Simulator(root).install_shim(root / "bin")
    return _world(root, root / "bin")


def test_the_shim_runs_every_readme_command_as_the_host_does(shim: World) -> None:
    check_all(shim)
