"""The ``entire`` executable agents call from their hooks: ``entire hooks <agent> <hook>``.

Like the real CLI it reads exactly one JSON value from stdin (a terminal, nothing, or non-JSON is an
error and the plugin is never called), does nothing outside a git repository or where Entire is not
enabled, discovers plugins on PATH, and runs the event's call sequence. The outcome is appended to
the state directory (``$ENTIRE_SIM_STATE``, else ``<repo>/.entire/sim``).
"""

from __future__ import annotations

import os
import sys

from entire_sim import discovery
from entire_sim.lifecycle import HookError, HookRun, read_one_json_value
from entire_sim.simulator import is_enabled, repo_root_of, state_dir_for
from entire_sim.state import State

USAGE = (
    "usage: entire hooks <agent> <hook> | entire enable --agent <name> [--force]"
    " | entire disable [--uninstall]   (the Entire CLI simulator's shim)\n"
)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``entire`` shim."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] in (["--version"], ["version"]):
        sys.stdout.write("entire (entire-sim shim)\n")
        return 0
    if len(args) == 3 and args[0] == "hooks":
        return run_hook(args[1], args[2])
    if args[:2] == ["enable", "--agent"] and len(args) in (3, 4) and args[3:] in ([], ["--force"]):
        return _setup(["enable", "--agent", args[2], "--repo", _repo(), *args[3:]])
    if args[:1] == ["disable"] and args[1:] in ([], ["--uninstall"]):
        return _disable(uninstall=bool(args[1:]))
    sys.stderr.write(USAGE)
    return 2


def _repo() -> str:
    return repo_root_of(os.getcwd()) or os.getcwd()


def _setup(args: list[str]) -> int:
    from entire_sim.cli import main as sim_main

    return sim_main(args)


def _disable(*, uninstall: bool) -> int:
    """``entire disable``: Entire off here; with ``--uninstall`` every agent's hooks and ``.entire/`` go too."""
    import json
    from pathlib import Path

    from entire_sim.simulator import Simulator

    repo = repo_root_of(os.getcwd())
    if repo is None:
        sys.stderr.write("entire: not a git repository\n")
        return 1
    if not uninstall:
        settings = Path(repo, ".entire", "settings.json")
        if settings.exists():
            settings.write_text(json.dumps({"enabled": False}, indent=2) + "\n", encoding="utf-8")
        return 0
    try:
        cleaned = Simulator(Path(repo)).uninstall()
    except Exception as exc:  # one line, like the real CLI's "Entire was not fully removed"
        sys.stderr.write(f"entire: Entire was not fully removed: {exc}\n")
        return 1
    sys.stdout.write(f"Removed Entire from {repo} (hooks of: {', '.join(cleaned) or 'no agent'})\n")
    return 0


def run_hook(agent: str, hook: str) -> int:
    """``entire hooks <agent> <hook>`` with the payload on stdin."""
    try:
        payload = read_one_json_value(sys.stdin.buffer)
    except HookError as exc:
        sys.stderr.write(f"entire: {exc}\n")
        return 1
    repo = repo_root_of(os.getcwd())
    if repo is None or not is_enabled(repo):
        return 0  # the real CLI exits quietly without calling the plugin
    env = dict(os.environ)
    state = State(state_dir_for(repo, env))
    found = discovery.discover(env.get("PATH", ""), repo, env)
    plugin = next((p for p in found.plugins if p.name == agent), None)
    if plugin is None:
        sys.stderr.write(f'entire: unknown command "{agent}" for "entire hooks"\n')
        return 1
    if hook not in (plugin.info.get("hook_names") or []):
        sys.stderr.write(f'entire: unknown command "{hook}" for "entire hooks {agent}"\n')
        return 1
    with state.lock():
        record = HookRun(plugin, state, repo).handle(hook, payload)
    if record["error"]:
        sys.stderr.write(f"entire: {record['error']}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
