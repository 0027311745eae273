"""``entire-agent-qwen-code doctor``: whether Qwen Code will run our hooks in this repository, and what to do if not.

Checks: the installed ``qwen`` against the support window (0.12 and 0.13, with experimental hooks, fail
with the upgrade command), the chain every agent shares (``entire_core.chain``: git repository, ``entire``
and its version, the host finding this plugin, no stuck session), our hooks in ``.qwen/settings.json``, and ``disableAllHooks`` in the project
or user settings, which turns every hook off.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags


def _disabled(path: str) -> bool:
    """True when the settings file at ``path`` turns all hooks off (an unreadable file says nothing)."""
    from entire_core.config.json import read_json_object
    from entire_core.errors import ConfigError

    try:
        return (read_json_object(path, comments=True) or {}).get("disableAllHooks") is True
    except (ConfigError, OSError, ValueError):
        return False


def doctor(agent: Agent, flags: Flags) -> int:
    """Report each check on core's report model; exit 1 when one fails."""
    import os

    from entire_core.agent import HookSupport
    from entire_core.chain import check_host
    from entire_core.doctor import Report, check_version
    from entire_core.errors import ConfigError

    from entire_agent_qwen_code import paths
    from entire_agent_qwen_code.versions import WINDOW

    assert isinstance(agent, HookSupport)
    report = Report.for_agent(agent)
    check_version(report, WINDOW, "qwen", agent.env)
    if not check_host(report, agent).in_git:
        report.skip("Entire's hooks in .qwen/settings.json", "not a git repository")
        return report.print()
    config = paths.config_file(agent.repo_root)
    try:
        installed = agent.are_hooks_installed()
    except ConfigError as exc:
        report.fail(
            str(exc), f"fix {config} by hand; it is yours, and install never writes a file it cannot parse"
        )
        return report.print()
    if installed:
        report.ok(f"hooks installed in {config}")
    else:
        report.fail(f"hooks are not installed in {config}", f"`entire enable --agent {agent.name}`")
    user = os.path.join(paths.runtime_dir(agent.env, agent.home()), "settings.json")
    for path in (config, user):
        if _disabled(path):
            report.fail(f"{path} sets disableAllHooks: Qwen Code runs no hooks", f"remove it from {path}")
    return report.print()
