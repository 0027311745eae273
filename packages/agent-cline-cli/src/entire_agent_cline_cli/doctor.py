"""``entire-agent-cline-cli doctor``: whether Cline CLI will run our hooks in this repository, and what to do if not.

The chain: ``cline`` in the support window (``versions.py``), what every agent shares
(``entire_core.chain.check_host``: a git repository, ``entire`` and its version, the host finding this
plugin), then our hook files in the workspace's ``.cline/hooks``, each for an event Cline runs.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags


def doctor(agent: Agent, flags: Flags) -> int:
    """Report each check on core's report model; exit 1 when one fails."""
    from entire_core.agent import HookSupport
    from entire_core.chain import check_host
    from entire_core.doctor import Report, check_version
    from entire_core.errors import ConfigError

    from entire_agent_cline_cli import paths
    from entire_agent_cline_cli.versions import BINARY, WINDOW

    assert isinstance(agent, HookSupport)
    report = Report.for_agent(agent)
    check_version(report, WINDOW, BINARY, agent.env)
    if not check_host(report, agent).in_git:
        report.skip("Entire's hooks", "not a git repository")
        return report.print()
    config = paths.hooks_dir(agent.repo_root)
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
