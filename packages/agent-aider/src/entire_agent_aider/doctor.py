"""``entire-agent-aider doctor``: whether Aider will really run our notification command, and why not.

Aider reads its options from the command line, then ``AIDER_*`` variables (also from ``.env`` files),
then ``.aider.conf.yml`` files (home, git root, current directory; later ones win), and ``--config``
replaces all of the YAML files. Our block only works when nothing above it overrides it.
"""

from __future__ import annotations

import os
import shutil

from entire_agent_aider import hooks, paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent

OVERRIDES = ("AIDER_NOTIFICATIONS", "AIDER_NOTIFICATIONS_COMMAND")


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


def findings(agent: Agent) -> tuple[list[str], list[str]]:
    """(facts, problems) about this repository's setup."""
    root = agent.repo_root
    facts: list[str] = []
    problems: list[str] = []
    conf = hooks.conf_path(root)
    if hooks.installed(root):
        try:
            with open(conf, encoding="utf-8-sig") as f:
                values = hooks.load_yaml(conf, f.read())
        except Exception as exc:
            problems.append(f"{conf} cannot be read as Aider reads it: {exc}")
        else:
            if (
                values.get("notifications-command") == hooks.notify_command()
                and values.get("notifications") is True
            ):
                facts.append(f"our block is in {conf}")
            else:
                problems.append(
                    f"our block in {conf} is overridden inside the file; run 'entire enable --force'"
                )
    else:
        problems.append(
            f"our block is not in {conf}: run 'entire enable' (or use 'entire-agent-aider run -- ...')"
        )
    for name in OVERRIDES:
        if os.environ.get(name):
            problems.append(f"{name} is set in the environment and overrides .aider.conf.yml")
    cwd = os.getcwd()
    for directory in dict.fromkeys([agent.home(), root, cwd]):
        env_file = os.path.join(directory, ".env")
        for name in _dotenv_overrides(env_file):
            problems.append(f"{env_file} sets {name}, which overrides .aider.conf.yml")
    local = os.path.join(cwd, hooks.CONF_FILE)
    if os.path.realpath(cwd) != os.path.realpath(root) and os.path.exists(local):
        facts.append(f"{local} is read after the repository's file and wins where both set a key")
    facts.append(
        "Aider ignores every .aider.conf.yml when started with --config FILE: add the block to that file "
        "or start Aider with 'entire-agent-aider run -- ...'"
    )
    history = paths.history_from_args([], cwd, os.environ)
    where = "from AIDER_CHAT_HISTORY_FILE" if os.environ.get("AIDER_CHAT_HISTORY_FILE") else "default"
    state = "exists" if os.path.exists(history) else "not created yet"
    facts.append(f"chat history file ({where}): {history} ({state})")
    for tool in ("entire", "entire-agent-aider"):
        found = shutil.which(tool)
        if found:
            facts.append(f"{tool}: {found}")
        else:
            problems.append(f"{tool} is not on PATH, so Aider's notification command cannot reach Entire")
    version_check(facts, problems)
    return facts, problems


def version_check(facts: list[str], problems: list[str]) -> None:
    """The installed Aider against the support window: an older one is a problem, anything else a fact."""
    from entire_core.versions import probe

    from entire_agent_aider.versions import WINDOW

    aider = shutil.which("aider")
    if aider is None:
        facts.append(f"aider is not on PATH (supported: {WINDOW.describe()})")
        return
    reported, problem = probe(aider, os.environ)
    if problem:
        facts.append(f"{problem}; supported: {WINDOW.describe()}")
        return
    verdict = WINDOW.verdict(reported)
    (facts if verdict.supported else problems).append(f"{verdict.message} ({aider})")


def doctor(agent: Agent, argv: list[str]) -> int:
    """Print what was found; exit 1 when something stops turns from being recorded."""
    facts, problems = findings(agent)
    for line in facts:
        print(f"  ok   {line}")
    for line in problems:
        print(f"  FIX  {line}")
    print(
        "entire-agent-aider: " + ("everything looks right" if not problems else f"{len(problems)} problem(s)")
    )
    return 1 if problems else 0
