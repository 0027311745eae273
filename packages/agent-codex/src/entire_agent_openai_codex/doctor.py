"""``entire-agent-openai-codex doctor``: why Codex does or does not run our hooks in this repository.

Codex skips untrusted hooks silently, so "installed but nothing recorded" is the usual failure. The
doctor checks every link of the chain for this repository (the Codex version against the support
window, ``entire`` on PATH, the hooks file, project trust, each hook's trust) and reports each through
``entire_core.doctor`` with the exact fix for each broken one.
"""

from __future__ import annotations

import os

from entire_core.chain import check_hook_commands

from entire_agent_openai_codex import hooks, trust

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags
    from entire_core.doctor import Report


def _install(report: Report) -> str:
    return f"`entire enable --agent openai-codex` (or `{report.program} install-hooks`)"


def check_codex(report: Report, agent: Agent) -> None:
    """The Codex on PATH against the window."""
    from entire_core.doctor import check_version
    from entire_core.versions import parse_version

    from entire_agent_openai_codex.versions import SUBAGENT_HOOKS, WINDOW

    verdict = check_version(report, WINDOW, "codex", agent.env, timeout=20).verdict
    parsed = parse_version(verdict.version) if verdict is not None else None
    if verdict is not None and verdict.supported and parsed is not None and parsed < SUBAGENT_HOOKS:
        report.warn(f"Codex CLI {verdict.version} has no subagent hooks (they start at 0.139.0): a subagent's "
                    "work counts in its parent's turn", f"`{WINDOW.upgrade_command()}`")  # fmt: skip


def check_project_config(report: Report, agent: Agent) -> dict[str, Any]:
    """The project's ``.codex/config.toml`` parses as Codex parses it: when it does not, ``codex`` refuses to start."""
    project_config = os.path.join(agent.repo_root, ".codex", "config.toml")
    project, problem = trust.read_config(project_config)
    if problem:
        report.fail(problem, f"edit {project_config} until it is valid TOML")
    elif os.path.exists(project_config):
        report.ok(f"{project_config} parses")
    return project


def check_hooks_file(
    report: Report, agent: Agent, hooks_path: str, project: dict[str, Any]
) -> dict[str, Any] | None:
    """Our hooks in ``.codex/hooks.json``; returns the file's events when it could be read."""
    events, problem = trust.read_hooks(hooks_path)
    if problem:
        report.fail(
            problem, f"edit {hooks_path}: it must be JSON with only 'hooks' and 'description' at the top"
        )
        return None
    if events is None:
        report.fail(f"Entire's hooks are not installed: {hooks_path} does not exist", _install(report))
        return None
    ours = trust.our_handlers(events, agent.name)
    wanted = hooks.wanted_groups(agent.name)
    found = {(hook, event) for hook, event, *_ in ours}
    missing = [h for h, e in hooks.HOOK_EVENTS.items() if (h, e) not in found]
    stale = [h for h, e, _, _, handler in ours if wanted.get(e, {}).get("hooks", [None])[0] != handler]
    if missing:
        report.fail(f"Entire hooks missing from {hooks_path}: {', '.join(missing)}", _install(report))
    if stale:
        report.fail(
            f"Entire hooks out of date: {', '.join(stale)}", f"`{report.program} install-hooks --force`"
        )
    if not missing and not stale:
        report.ok(f"all {len(hooks.HOOK_EVENTS)} Entire hooks installed in {hooks_path}")
    check_hook_commands(report, agent, [handler.get("command", "") for *_, handler in ours], hooks_path)
    project_config = os.path.join(agent.repo_root, ".codex", "config.toml")
    if isinstance(project.get("hooks"), dict) and set(project["hooks"]) - {"state"}:
        report.warn(f"{project_config} declares hooks too; Codex loads both files and warns at start",
                    f"move the hooks of {project_config} into {hooks_path}")  # fmt: skip
    return events if ours else None


def check_trust(
    report: Report, agent: Agent, hooks_path: str, config_path: str, events: dict[str, Any] | None
) -> None:
    """Project trust and each of our hooks' trust in the user's config.toml."""
    config, problem = trust.read_config(config_path)
    if problem:
        report.fail(problem, f"edit {config_path} until it is valid TOML")
        report.skip("project and hook trust", f"{config_path} does not parse")
        return
    level = trust.project_trust(config, agent.repo_root)
    project_fix = f"`{report.program} trust --project` (or run `codex` here and accept its trust prompt)"
    if level == "trusted":
        report.ok(f"the project is trusted in {config_path}, so Codex loads .codex/")
    else:
        marked = "marked untrusted" if level == "untrusted" else "not trusted"
        report.fail(f"the project is {marked}: Codex ignores .codex/ and every hook in it", project_fix)
    if events is None:
        report.skip("hook trust", "Entire's hooks are not installed")
        return
    hook_fix = f"`{report.program} trust` (or run `codex`, then /hooks to review them)"
    by_status: dict[str, list[str]] = {}
    for item in trust.assess(hooks_path, events, config, agent.name):
        label = item.hook or item.event
        if item.status == "disabled":
            report.fail(f"{label} is disabled in config.toml (enabled = false)",
                        f'remove `enabled = false` from [hooks.state."{item.key}"] in {config_path}')  # fmt: skip
        else:
            by_status.setdefault(item.status, []).append(label)
    if by_status.get("trusted"):
        report.ok(f"{len(by_status['trusted'])} Entire hooks trusted: {', '.join(by_status['trusted'])}")
    if by_status.get("modified"):
        report.fail(f"modified since they were trusted, so Codex skips them: {', '.join(by_status['modified'])}",
                    hook_fix)  # fmt: skip
    if by_status.get("untrusted"):
        report.fail(f"untrusted, so Codex skips them: {', '.join(by_status['untrusted'])}", hook_fix)


def diagnose(agent: Agent) -> Report:
    """Check the whole chain for this repository: binary, hooks file, project and hook trust."""
    from entire_core.chain import check_host
    from entire_core.doctor import Report

    from entire_agent_openai_codex import paths

    report = Report.for_agent(agent)
    hooks_path = os.path.join(agent.repo_root, hooks.HOOKS_FILE)
    config_path = os.path.join(paths.codex_home(agent.env), "config.toml")
    check_codex(report, agent)
    host = check_host(report, agent)
    project = check_project_config(report, agent)
    if not host.in_git:
        report.skip("Entire's hooks, project and hook trust", "not a git repository")
        return report
    events = check_hooks_file(report, agent, hooks_path, project)
    check_trust(report, agent, hooks_path, config_path, events)
    return report


def doctor(agent: Agent, flags: Flags) -> int:
    """Print the report; exit 0 when Codex will run every Entire hook here, 1 otherwise."""
    return diagnose(agent).print()
