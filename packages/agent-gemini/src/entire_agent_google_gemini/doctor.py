"""``entire-agent-google-gemini doctor``: why would Gemini CLI not run our hooks in this repository?

Checks, each printed as ``ok``, ``warn`` or ``FAIL``: the Gemini version against the support window
(``versions.WINDOW``; older fails, newer than the newest tested one warns), that every settings layer
parses, that our hooks are installed and enabled (``hooksConfig``, ``hooksConfig.disabled``, the stale
``hooks.enabled`` Gemini 0.33+ rejects), whether Gemini has fingerprinted our project hooks in
``trusted_hooks.json`` (new or changed ones make it warn), and folder trust (an untrusted folder's
``.gemini/settings.json`` is ignored, hooks included). Exit status 1 when something fails.
"""

from __future__ import annotations

import os
import sys

from entire_core.jsonvalues import obj, strings

from entire_agent_google_gemini import hooks as settings
from entire_agent_google_gemini import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.agent import Agent

    from entire_agent_google_gemini.agent import GeminiAgent

OK, WARN, FAIL = "ok", "warn", "FAIL"


class Report:
    """Collects the results of the checks."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def add(self, status: str, text: str) -> None:
        self.lines.append((status, text))

    @property
    def failed(self) -> bool:
        return any(status == FAIL for status, _ in self.lines)

    def render(self) -> str:
        return "".join(f"{status:<4}  {text}\n" for status, text in self.lines)


def check_version(report: Report, env: Any) -> None:
    """The installed Gemini CLI against the support window: older fails, newer is a warning."""
    from entire_core.versions import probe

    from entire_agent_google_gemini import textgen
    from entire_agent_google_gemini.versions import WINDOW

    try:
        gemini = textgen.find_gemini(env)
    except Exception as exc:
        report.add(WARN, f"{exc} (supported: {WINDOW.describe()})")
        return
    reported, problem = probe(gemini, {**env, "GEMINI_CLI_NO_RELAUNCH": "true"})
    if problem:
        report.add(WARN, f"{problem}; supported: {WINDOW.describe()}")
        return
    verdict = WINDOW.verdict(reported)
    status = {"supported": OK, "older": FAIL}.get(verdict.status, WARN)
    report.add(status, verdict.message)


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
    from entire_core.errors import ConfigError

    parsed: dict[str, dict[str, Any]] = {}
    failures = len([s for s, _ in report.lines if s == FAIL])
    for layer, path in _layers(agent):
        try:
            value = settings.read_settings(path)
        except ConfigError as exc:
            report.add(FAIL, f"{layer} settings: {exc}")
            continue
        if value is None:
            continue
        parsed[layer] = value
        stale = sorted(k for k, v in obj(value.get("hooks")).items() if not isinstance(v, list))
        if stale:
            report.add(FAIL, f"{layer} settings {path}: hooks.{', hooks.'.join(stale)} is not an event list; "
                             "Gemini 0.33+ rejects the file (run install-hooks to fix the project file)")  # fmt: skip
    if len([s for s, _ in report.lines if s == FAIL]) == failures:
        report.add(
            OK, "settings files parse (" + ", ".join(parsed) + ")" if parsed else "no settings files yet"
        )
    return parsed


def _get(layer: dict[str, Any], *keys: str) -> object:
    value: object = layer
    for key in keys:
        value = obj(value).get(key)
    return value


def check_hooks(report: Report, agent: GeminiAgent, layers: dict[str, dict[str, Any]]) -> None:
    from entire_core.errors import ConfigError

    try:
        present = settings.installed(agent.repo_root)
    except ConfigError:
        return  # already reported as a parse failure
    wanted = settings.wanted()
    missing = [event for event, group in wanted.items() if present.get(event) != group["hooks"]]
    if not present:
        report.add(FAIL, "hooks are not installed (run: entire enable --agent google-gemini)")
    elif missing:
        report.add(FAIL, f"hooks missing or changed for {', '.join(missing)} (run install-hooks --force)")
    else:
        report.add(OK, f"hooks installed in {paths.project_settings(agent.repo_root)}")
    enabled = True
    for name in ("user", "project", "system"):
        flag = _get(layers.get(name, {}), "hooksConfig", "enabled")
        if isinstance(flag, bool):
            enabled = flag
    if not enabled:
        report.add(FAIL, "hooksConfig.enabled is false: Gemini runs no hooks at all")
    disabled: set[str] = set()
    for layer in layers.values():
        names = obj(layer.get("hooksConfig")).get("disabled")
        disabled |= set(strings(names))
    ours = sorted(disabled & {settings.NAME_PREFIX + hook for hook in settings.EVENTS})
    if ours:
        report.add(FAIL, f"hooksConfig.disabled turns off {', '.join(ours)}")
    elif enabled:
        report.add(OK, "hooks are enabled")


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
    ours = [f"{h['name']}:{h['command']}" for h in (settings.handler(hook) for hook in settings.EVENTS)]
    unknown = [k.split(":", 1)[0] for k in ours if k not in keys]
    if not unknown:
        report.add(OK, "Gemini has fingerprinted our project hooks (trusted_hooks.json)")
    elif not found or len(unknown) == len(ours):
        report.add(WARN, "Gemini has not seen our project hooks yet; its next start warns once "
                         "that new project hooks were detected, then records them")  # fmt: skip
    else:
        report.add(WARN, f"Gemini has not fingerprinted {', '.join(unknown)}; its next start warns once")


def _trust_rules(agent: GeminiAgent) -> dict[str, str]:
    path = agent.env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or os.path.join(
        agent.gemini_home(), "trustedFolders.json"
    )
    from entire_core.errors import ConfigError

    try:
        data = settings.read_settings(path)
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
    override = agent.env.get("GEMINI_CLI_TRUST_WORKSPACE", "")
    if override in ("true", "false"):
        status = OK if override == "true" else FAIL
        report.add(status, f"folder trust forced by GEMINI_CLI_TRUST_WORKSPACE={override}")
        return
    enabled = True
    for name in ("user", "system"):
        flag = _get(layers.get(name, {}), "security", "folderTrust", "enabled")
        if isinstance(flag, bool):
            enabled = flag
    if not enabled:
        report.add(OK, "folder trust is off: Gemini reads the project settings")
        return
    verdict = folder_trusted(agent, _trust_rules(agent))
    if verdict is True:
        report.add(OK, "this folder is trusted in Gemini")
    elif verdict is False:
        report.add(FAIL, "Gemini distrusts this folder: it ignores .gemini/settings.json and our hooks")
    else:
        report.add(WARN, "Gemini has no trust decision for this folder; until you trust it, Gemini ignores "
                         ".gemini/settings.json and our hooks (headless runs stop unless --skip-trust)")  # fmt: skip


def diagnose(agent: GeminiAgent, *, with_version: bool = True) -> Report:
    """Run every check against the agent's repository and environment."""
    report = Report()
    if with_version:
        check_version(report, agent.env)
    layers = check_settings(report, agent)
    check_hooks(report, agent, layers)
    check_fingerprints(report, agent)
    check_folder_trust(report, agent, layers)
    return report


def run(agent: Agent, argv: list[str]) -> int:
    """The ``doctor`` command: print the report; exit 1 when a check fails."""
    from entire_agent_google_gemini.agent import GeminiAgent

    assert isinstance(agent, GeminiAgent)
    if argv and argv[0] in ("-h", "--help"):
        sys.stdout.write(__doc__ or "")
        return 0
    report = diagnose(agent)
    sys.stdout.write(f"Gemini CLI hooks for Entire in {agent.repo_root}\n" + report.render())
    return 1 if report.failed else 0
