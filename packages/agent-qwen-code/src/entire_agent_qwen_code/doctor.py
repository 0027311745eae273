"""``entire-agent-qwen-code doctor``: whether Qwen Code will run our hooks in this repository, and what to do if not.

AGENT AUTHOR: add a check for each reason the agent might not run the hooks (a setting that turns
hooks off, a trust prompt, an older version: ``entire_core.doctor.check_version`` with a window in
``versions.py``), each failure with the exact fix.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent


def doctor(agent: Agent, argv: list[str]) -> int:
    """Report each check on core's report model; exit 1 when one fails."""
    from entire_core.agent import HookSupport
    from entire_core.doctor import Report
    from entire_core.errors import ConfigError

    from entire_agent_qwen_code import paths

    assert isinstance(agent, HookSupport)
    report = Report.for_agent(agent)
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
    return report.print()
