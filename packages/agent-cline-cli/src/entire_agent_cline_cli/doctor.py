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
    from entire_core.chain import check_hook_commands, check_host
    from entire_core.doctor import Report, check_version
    from entire_core.errors import ConfigError

    from entire_agent_cline_cli import paths
    from entire_agent_cline_cli.hooks import NATIVE_EVENTS, HookFiles
    from entire_agent_cline_cli.versions import BINARY, WINDOW

    report = Report.for_agent(agent)
    check_version(report, WINDOW, BINARY, agent.env)
    if not check_host(report, agent).in_git:
        report.skip("Entire's hooks", "not a git repository")
        return report.print()
    folder = paths.hooks_dir(agent.repo_root)
    files = HookFiles(agent.repo_root, agent.name, agent.env)
    try:
        files.check()
    except ConfigError as exc:
        report.fail(str(exc), f"move it aside, then `entire enable --agent {agent.name}`")
        return report.print()
    found = files.installed()
    missing = [event for hook, event in NATIVE_EVENTS.items() if hook not in found]
    if missing:
        report.fail(f"no hook file of ours in {folder} for {', '.join(missing)}: Cline will not tell Entire of those",
                    f"`entire enable --agent {agent.name}` (or `entire-agent-{agent.name} install-hooks --force`)")  # fmt: skip
        return report.print()
    commands = []
    for path in found.values():
        with open(path, encoding="utf-8", errors="replace") as f:
            commands.append(f.read())
    check_hook_commands(report, agent, commands, folder)
    return report.print()
