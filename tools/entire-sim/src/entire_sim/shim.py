"""The ``entire`` executable on PATH in tests: the commands the READMEs name, as Entire CLI v0.10.3 runs them.

``entire hooks <agent> <hook>`` is what agents call from their hooks: like the real CLI it finds plugins only
where ``external_agents`` is on, does nothing where Entire is not enabled, reads exactly one JSON value from
stdin (a terminal, nothing, or non-JSON is an error and the plugin is never called), and runs the event's
call sequence. The outcome is appended to the state directory (``$ENTIRE_SIM_STATE``, else
``<repo>/.entire/sim``). The other commands (enable, disable, configure, agent, session resume, checkpoint
explain) do what the READMEs say they do, and a command or flag v0.10.3 lacks is refused with its message
and exit code (tests/test_readme_entire_commands.py holds the two side by side).
"""

from __future__ import annotations

import os
import sys

from entire_sim import discovery
from entire_sim.lifecycle import HookError, HookRun, read_one_json_value
from entire_sim.simulator import external_agents_on, is_enabled, repo_root_of, state_dir_for
from entire_sim.state import State

BUILTINS = ("claude-code", "codex", "copilot-cli", "cursor", "factoryai-droid", "gemini", "opencode", "pi")
"""Entire CLI 0.10.3's built-in agents, as ``entire agent list`` names them."""

USAGE = (
    "Usage:\n  entire [flags]\n  entire [command]\n\n"
    "The Entire CLI simulator's shim knows: agent add|list, checkpoint explain --generate <id>,\n"
    "configure --summarize-provider <name> [--local], disable [--uninstall [--force]], enable --agent <name> [--force],\n"
    "hooks <agent> <hook>, session resume [<branch>] [--force], version\n"
)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``entire`` shim: the commands the READMEs name, refused as Entire CLI 0.10.3 refuses."""
    args = sys.argv[1:] if argv is None else argv
    command, rest = (args[0], args[1:]) if args else ("", [])
    if command in ("version", "--version"):
        sys.stdout.write("Entire CLI (entire-sim shim)\n")
        return 0
    if command == "hooks":
        if len(rest) < 2:
            sys.stdout.write("Commands called by hooks. These are internal and not for direct user use.\n")
            return 0
        return run_hook(rest[0], rest[1])
    handlers = {"enable": _enable, "disable": _disable, "configure": _configure, "agent": _agent,
                "session": _session, "checkpoint": _checkpoint}  # fmt: skip
    if command not in handlers:
        return _invalid(f'unknown command "{command}" for "entire"' if command else "a command is required")
    return handlers[command](rest)


def _invalid(message: str) -> int:
    """A usage error as the real CLI prints it (usage, then ``Error: Invalid usage: ...``), exit 1."""
    sys.stderr.write(f"{USAGE}\nError: Invalid usage: {message}\n")
    return 1


def _fail(message: str) -> int:
    """A failed command as the real CLI reports it: the message alone on stderr, exit 1."""
    sys.stderr.write(f"{message}\n")
    return 1


def _flags(
    args: list[str], known: tuple[str, ...], takes_value: tuple[str, ...] = ()
) -> tuple[dict[str, str], list[str]] | str:
    """``args`` split into flags and positionals, or the usage error for an unknown flag."""
    flags: dict[str, str] = {}
    positional: list[str] = []
    words = iter(args)
    for word in words:
        if not word.startswith("-"):
            positional.append(word)
            continue
        name, _, value = word.partition("=")
        if name not in known:
            return (
                f"unknown flag: {name}"
                if name.startswith("--")
                else f"unknown shorthand flag: {name[1:2]!r} in {word}"
            )
        if name in takes_value and not value:
            value = next(words, "")
            if not value:
                return f"flag needs an argument: {name}"
        flags[name] = value or "true"
    return flags, positional


def _repo() -> str | None:
    return repo_root_of(os.getcwd())


def _setup(args: list[str]) -> int:
    from entire_sim.cli import main as sim_main

    return sim_main(args)


def _enable(args: list[str]) -> int:
    parsed = _flags(args, ("--agent", "--force", "-f"), ("--agent",))
    if isinstance(parsed, str):
        return _invalid(parsed)
    flags, positional = parsed
    if positional:
        return _invalid(f'unknown command "{positional[0]}" for "entire enable"')
    if "--agent" not in flags:
        return _fail("entire: the simulator's shim enables plugins only: entire enable --agent <name>")
    force = ["--force"] if ("--force" in flags or "-f" in flags) else []
    repo = _repo()
    if repo is None:
        return _fail("Not a git repository. Please run 'entire enable' from within a git repository.")
    return _setup(["enable", "--agent", flags["--agent"], "--repo", repo, *force])


def _disable(args: list[str]) -> int:
    """``entire disable``: ``"enabled": false`` in the local settings; ``--uninstall --force``: everything out."""
    import json
    from pathlib import Path

    from entire_sim.simulator import Simulator

    parsed = _flags(args, ("--uninstall", "--force", "--local", "--project"))
    if isinstance(parsed, str):
        return _invalid(parsed)
    flags, positional = parsed
    if positional:
        return _invalid(f'unknown command "{positional[0]}" for "entire disable"')
    repo = _repo()
    if repo is None:
        return _fail("not a git repository")
    if "--uninstall" not in flags:
        name = "settings.json" if "--project" in flags else "settings.local.json"
        target = Path(repo, ".entire", name)
        settings = _read_json(target)
        settings["enabled"] = False
        target.parent.mkdir(exist_ok=True)
        target.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
        sys.stdout.write(f"Entire is now disabled (.entire/{name}).\n")
        return 0
    if "--force" not in flags and not (sys.stdin.isatty() and sys.stdout.isatty()):
        sys.stdout.write("\nThis will completely remove Entire from this repository.\n\n")
        return _fail(
            "No terminal available to confirm the uninstall. Re-run with --force to uninstall non-interactively."
        )
    if "--force" not in flags:
        sys.stdout.write("Remove Entire from this repository? [y/N] ")
        sys.stdout.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            return 0
    try:
        cleaned = Simulator(Path(repo)).uninstall(dict(os.environ))
    except Exception as exc:  # one line, like the real CLI's "Entire was not fully removed"
        sys.stderr.write(f"entire: Entire was not fully removed: {exc}\n")
        return 1
    # As v0.10.3 reports it (setup.go, uninstallAgentHooks): a plugin that is not on PATH is not asked,
    # so its hooks stay, and the removal is said to be complete all the same.
    removed = "".join(f"  ✓ Removed {name} hooks (external agent)\n" for name in cleaned)
    removed = removed or "  · No agent hooks to remove\n"
    sys.stdout.write(
        f"\n{removed}  ✓ Removed .entire directory\n\n✓ Entire has been removed from this repository.\n"
    )
    return 0


def _read_json(path: object) -> dict[str, object]:
    import json
    from pathlib import Path

    try:
        value = json.loads(Path(str(path)).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


EXTERNAL_AGENTS_NOTE = (
    "Note: external agents are now enabled for the rest of Entire too — not just summaries."
)
"""What v0.10.3 prints when naming a plugin the summary provider turns ``external_agents`` on."""


def _configure(args: list[str]) -> int:
    """``entire configure --summarize-provider NAME [--local|--project]``: the summary provider.

    As v0.10.3's ``updateSummaryGenerationSettings`` writes it: into ``.entire/settings.local.json`` with
    ``--local``, ``.entire/settings.json`` with ``--project``, else into ``settings.json`` when it exists
    (``settingsTargetFile``), so that a provider in the local file (the first ``explain --generate``'s own
    pick) still wins. A plugin as provider turns ``external_agents`` on in that file.
    """
    import json
    from pathlib import Path

    parsed = _flags(args, ("--summarize-provider", "--local", "--project"), ("--summarize-provider",))
    if isinstance(parsed, str):
        return _invalid(parsed)
    flags, positional = parsed
    if positional:
        return _invalid(f'unknown command "{positional[0]}" for "entire configure"')
    repo = _repo()
    if repo is None:
        return _fail("Not a git repository. Please run 'entire configure' from within a git repository.")
    if "--local" in flags and "--project" in flags:
        return _fail("cannot specify both --project and --local")
    if "--summarize-provider" not in flags:
        return _fail("entire: the simulator's shim configures only --summarize-provider <name>")
    shared = Path(repo, ".entire", "settings.json")
    local = "--local" in flags or ("--project" not in flags and not shared.exists())
    name = "settings.local.json" if local else "settings.json"
    target = Path(repo, ".entire", name)
    settings = _read_json(target)
    summary = settings.get("summary_generation")
    provider = flags["--summarize-provider"]
    settings["summary_generation"] = {**(summary if isinstance(summary, dict) else {}), "provider": provider}
    if provider not in BUILTINS and settings.get("external_agents") is not True:
        settings["external_agents"] = True
        sys.stdout.write(EXTERNAL_AGENTS_NOTE + "\n")
    target.parent.mkdir(exist_ok=True)
    target.write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(f"✓ Settings updated (.entire/{name})\n")
    return 0


def _agent(args: list[str]) -> int:
    """``entire agent list|add``: like the real CLI, they know only the built-in agents (entireio/cli #1928)."""
    if _repo() is None:
        return _fail("not a git repository")
    sub, rest = (args[0], args[1:]) if args else ("", [])
    if sub == "list" and not rest:
        names = "".join(f"    {name}\n" for name in BUILTINS)
        sys.stdout.write(
            f"Agents:\n{names}\nNo agents installed. Use 'entire agent add <name>' to install hooks.\n"
        )
        return 0
    if sub == "add":
        if len(rest) != 1:
            return _invalid(f"accepts 1 arg(s), received {len(rest)}")
        if rest[0] in BUILTINS:
            return _fail(f"entire: the simulator has no built-in agents ({rest[0]!r})")
        listed = "".join(f"  {name}{'    (default)' if name == 'claude-code' else ''}\n" for name in BUILTINS)
        sys.stdout.write(
            f'Unknown agent "{rest[0]}". Available agents:\n\n{listed}\nUsage: entire enable --agent <agent-name>\n'
        )
        return 1
    return _invalid(f'unknown command "{sub}" for "entire agent"' if sub else "a subcommand is required")


def _session(args: list[str]) -> int:
    """``entire session resume [<branch>] [--force]``: the newest session the simulator recorded here."""
    import subprocess
    from pathlib import Path

    from entire_sim.simulator import Simulator

    if args[:1] != ["resume"]:
        return _invalid(
            f'unknown command "{args[0]}" for "entire session"' if args else "a subcommand is required"
        )
    parsed = _flags(args[1:], ("--force", "-f"))
    if isinstance(parsed, str):
        return _invalid(parsed)
    _, positional = parsed
    if len(positional) > 1:
        return _invalid(f"accepts at most 1 arg(s), received {len(positional)}")
    if not positional:
        sys.stdout.write(
            "The resume picker needs an interactive terminal.\n"
            "Pass a branch instead, e.g. 'entire session resume <branch>'.\n"
        )
        return 0
    repo = _repo()
    if repo is None:
        return _fail("not a git repository")
    branch = positional[0]
    known = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"], cwd=repo,
                           capture_output=True, check=False)  # fmt: skip
    if known.returncode != 0:
        return _fail(f"branch '{branch}' not found locally or on origin")
    subprocess.run(["git", "checkout", "--quiet", branch], cwd=repo, capture_output=True, check=False)
    sim = Simulator(Path(repo))
    sessions = [s for s in sim.sessions() if s.get("session_id") in set(sim.recorded_sessions())]
    if not sessions:
        return _fail(f"no session found on branch '{branch}'")
    last = sessions[-1]
    try:
        done = sim.resume(str(last["agent"]), str(last["session_id"]))
    except Exception as exc:
        return _fail(f"entire: {exc}")
    sys.stdout.write(f"To continue this session: {done['command']}\n")
    return 0


def _checkpoint(args: list[str]) -> int:
    """``entire checkpoint explain --generate <id>``: the simulator keeps no checkpoint ids, so none is found."""
    if args[:1] != ["explain"]:
        return _invalid(
            f'unknown command "{args[0]}" for "entire checkpoint"' if args else "a subcommand is required"
        )
    parsed = _flags(
        args[1:], ("--generate", "--checkpoint", "-c", "--commit"), ("--checkpoint", "-c", "--commit")
    )
    if isinstance(parsed, str):
        return _invalid(parsed)
    flags, positional = parsed
    target = (
        next(iter(positional), "")
        or flags.get("--checkpoint")
        or flags.get("-c")
        or flags.get("--commit", "")
    )
    if "--generate" in flags and not target:
        return _fail(
            "--generate requires a checkpoint ID or commit SHA (positional), --checkpoint/-c, or --commit flag"
        )
    if _repo() is None:
        return _fail("not a git repository")
    if not target:
        return _fail("entire: the simulator keeps no checkpoints to list: name one (none is found)")
    return _fail(f'no checkpoint or commit found matching "{target}"')


def run_hook(agent: str, hook: str) -> int:
    """``entire hooks <agent> <hook>`` with the payload on stdin, in v0.10.3's order.

    Plugins are looked for only in a repository whose merged settings have ``external_agents`` (else the
    agent is unknown, exit 1); a hook the agent does not declare is a quiet no-op; where Entire is not
    enabled nothing is read; then exactly one JSON value from stdin.
    """
    repo = repo_root_of(os.getcwd())
    env = dict(os.environ)
    found = discovery.discover(env.get("PATH", ""), repo, env) if repo and external_agents_on(repo) else None
    plugin = next((p for p in found.plugins if p.name == agent), None) if found else None
    if plugin is None or repo is None:
        return _fail(f'unknown agent "{agent}" (not found as built-in or external plugin)')
    if hook not in (plugin.info.get("hook_names") or []) or not is_enabled(repo):
        return 0  # the real CLI exits quietly without calling the plugin
    try:
        payload = read_one_json_value(sys.stdin.buffer)
    except HookError as exc:
        sys.stderr.write(f"entire: {exc}\n")
        return 1
    state = State(state_dir_for(repo, env))
    with state.lock():
        record = HookRun(plugin, state, repo).handle(hook, payload)
    if record["error"]:
        sys.stderr.write(f"entire: {record['error']}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
