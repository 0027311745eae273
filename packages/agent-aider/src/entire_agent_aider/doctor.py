"""``entire-agent-aider doctor``: whether Aider will really run our notification command, and why not.

Aider reads its options from the command line, then ``AIDER_*`` variables (also from ``.env`` files),
then ``.aider.conf.yml`` files (home, git root, current directory; later ones win), and ``--config``
replaces all of the YAML files. Our block only works when nothing above it overrides it. Every check
is reported through ``entire_core.doctor``, each failure with the fix that works: install refuses a
config that sets our keys outside the block, so for that one the fix is the edit, not ``entire enable``.
"""

from __future__ import annotations

import os
import shutil

from entire_agent_aider import hooks, paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags
    from entire_core.doctor import Report

OVERRIDES = ("AIDER_NOTIFICATIONS", "AIDER_NOTIFICATIONS_COMMAND")
ENABLE = "`entire enable --agent aider` (or start Aider with `entire-agent-aider run -- ...`)"
CONFIG_FLAG_NOTE = (
    "Aider ignores every .aider.conf.yml when started with --config FILE: add the block to that file "
    "or start Aider with `entire-agent-aider run -- ...`"
)


def _dotenv_overrides(path: str) -> list[str]:
    """``AIDER_NOTIFICATIONS*`` assignments in a ``.env`` file."""
    found: list[str] = []
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                name = line.strip().removeprefix("export ").split("=", 1)[0].strip()
                if name in OVERRIDES and "=" in line:
                    found.append(name)
    except OSError:
        pass
    return found


def check_block(report: Report, agent: Agent) -> None:
    """Our block in the repository's ``.aider.conf.yml``, and the user's keys that fight it."""
    from entire_core.errors import ConfigError

    conf = hooks.conf_path(agent.repo_root)
    installed = hooks.installed(agent.repo_root)
    try:
        with open(conf, encoding="utf-8-sig") as f:
            text = f.read()
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        report.fail(f"cannot read {conf}: {exc.strerror}", f"make {conf} a readable file")
        return
    try:
        taken = hooks.user_keys(conf, text)
        values = hooks.load_yaml(conf, text)
    except ConfigError as exc:
        report.fail(f"{conf} cannot be read as Aider reads it: {exc}", f"edit {conf} until it is valid YAML")
        return
    if taken:
        keys = " and ".join(f"'{key}'" for key in taken)
        then = "" if installed else f", then {ENABLE}"
        # install-hooks refuses this file (hooks.user_keys), so `entire enable` is not the fix.
        report.fail(f"{conf} sets {keys} outside Entire's block, so Aider runs your command, not Entire's",
                    f"remove {keys} from {conf} outside Entire's block (or move your command elsewhere){then}")  # fmt: skip
    elif not installed:
        report.fail(f"Entire's block is not in {conf}", ENABLE)
    elif (
        values.get("notifications-command") != hooks.notify_command()
        or values.get("notifications") is not True
    ):
        report.fail(f"Entire's block in {conf} was edited: Aider would not run Entire's command",
                    f"`{report.program} install-hooks --force`")  # fmt: skip
    else:
        report.ok(f"Entire's block is in {conf}", note=CONFIG_FLAG_NOTE)


def check_overrides(report: Report, agent: Agent) -> None:
    """``AIDER_NOTIFICATIONS*`` in the environment or a ``.env`` file, and a closer ``.aider.conf.yml``."""
    cwd = os.getcwd()
    clean = True
    for name in OVERRIDES:
        if agent.env.get(name):
            clean = False
            report.fail(f"{name} is set in the environment and overrides .aider.conf.yml", f"unset {name}")
    for directory in dict.fromkeys([agent.home(), agent.repo_root, cwd]):
        env_file = os.path.join(directory, ".env")
        for name in _dotenv_overrides(env_file):
            clean = False
            report.fail(f"{env_file} sets {name}, which overrides .aider.conf.yml",
                        f"remove the {name} line from {env_file}")  # fmt: skip
    if clean:
        report.ok("no AIDER_NOTIFICATIONS* override in the environment or a .env file")
    local = os.path.join(cwd, hooks.CONF_FILE)
    if os.path.realpath(cwd) != os.path.realpath(agent.repo_root) and os.path.exists(local):
        report.warn(f"{local} is read after the repository's file and wins where both set a key",
                    f"keep 'notifications' and 'notifications-command' out of {local}")  # fmt: skip


def check_history(report: Report, agent: Agent) -> None:
    """Where Aider will write the chat history the plugin reads."""
    cwd = os.getcwd()
    history = paths.history_from_args([], cwd, agent.env)
    where = "from AIDER_CHAT_HISTORY_FILE" if agent.env.get("AIDER_CHAT_HISTORY_FILE") else "default"
    state = "exists" if os.path.exists(history) else "not created yet"
    report.ok(f"chat history file ({where}): {history} ({state})")


def check_programs(report: Report, agent: Agent) -> None:
    """Aider against its support window, and the program our notification command runs."""
    from entire_core.doctor import check_version

    from entire_agent_aider.versions import WINDOW

    check_version(report, WINDOW, "aider", agent.env)
    # `entire` itself is checked with the rest of the chain (entire_core.chain).
    tool = report.program
    fix = f"`uv tool install --compile-bytecode {tool}`"
    found = shutil.which(tool, path=agent.env.get("PATH", os.defpath))
    if found:
        report.ok(f"{tool} is on PATH: {found}")
    else:
        report.fail(f"{tool} is not on PATH, so Aider's notification command cannot reach Entire", fix)


def diagnose(agent: Agent) -> Report:
    """Run every check against the agent's repository and environment."""
    from entire_core.chain import check_host
    from entire_core.doctor import Report

    report = Report.for_agent(agent)
    check_programs(report, agent)
    if not check_host(report, agent).in_git:
        report.skip("Entire's block in .aider.conf.yml", "not a git repository")
        return report
    check_block(report, agent)
    check_overrides(report, agent)
    check_history(report, agent)
    return report


def doctor(agent: Agent, flags: Flags) -> int:
    """Print the report; exit 1 when something stops turns from being recorded."""
    return diagnose(agent).print()
