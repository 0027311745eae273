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

USAGE = "usage: entire hooks <agent> <hook>   (the Entire CLI simulator's shim)\n"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``entire`` shim."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] in (["--version"], ["version"]):
        sys.stdout.write("entire (entire-sim shim)\n")
        return 0
    if len(args) != 3 or args[0] != "hooks":
        sys.stderr.write(USAGE)
        return 2
    return run_hook(args[1], args[2])


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
