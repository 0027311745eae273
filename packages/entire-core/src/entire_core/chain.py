"""The chain a hook really walks, checked for ``doctor`` the same way for every agent.

An agent's hook runs ``entire hooks <name> <hook>``; for that to record anything, every link must hold:
the repository is a git repository with Entire enabled, ``entire`` is on PATH in a version we support, the host finds
``entire-agent-<name>`` (``external_agents`` on where that host reads it), the installed hooks call
``entire hooks <name>`` with hook names the plugin knows, and no session of ours is stuck in the host's
session state. ``check_host`` makes the checks that need no agent knowledge; ``check_hook_commands``
takes the commands the agent found installed. Each failure carries the one command that fixes it.

The surest test of ``external_agents`` is to ask the host: ``entire hooks <name> <unknown hook>`` with
``{}`` on stdin. The host discovers plugins first (only when ``external_agents`` is on, read from
``.entire/settings.json`` merged with ``.entire/settings.local.json`` in v0.10.3, from the local file
alone after entireio/cli#2268) and says ``unknown agent "<name>"`` when it cannot find ours; when it
can, our ``parse-hook`` answers ``null`` for a hook name it does not know and the host does nothing.
Stdlib only: this runs inside the plugin that also serves the hooks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from entire_core import gitdir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from entire_core.agent import Agent
    from entire_core.doctor import Report

git_common_dir = gitdir.common_dir
"""The repository's git common directory (``entire_core.gitdir``): install-hooks and the kit ask it here."""
HOST_OLDEST = (0, 5, 6)
"""The oldest Entire CLI we support: compact transcripts and the protocol as we speak it."""
HOST_NEWEST = (0, 10, 3)
"""The newest Entire CLI measured with our plugins."""
INSTALL_ENTIRE = "`curl -fsSL https://entire.io/install.sh | bash` (or `brew install --cask entire`)"
PROBE_HOOK = "entire-agent-doctor-probe"
"""A hook name no agent has: the host resolves the agent, our plugin answers ``null``, nothing is recorded."""
PROBE_TIMEOUT = 15.0
"""The host gives discovery 10 s; the call itself is one ``info`` per plugin and one ``parse-hook``."""
STUCK_ACTIVE_SECONDS = 3600
"""The host's ``StuckActiveThreshold``: an active session with no interaction for longer is stuck."""


@dataclass(frozen=True)
class Host:
    """What ``check_host`` found, for the agent's own checks that follow."""

    git_common_dir: str | None
    """The repository's git common directory, or None outside a git repository."""
    entire: str | None
    """The ``entire`` executable on PATH, or None."""

    @property
    def in_git(self) -> bool:
        """True inside a git repository."""
        return self.git_common_dir is not None


def enable_command(agent_name: str) -> str:
    """The command that turns Entire on for an agent in a repository."""
    return f"`entire enable --agent {agent_name}`"


def check_host(report: Report, agent: Agent, *, probe_timeout: float = PROBE_TIMEOUT) -> Host:
    """The links every agent shares: git repository, ``entire`` and its version, the host knows the agent,
    no stuck session of ours, no hooks here of a plugin that is gone. Returns what was found."""
    common = check_git(report, agent)
    entire = check_entire(report, agent.env)
    if common is None:
        report.skip("the Entire CLI finds this plugin", "not a git repository")
        report.skip("stuck sessions", "not a git repository")
        return Host(None, entire)
    check_orphaned_hooks(report, agent)
    check_enabled(report, agent)
    if entire is None:
        report.skip("the Entire CLI finds this plugin", "`entire` is not on PATH")
    else:
        check_host_finds_plugin(report, agent, entire, timeout=probe_timeout)
    check_stuck_sessions(report, agent, common)
    return Host(common, entire)


def _run(
    argv: list[str], cwd: str, env: Mapping[str, str], timeout: float, stdin: bytes | None = None
) -> Any:
    import subprocess

    try:
        return subprocess.run(
            argv,
            input=stdin,
            stdin=subprocess.DEVNULL if stdin is None else None,
            capture_output=True,
            cwd=cwd,
            env=dict(env),
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return exc


def check_git(report: Report, agent: Agent) -> str | None:
    """The repository's git common directory; a failure with ``git init`` as its fix outside one."""
    root = agent.repo_root
    common = git_common_dir(root)
    if common is None:
        report.fail(f"{root} is not in a git repository: Entire records only inside one",
                    "`git init`", note=f"then {enable_command(agent.name)}")  # fmt: skip
        return None
    report.ok(f"{root} is in a git repository")
    return common


def _version(text: str) -> tuple[int, int, int] | None:
    from entire_core.versions import parse_version

    return parse_version(text)


def check_entire(report: Report, env: Mapping[str, str]) -> str | None:
    """``entire`` on PATH, its version in the window; a local build (``dev``) is said, not failed."""
    import shutil

    from entire_core.versions import format_version

    entire = shutil.which("entire", path=env.get("PATH", os.defpath))
    if entire is None:
        report.fail("the `entire` command is not on PATH: every hook exits without recording", INSTALL_ENTIRE)
        return None
    window = f"supported: {format_version(HOST_OLDEST)} to {format_version(HOST_NEWEST)}"
    done = _run([entire, "version"], os.getcwd(), env, 10)
    if isinstance(done, BaseException) or done.returncode != 0:
        report.warn(f"`{entire} version` failed; {window}")
        return entire
    first = (done.stdout.decode("utf-8", "replace").strip().splitlines() or [""])[0].strip()
    version = _version(first)
    if version is None:
        if first.split()[-1:] == ["dev"]:
            report.ok(f"Entire CLI at {entire} is a local build (`entire version` prints dev)",
                      note=f"its version cannot be checked; {window}")  # fmt: skip
        else:
            report.warn(f"Entire CLI at {entire} reported no version ({first!r}); {window}")
    elif version < HOST_OLDEST:
        report.fail(f"Entire CLI {format_version(version)} at {entire} is older than {format_version(HOST_OLDEST)}"
                    f" ({window})", INSTALL_ENTIRE)  # fmt: skip
    elif version > HOST_NEWEST:
        report.warn(f"Entire CLI {format_version(version)} at {entire} is newer than the newest tested "
                    f"({window})")  # fmt: skip
    else:
        report.ok(f"Entire CLI {format_version(version)} at {entire} ({window})")
    return entire


def _settings(root: str, name: str) -> dict[str, Any]:
    import json

    from entire_core.jsonvalues import obj

    try:
        with open(os.path.join(root, ".entire", name), encoding="utf-8") as f:
            return obj(json.load(f))
    except (OSError, ValueError):
        return {}


def check_enabled(report: Report, agent: Agent) -> None:
    """Entire set up and enabled here, as every hook checks first (and exits quietly when not)."""
    import json

    from entire_core.jsonvalues import obj

    root = agent.repo_root
    merged: dict[str, Any] = {}
    found: list[str] = []
    for name in ("settings.json", "settings.local.json"):  # the local file wins, as in the host's Load
        path = os.path.join(root, ".entire", name)
        try:
            with open(path, encoding="utf-8") as f:
                merged.update(obj(json.load(f)))
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            report.fail(f"{path} cannot be read ({exc}): the Entire CLI treats Entire as off and every hook "
                        "does nothing", f"edit {path} until it is valid JSON")  # fmt: skip
            return
        found.append(name)
    if not found:
        report.fail(f"Entire is not set up in {root}: every hook does nothing", enable_command(agent.name))
    elif merged.get("enabled", True) is False:
        report.fail(f"Entire is disabled in {root} (`entire disable`): every hook does nothing",
                    enable_command(agent.name))  # fmt: skip
    else:
        report.ok(f"Entire is enabled in {root} ({' and '.join('.entire/' + n for n in found)})")


def check_host_finds_plugin(
    report: Report, agent: Agent, entire: str, *, timeout: float = PROBE_TIMEOUT
) -> None:
    """Ask the host itself whether it finds ``entire-agent-<name>``: a hook call that records nothing."""
    import shutil

    from entire_core import program_name

    program = program_name(agent.name)
    root = agent.repo_root
    if shutil.which(program, path=agent.env.get("PATH", os.defpath)) is None:
        report.fail(f"{program} is not on PATH, so the Entire CLI cannot find it",
                    f"`uv tool install --compile-bytecode {program}`")  # fmt: skip
        return
    env = {k: v for k, v in agent.env.items() if k != "ENTIRE_REPO_ROOT"}
    done = _run([entire, "hooks", agent.name, PROBE_HOOK], root, env, timeout, stdin=b"{}")
    if isinstance(done, BaseException):
        report.warn(f"`entire hooks {agent.name} …` did not answer within {timeout:.0f} s: {done}")
        return
    stderr = done.stderr.decode("utf-8", "replace").strip()
    if done.returncode == 0:
        report.ok(f"the Entire CLI finds {program} (external_agents is on)")
        return
    if f'unknown agent "{agent.name}"' not in stderr:
        last = (stderr.splitlines() or [f"exit status {done.returncode}"])[-1]
        report.warn(f"`entire hooks {agent.name} …` failed: {last}")
        return
    shared = _settings(root, "settings.json").get("external_agents") is True
    local = _settings(root, "settings.local.json").get("external_agents")
    what = f"the Entire CLI does not find {program}: every hook fails with 'unknown agent'"
    if shared and local is not False:
        # v0.10.3 reads both files; a host that honours only the untracked local file (entireio/cli#2268)
        # ignores the committed one.
        report.fail(f"{what}; this Entire CLI ignores external_agents in .entire/settings.json",
                    f'add "external_agents": true to {os.path.join(root, ".entire", "settings.local.json")}')  # fmt: skip
    else:
        report.fail(f"{what} (external_agents is off)", enable_command(agent.name))


BUILTIN_AGENTS = frozenset(
    ["claude-code", "codex", "copilot-cli", "cursor", "factoryai-droid", "gemini", "opencode", "pi"]
)
"""The Entire CLI's own agents (v0.10.3): their hooks call ``entire hooks <name>`` and need no plugin."""
ORPHAN_SCAN_BYTES = 1 << 20
"""Config files larger than this are not read for hook commands (a hook config is a few KiB)."""
CONFIG_SUFFIXES = (".json", ".jsonc", ".toml", ".yml", ".yaml")
"""What an agent's config file is named like (chat histories and notes that may quote a command are not)."""


def orphaned_hooks(root: str, env: Mapping[str, str], own: str = "") -> dict[str, list[str]]:
    """Hook commands in the repository's agent configs that need a plugin no longer on PATH.

    Agents keep their project config in a dot-folder or a dot-file at the repository's root
    (``.codex/hooks.json``, ``.gemini/settings.json``, ``.qwen/settings.json``, ``.aider.conf.yml``, and
    the same for agents we do not know), so the config files (``CONFIG_SUFFIXES``) there, one level deep,
    and every file of a dot-folder's ``hooks`` folder (Cline's hooks are scripts, ``.cline/hooks/TaskStart``)
    are read for ``entire hooks <name>`` and ``entire-agent-<name>``. Returns ``{plugin name: [files naming it]}`` for every name that is
    not a built-in agent and whose ``entire-agent-<name>`` is not on PATH; ``own`` (the plugin asking,
    which runs, and whose place on PATH ``check_host_finds_plugin`` checks) is never named.
    """
    import re
    import shutil

    mention = re.compile(rb"entire hooks ([a-z0-9][a-z0-9-]*)|entire-agent-([a-z0-9][a-z0-9-]*)")
    candidates: list[str] = []
    try:
        top = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return {}
    for entry in top:
        if not entry.name.startswith(".") or entry.name in (".git", ".entire"):
            continue
        if entry.is_file():
            candidates.append(entry.path)
        elif entry.is_dir(follow_symlinks=False):
            try:
                candidates += sorted(e.path for e in os.scandir(entry.path) if e.is_file())
                hooks = os.path.join(entry.path, "hooks")
                if os.path.isdir(hooks) and not os.path.islink(hooks):
                    candidates += sorted(e.path for e in os.scandir(hooks) if e.is_file())
            except OSError:
                continue
    found: dict[str, list[str]] = {}
    path = env.get("PATH", os.defpath)
    for candidate in candidates:
        in_hooks = os.path.basename(os.path.dirname(candidate)) == "hooks"
        if not (in_hooks or candidate.endswith(CONFIG_SUFFIXES)):
            continue
        try:
            if os.path.getsize(candidate) > ORPHAN_SCAN_BYTES:
                continue
            with open(candidate, "rb") as f:
                data = f.read()
        except OSError:
            continue
        for match in mention.finditer(data):
            name = (match[1] or match[2]).decode("ascii").rstrip("-")
            if name in BUILTIN_AGENTS or name == own or shutil.which(f"entire-agent-{name}", path=path):
                continue
            files = found.setdefault(name, [])
            if candidate not in files:
                files.append(candidate)
    return found


def way_back(name: str) -> str:
    """The fix for hooks whose plugin was uninstalled first: the plugin back, its hooks out, the plugin out."""
    program = f"entire-agent-{name}"
    return (f"`uv tool install --compile-bytecode {program}` (the plugin back), then `{program} uninstall-hooks` "
            f"in this repository, then `uv tool uninstall {program}`")  # fmt: skip


def check_orphaned_hooks(report: Report, agent: Agent) -> None:
    """No hooks left here of a plugin that was uninstalled before its hooks (each fails ``unknown agent``)."""
    root = agent.repo_root
    for name, files in sorted(orphaned_hooks(root, agent.env, agent.name).items()):
        where = ", ".join(os.path.relpath(f, root) for f in files)
        report.fail(f"{where} holds hooks of entire-agent-{name}, which is not on PATH: each of them fails "
                    f"with 'unknown agent \"{name}\"', and `entire disable --uninstall` cannot take them out",
                    way_back(name))  # fmt: skip


def check_hook_commands(report: Report, agent: Agent, commands: Iterable[str], where: str) -> None:
    """The installed hook commands of ours each call ``entire hooks <name> <hook>`` for a hook we know."""
    from entire_core import program_name
    from entire_core.hooks import hook_of

    known: set[str] = set(getattr(agent, "hook_names", ()))
    unknown: list[str] = []
    count = 0
    for command in commands:
        count += 1
        hook = hook_of(command, agent.name)
        if hook is None or hook not in known:
            unknown.append(hook or command)
    if not count:
        return
    if unknown:
        report.fail(f"hooks in {where} do not call a hook `entire hooks {agent.name}` knows: {', '.join(unknown)}",
                    f"`{program_name(agent.name)} install-hooks --force`")  # fmt: skip
    else:
        report.ok(f"the {count} installed hooks call `entire hooks {agent.name} <hook>`")


def _timestamp(value: object) -> float | None:
    from datetime import datetime

    if not isinstance(value, str) or not value:
        return None
    text = value.replace("Z", "+00:00")
    if "." in text:  # Go writes nanoseconds; Python reads at most microseconds
        head, rest = text.split(".", 1)
        digits = "".join(c for c in rest if c.isdigit())
        text = f"{head}.{digits[:6]}{rest[len(digits) :]}"
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        return None


def _owner_gone(owner: object) -> bool:
    """True when the recorded owner process is surely gone on this machine (no pid, not reused)."""
    import socket

    from entire_core.jsonvalues import obj

    pid, host = obj(owner).get("pid"), obj(owner).get("host")
    if not isinstance(pid, int) or pid <= 0 or (host and host != socket.gethostname()):
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _shadow_branch_exists(common: str, state: dict[str, Any]) -> bool:
    import hashlib

    base, worktree = str(state.get("base_commit") or ""), str(state.get("worktree_id") or "")
    name = f"entire/{base[:7]}-{hashlib.sha256(worktree.encode()).hexdigest()[:6]}"
    if os.path.exists(os.path.join(common, "refs", "heads", *name.split("/"))):
        return True
    try:
        with open(os.path.join(common, "packed-refs"), encoding="utf-8", errors="replace") as f:
            return any(line.rstrip("\n").endswith(f" refs/heads/{name}") for line in f)
    except OSError:
        return False


def stuck_reason(state: dict[str, Any], common: str, now: float) -> str | None:
    """Why ``entire doctor`` would call this session stuck, or None (the host's ``classifySession``)."""
    phase = state.get("phase")
    ended = phase == "ended" or bool(state.get("ended_at"))
    if not ended and _owner_gone(state.get("owner")):
        return f"agent process {state['owner']['pid']} exited (no longer running)"
    if phase == "active":
        since = _timestamp(state.get("last_interaction_time")) or _timestamp(state.get("started_at"))
        if since is not None and now - since > STUCK_ACTIVE_SECONDS:
            return f"active, no interaction for {int((now - since) // 60)} min"
        return None
    if phase == "ended" and not state.get("fully_condensed"):
        if state.get("task_records"):
            return "ended with uncondensed checkpoint data"
        count = state.get("checkpoint_count")
        if isinstance(count, int) and count > 0 and _shadow_branch_exists(common, state):
            return "ended with uncondensed checkpoint data"
    return None


def check_stuck_sessions(report: Report, agent: Agent, common: str, *, now: float | None = None) -> None:
    """No session of this agent stuck in ``<git common dir>/entire-sessions`` as ``entire doctor`` sees it."""
    import json
    import time

    from entire_core.jsonvalues import obj

    directory = os.path.join(common, "entire-sessions")
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".json"))
    except OSError:
        names = []
    at = time.time() if now is None else now
    ours = 0
    stuck: list[str] = []
    for name in names:
        try:
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                state = obj(json.load(f))
        except (OSError, ValueError):
            continue
        if state.get("agent_type") != agent.type:
            continue
        ours += 1
        reason = stuck_reason(state, common, at)
        if reason:
            stuck.append(f"{state.get('session_id') or name[:-5]} ({reason})")
    if stuck:
        report.fail(f"{len(stuck)} {agent.type} session(s) stuck in {directory}: {'; '.join(stuck)}",
                    "`entire doctor --force`", note="it condenses what can be saved and discards the rest")  # fmt: skip
    else:
        report.ok(f"no stuck {agent.type} session ({ours} in the Entire CLI's session state)")
