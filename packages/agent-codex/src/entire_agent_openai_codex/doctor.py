"""The human commands: ``doctor`` (why Codex does or does not run our hooks here) and ``trust``.

Codex skips untrusted hooks silently, so "installed but nothing recorded" is the usual failure. The
doctor checks every link of the chain for this repository and prints the exact fix for each broken
one. ``trust`` is the only code that writes the user's config.toml, and only when asked.
"""

from __future__ import annotations

import os

from entire_agent_openai_codex import hooks, trust

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from entire_core.agent import Agent

PROGRAM = "entire-agent-openai-codex"


def codex_version(env: Mapping[str, str]) -> tuple[str | None, str | None, str]:
    """``(path of codex, what ``codex --version`` printed, problem)``."""
    import shutil

    from entire_core.versions import probe

    binary = shutil.which("codex", path=env.get("PATH"))
    if binary is None:
        return None, None, "codex is not on PATH"
    reported, problem = probe(binary, env, timeout=20)
    return binary, reported, problem


class Report:
    """Lines of the doctor's report, the problems found and their fixes."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.fixes: list[str] = []
        self.problems = 0

    def section(self, title: str) -> None:
        self.lines.append(f"\n{title}")

    def ok(self, text: str) -> None:
        self.lines.append(f"  [ok] {text}")

    def bad(self, text: str, fix: str = "") -> None:
        self.problems += 1
        self.lines.append(f"  [!!] {text}")
        if fix and fix not in self.fixes:
            self.fixes.append(fix)

    def note(self, text: str) -> None:
        self.lines.append(f"       {text}")

    def render(self) -> str:
        out = list(self.lines)
        if self.fixes:
            out.append("\nTo fix:")
            out += [f"  {i}. {fix}" for i, fix in enumerate(self.fixes, 1)]
        else:
            out.append("\nEverything is in place: Codex will run Entire's hooks in this repository.")
        return "\n".join(out).lstrip("\n") + "\n"


def _read_config(path: str) -> tuple[dict[str, Any], str]:
    from entire_core.config.toml import parse_toml_text
    from entire_core.errors import ConfigError

    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    except FileNotFoundError:
        return {}, ""
    except OSError as exc:
        return {}, f"cannot read {path}: {exc.strerror}"
    try:
        return parse_toml_text(text), ""
    except ConfigError as exc:
        return {}, f"{path} does not parse ({exc}): Codex refuses to start until it is fixed"


def _read_hooks(path: str) -> tuple[dict[str, Any] | None, str]:
    from entire_core.config.json import parse_json_text
    from entire_core.errors import ConfigError

    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    except FileNotFoundError:
        return None, ""
    try:
        return hooks.check_shape(parse_json_text(text, comments=False), path), ""
    except ConfigError as exc:
        message = str(exc)
        if message.startswith(path):
            return None, message
        return None, f"{path} does not parse ({exc}): Codex ignores the whole file, your own hooks too"


def diagnose(agent: Agent) -> Report:
    """Check the whole chain for this repository: binary, config, hooks file, project and hook trust."""
    import shutil

    from entire_agent_openai_codex import paths

    report = Report()
    env, root = agent.env, agent.repo_root
    hooks_path = os.path.join(root, hooks.HOOKS_FILE)
    config_path = os.path.join(paths.codex_home(env), "config.toml")
    report.lines.append(f"{PROGRAM} doctor: {root}")

    report.section("Codex")
    from entire_core.versions import parse_version

    from entire_agent_openai_codex.versions import SUBAGENT_HOOKS, WINDOW

    binary, reported, problem = codex_version(env)
    if problem:
        report.bad(
            problem,
            f"install Codex: `{WINDOW.upgrade_command()}` (supported: {WINDOW.describe()})",
        )
    else:
        verdict = WINDOW.verdict(reported)
        if verdict.supported:
            report.ok(f"{verdict.message}, at {binary}")
        else:
            report.bad(f"{verdict.message}, at {binary}", f"upgrade Codex: `{WINDOW.upgrade_command()}`")
        parsed = parse_version(verdict.version)
        if verdict.status == "newer":
            report.note("formats are read tolerantly, but this version has not been tested")
        elif verdict.supported and parsed is not None and parsed < SUBAGENT_HOOKS:
            report.note("no subagent hooks before 0.139.0: a subagent's work counts in its parent's turn")
    if shutil.which("entire", path=env.get("PATH")) is None:
        report.bad(
            "the `entire` command is not on PATH: every hook exits without recording",
            "install the Entire CLI and put `entire` on PATH",
        )
    else:
        report.ok("`entire` is on PATH")

    report.section(f"Hooks file {hooks_path}")
    events, problem = _read_hooks(hooks_path)
    install_fix = (
        "install the hooks: `entire enable --agent openai-codex` (or `" + PROGRAM + " install-hooks`)"
    )
    if problem:
        report.bad(
            problem, f"fix {hooks_path} (it must be JSON with only 'hooks' and 'description' at the top)"
        )
    elif events is None:
        report.bad("not there: Entire's hooks are not installed in this repository", install_fix)
    ours = trust.our_handlers(events or {}, agent.name)
    if events is not None:
        wanted = hooks.wanted_groups(agent.name)
        found = {(hook, event) for hook, event, *_ in ours}
        missing = [h for h, e in hooks.HOOK_EVENTS.items() if (h, e) not in found]
        stale = [h for h, e, _, _, handler in ours if wanted.get(e, {}).get("hooks", [None])[0] != handler]
        if missing:
            report.bad(f"Entire hooks missing: {', '.join(missing)}", install_fix)
        if stale:
            report.bad(
                f"Entire hooks out of date: {', '.join(stale)}",
                "reinstall: `" + PROGRAM + " install-hooks --force`",
            )
        if not missing and not stale:
            report.ok(f"all {len(hooks.HOOK_EVENTS)} Entire hooks installed")
        if os.path.exists(os.path.join(root, ".codex", "config.toml")):
            project, _ = _read_config(os.path.join(root, ".codex", "config.toml"))
            if isinstance(project.get("hooks"), dict) and set(project["hooks"]) - {"state"}:
                report.note(".codex/config.toml declares hooks too; Codex loads both and warns")

    report.section(f"Trust in {config_path}")
    config, problem = _read_config(config_path)
    if problem:
        report.bad(problem, f"fix {config_path}")
    level = trust.project_trust(config, root)
    project_fix = (
        f"trust the project: `{PROGRAM} trust --project` (or run `codex` here and accept its trust prompt)"
    )
    if level == "trusted":
        report.ok("the project is trusted, so Codex loads .codex/")
    elif level == "untrusted":
        report.bad("the project is marked untrusted: Codex ignores .codex/ and every hook in it", project_fix)
    else:
        report.bad("the project is not trusted: Codex ignores .codex/ and every hook in it", project_fix)
    hook_fix = f"trust Entire's hooks: `{PROGRAM} trust` (or run `codex`, then /hooks to review them)"
    for item in trust.assess(hooks_path, events or {}, config, agent.name):
        label = f"{item.hook or item.event:<20} {item.key}"
        if item.status == "trusted":
            report.ok(f"trusted   {label}")
        elif item.status == "modified":
            report.bad(f"modified since it was trusted, so Codex skips it: {label}", hook_fix)
        elif item.status == "disabled":
            report.bad(
                f"disabled in config.toml (enabled = false): {label}",
                f'remove `enabled = false` from [hooks.state."{item.key}"] in {config_path}',
            )
        else:
            report.bad(f"untrusted, so Codex skips it: {label}", hook_fix)
    return report


def doctor(agent: Agent, argv: list[str]) -> int:
    """Print the report; exit 0 when Codex will run every Entire hook here, 1 otherwise."""
    if argv and argv[0] in ("-h", "--help"):
        print(
            f"usage: {PROGRAM} doctor\n\nReport whether Codex will run Entire's hooks in this repository, and how to fix it."
        )
        return 0
    if argv:
        import sys

        print(f"{PROGRAM} doctor: unexpected argument {argv[0]!r}", file=sys.stderr)
        return 2
    report = diagnose(agent)
    print(report.render(), end="")
    return 1 if report.problems else 0


def trust_command(agent: Agent, argv: list[str]) -> int:
    """Write trust entries for our installed hooks (and with ``--project``, the project) into config.toml."""
    import sys

    from entire_core.errors import ConfigError

    from entire_agent_openai_codex import paths

    unknown = [a for a in argv if a not in ("--project", "--remove")]
    if unknown:
        print(
            f"{PROGRAM} trust: unexpected argument {unknown[0]!r} (see {PROGRAM} trust --help)",
            file=sys.stderr,
        )
        return 2
    if "--remove" in argv and "--project" in argv:
        print(f"{PROGRAM} trust: --remove leaves project trust alone; drop --project", file=sys.stderr)
        return 2
    root = agent.repo_root
    hooks_path = os.path.join(root, hooks.HOOKS_FILE)
    config_path = os.path.join(paths.codex_home(agent.env), "config.toml")
    events, problem = _read_hooks(hooks_path)
    if "--remove" in argv:
        removed = trust.remove_trust(config_path, hooks_path, events or {}, agent.name)
        print(f"Removed {len(removed)} trust entries of Entire's hooks from {config_path}")
        return 0
    if problem or events is None:
        raise ConfigError(
            problem
            or f"{hooks_path} does not exist: install the hooks first (`entire enable --agent openai-codex`)"
        )
    if not trust.our_handlers(events, agent.name):
        raise ConfigError(
            f"{hooks_path} holds no Entire hooks: install them first (`entire enable --agent openai-codex`)"
        )
    keys = trust.write_trust(
        config_path, hooks_path, events, agent.name, project_root=root if "--project" in argv else ""
    )
    print(f"Trusted {len(keys)} Entire hooks in {config_path}:")
    for key in keys:
        print(f"  {key}")
    config, _ = _read_config(config_path)
    if trust.project_trust(config, root) != "trusted":
        print(
            f"\nThe project itself is not trusted, so Codex still ignores .codex/: run `{PROGRAM} trust --project`."
        )
    return 0
