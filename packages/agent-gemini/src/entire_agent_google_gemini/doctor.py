"""``entire-agent-google-gemini doctor``: why would Gemini CLI not run our hooks in this repository?

Checks, reported through ``entire_core.doctor``: the Gemini version against the support window
(``versions.WINDOW``; older fails, newer than the newest tested one warns), that every settings layer
parses, that our hooks are installed and enabled (``hooksConfig``, ``hooksConfig.disabled``, the stale
``hooks.enabled`` Gemini 0.33+ rejects), whether Gemini has fingerprinted our project hooks in
``trusted_hooks.json`` (new or changed ones make it warn), and folder trust (an untrusted folder's
``.gemini/settings.json`` is ignored, hooks included). A check that needs our hooks is skipped, never
passed, when they are not installed.
"""

from __future__ import annotations

import os

from entire_core.jsonvalues import obj, strings

from entire_agent_google_gemini import hooks, paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags
    from entire_core.doctor import Report

    from entire_agent_google_gemini.agent import GeminiAgent

ENABLE = "`entire enable --agent google-gemini`"


def check_version(report: Report, env: Any) -> None:
    """The installed Gemini CLI against the support window: older fails, newer is a warning."""
    from entire_core import doctor

    from entire_agent_google_gemini.versions import WINDOW

    doctor.check_version(report, WINDOW, "gemini", {**env, "GEMINI_CLI_NO_RELAUNCH": "true"})


def _layers(agent: GeminiAgent) -> list[tuple[str, str]]:
    """Settings files from lowest to highest precedence, as Gemini merges them."""
    home = agent.gemini_home()
    return [
        ("user", os.path.join(home, paths.SETTINGS)),
        ("project", paths.project_settings(agent.repo_root)),
        ("system", paths.system_settings(agent.env)),
    ]


def check_settings(report: Report, agent: GeminiAgent) -> dict[str, dict[str, Any]]:
    """Parse every layer; a layer that does not parse is a failure (Gemini refuses it too)."""
    from entire_core.config.json import read_json_object
    from entire_core.errors import ConfigError

    parsed: dict[str, dict[str, Any]] = {}
    failed = False
    for layer, path in _layers(agent):
        try:
            value = read_json_object(path, comments=True)
        except ConfigError as exc:
            report.fail(
                f"{layer} settings: {exc}", f"edit {path} until it is valid JSON (Gemini refuses it too)"
            )
            failed = True
            continue
        if value is None:
            continue
        parsed[layer] = value
        stale = sorted(k for k, v in obj(value.get("hooks")).items() if not isinstance(v, list))
        if stale:
            keys = ", ".join(f"hooks.{k}" for k in stale)
            fix = (f"`{report.program} install-hooks --force` (it drops them)" if layer == "project" else
                   f"in {path}, move {keys} under hooksConfig (" + ", ".join(f"hooksConfig.{k}" for k in stale) + ")")  # fmt: skip
            report.fail(
                f"{layer} settings {path}: {keys} is not an event list; Gemini 0.33+ rejects the file", fix
            )
            failed = True
    if not failed:
        report.ok("settings files parse (" + ", ".join(parsed) + ")" if parsed else "no settings files yet")
    return parsed


def _get(layer: dict[str, Any], *keys: str) -> object:
    value: object = layer
    for key in keys:
        value = obj(value).get(key)
    return value


def check_hooks(report: Report, agent: GeminiAgent, layers: dict[str, dict[str, Any]]) -> bool:
    """Our hooks in the project settings, and whether Gemini runs them; True when they are installed."""
    from entire_core.chain import check_hook_commands
    from entire_core.errors import ConfigError

    project = paths.project_settings(agent.repo_root)
    try:
        present = hooks.installed(agent)
    except ConfigError:
        report.skip("Entire's hooks", f"{project} does not parse")
        return False
    switched_off = [(name, path) for name, path in _layers(agent)
                    if _get(layers.get(name, {}), "hooksConfig", "enabled") is False]  # fmt: skip
    missing = [
        event for event, group in hooks.wanted(agent.name).items() if present.get(event) != group["hooks"]
    ]
    if not present:
        fix = ENABLE
        if any(name == "project" for name, _ in switched_off):
            # install-hooks refuses a project file that turns hooks off: the user decides first.
            fix = (
                f'set "hooksConfig": {{"enabled": true}} in {project} (your own hooks run too), then {ENABLE}'
            )
        report.fail(f"Entire's hooks are not installed in {project}", fix)
        report.skip("hooks enabled", "Entire's hooks are not installed")
        return False
    if missing:
        report.fail(
            f"Entire's hooks missing or changed for {', '.join(missing)}",
            f"`{report.program} install-hooks --force`",
        )
    else:
        report.ok(f"hooks installed in {project}")
    commands = [str(h.get("command", "")) for handlers in present.values() for h in handlers]
    check_hook_commands(report, agent, commands, project)
    enabled = True
    for name in ("user", "project", "system"):
        flag = _get(layers.get(name, {}), "hooksConfig", "enabled")
        if isinstance(flag, bool):
            enabled = flag
    if not enabled:
        where = switched_off[-1][1] if switched_off else "your settings"
        report.fail("hooksConfig.enabled is false: Gemini runs no hooks at all",
                    f'set "hooksConfig": {{"enabled": true}} in {where} (your own hooks run too)')  # fmt: skip
    ours = {hooks.name_prefix(agent.name) + hook for hook in hooks.EVENTS}
    turned_off: list[str] = []
    for name, path in _layers(agent):
        names = sorted(set(strings(obj(layers.get(name, {}).get("hooksConfig")).get("disabled"))) & ours)
        if names:
            turned_off += names
            report.fail(f"hooksConfig.disabled in {path} turns off {', '.join(names)}",
                        f"remove {', '.join(names)} from hooksConfig.disabled in {path}")  # fmt: skip
    if enabled and not turned_off:
        report.ok("hooks are enabled")
    return True


def _trusted_keys(agent: GeminiAgent) -> tuple[set[str], bool]:
    import json

    try:
        with open(os.path.join(agent.gemini_home(), "trusted_hooks.json"), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return set(), False
    if not obj(data):
        return set(), False
    roots = {agent.repo_root, os.path.realpath(agent.repo_root)}
    keys: set[str] = set()
    for root, entries in obj(data).items():
        if root in roots:
            keys |= set(strings(entries))
    return keys, True


def check_fingerprints(report: Report, agent: GeminiAgent) -> None:
    """Gemini fingerprints project hooks as ``name:command``; unknown ones trigger a warning."""
    keys, found = _trusted_keys(agent)
    ours = [f"{h['name']}:{h['command']}" for h in (hooks.handler(agent.name, hook) for hook in hooks.EVENTS)]
    unknown = [k.split(":", 1)[0] for k in ours if k not in keys]
    note = "harmless: Gemini's next start warns once that project hooks are new or changed, then records them"
    if not unknown:
        report.ok("Gemini has fingerprinted our project hooks (trusted_hooks.json)")
    elif not found or len(unknown) == len(ours):
        report.warn("Gemini has not seen our project hooks yet", note=note)
    else:
        report.warn(f"Gemini has not fingerprinted {', '.join(unknown)}", note=note)


def _trust_file(agent: GeminiAgent) -> str:
    return agent.env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or os.path.join(
        agent.gemini_home(), "trustedFolders.json"
    )


def _trust_rules(agent: GeminiAgent) -> dict[str, str]:
    from entire_core.config.json import read_json_object
    from entire_core.errors import ConfigError

    try:
        data = read_json_object(_trust_file(agent), comments=True)
    except ConfigError:
        return {}
    return {k: str(v) for k, v in (data or {}).items()}


def folder_trusted(agent: GeminiAgent, rules: dict[str, str]) -> bool | None:
    """Gemini's verdict for the repository: the longest matching rule wins; None when no rule matches."""
    target = os.path.realpath(agent.repo_root)
    best: tuple[int, str] | None = None
    for rule, level in rules.items():
        base = os.path.dirname(rule) if level == "TRUST_PARENT" else rule
        real = os.path.realpath(base)
        if (target == real or target.startswith(real.rstrip(os.sep) + os.sep)) and (
            best is None or len(rule) > best[0]
        ):
            best = (len(rule), level)
    if best is None:
        return None
    return best[1] in ("TRUST_FOLDER", "TRUST_PARENT")


def check_folder_trust(report: Report, agent: GeminiAgent, layers: dict[str, dict[str, Any]]) -> None:
    """Gemini reads ``.gemini/settings.json``, our hooks included, only in a trusted folder."""
    override = agent.env.get("GEMINI_CLI_TRUST_WORKSPACE", "")
    if override == "true":
        report.ok("folder trust forced by GEMINI_CLI_TRUST_WORKSPACE=true")
        return
    if override == "false":
        report.fail("folder trust refused by GEMINI_CLI_TRUST_WORKSPACE=false: Gemini ignores our hooks",
                    "unset GEMINI_CLI_TRUST_WORKSPACE (or set it to true)")  # fmt: skip
        return
    enabled = True
    for name in ("user", "system"):
        flag = _get(layers.get(name, {}), "security", "folderTrust", "enabled")
        if isinstance(flag, bool):
            enabled = flag
    if not enabled:
        report.ok("folder trust is off: Gemini reads the project settings")
        return
    trust_edit = f'add "{os.path.realpath(agent.repo_root)}": "TRUST_FOLDER" to {_trust_file(agent)}'
    verdict = folder_trusted(agent, _trust_rules(agent))
    if verdict is True:
        report.ok("this folder is trusted in Gemini")
    elif verdict is False:
        report.fail(
            "Gemini distrusts this folder: it ignores .gemini/settings.json and our hooks", trust_edit
        )
    else:
        report.warn("Gemini has no trust decision for this folder; until you trust it, Gemini ignores "
                    ".gemini/settings.json and our hooks (headless runs stop unless --skip-trust)",
                    f"accept Gemini's trust prompt at its next start here, or {trust_edit}")  # fmt: skip


def diagnose(agent: GeminiAgent, *, with_version: bool = True) -> Report:
    """Run every check against the agent's repository and environment."""
    from entire_core.chain import check_host
    from entire_core.doctor import Report

    report = Report.for_agent(agent)
    if with_version:
        check_version(report, agent.env)
    host = check_host(report, agent)
    layers = check_settings(report, agent)
    if not host.in_git:
        report.skip("Entire's hooks and Gemini's trust", "not a git repository")
        return report
    if check_hooks(report, agent, layers):
        check_fingerprints(report, agent)
    else:
        report.skip("Gemini's fingerprints of our hooks", "Entire's hooks are not installed")
    check_folder_trust(report, agent, layers)
    return report


def run(agent: Agent, flags: Flags) -> int:
    """The ``doctor`` command: print the report; exit 1 when a check fails."""
    from entire_agent_google_gemini.agent import GeminiAgent

    assert isinstance(agent, GeminiAgent)
    return diagnose(agent).print()
