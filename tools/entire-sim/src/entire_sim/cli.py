"""``entire-sim``: the simulator's command line (people and CI use it; agents use the ``entire`` shim)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import NoReturn

from entire_core.errors import AgentError

from entire_sim import demo, discovery
from entire_sim.lifecycle import HookError
from entire_sim.plugin import CallFailed
from entire_sim.report import render, storage
from entire_sim.simulator import Simulator


class UsageError(Exception):
    """The command line is wrong: one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with its errors as one line, like the plugins' (no usage block)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _sim(args: argparse.Namespace) -> Simulator:
    repo = Path(args.repo).resolve()
    if not repo.is_dir():
        raise LookupError(f"--repo {args.repo}: no such directory")
    from entire_sim.simulator import state_dir_for

    # The same records the shim keeps: $ENTIRE_SIM_STATE, else <repo>/.entire/sim.
    return Simulator(
        repo, Path(args.state).resolve() if args.state else state_dir_for(str(repo), dict(os.environ))
    )


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``entire-sim``: bad input is one line on stderr and a non-zero exit, never a traceback."""
    try:
        return _main(argv)
    except UsageError as exc:
        sys.stderr.write(f"entire-sim: {exc}\n")
        return 2
    except (CallFailed, LookupError, HookError, AgentError, ValueError) as exc:
        sys.stderr.write(f"entire-sim: {exc}\n")
        return 1
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        sys.stderr.write(f"entire-sim: {exc.strerror or exc}{where}\n")
        return 1


DESCRIPTION = """\
The Entire CLI's side of the external-agent protocol, for trying plugins without the real CLI.
People and CI run entire-sim; agents reach it through the `entire` shim (entire-sim install-shim DIR).
Bad input is one line on stderr and a non-zero exit."""

REPO_HELP = "the repository (default: the current directory)"
STATE_HELP = "where the simulator keeps its records (default: <repo>/.entire/sim, or $ENTIRE_SIM_STATE)"


def _main(argv: list[str] | None) -> int:
    parser = _Parser(
        prog="entire-sim", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="<command>")
    p = sub.add_parser("demo", help="replay each agent package's bundled real session and report per turn")
    p.add_argument("--agent", help="only this registry name (aider, google-gemini, openai-codex)")
    p.add_argument("--keep", action="store_true", help="keep the sandbox and state for inspection")
    sub.add_parser("discover", help="scan PATH for plugins as the CLI does (JSON)")
    for name, help_text in (("enable", "what `entire enable --agent NAME` does: settings, detect, install-hooks"),
                            ("disable", "remove one agent's hooks (uninstall-hooks)")):  # fmt: skip
        p = sub.add_parser(name, help=help_text)
        p.add_argument(
            "--agent", required=True, help="the plugin's registry name (entire-agent-<name> on PATH)"
        )
        p.add_argument("--repo", default=".", help=REPO_HELP)
        p.add_argument("--state", help=STATE_HELP)
        if name == "enable":
            p.add_argument("--force", action="store_true", help="reinstall the hooks (install-hooks --force)")
    p = sub.add_parser("hooks", help="what `entire hooks <agent> <hook>` does, the payload on stdin")
    p.add_argument("agent", help="the plugin's registry name")
    p.add_argument("hook", help="one of the hook names its info declares")
    p = sub.add_parser(
        "resume",
        help="restore a recorded session through the plugin, as `entire session resume <branch>` does",
    )
    p.add_argument("--agent", required=True, help="the plugin's registry name")
    p.add_argument("--session-id", required=True, help="a session id from `entire-sim report`")
    p.add_argument(
        "--chunk-size", type=int, help="chunk and reassemble the transcript through the plugin first"
    )
    p.add_argument("--repo", default=".", help=REPO_HELP)
    p.add_argument("--state", help=STATE_HELP)
    p = sub.add_parser("report", help="the sessions, turns and violations recorded in a repository")
    p.add_argument("--repo", default=".", help=REPO_HELP)
    p.add_argument("--state", help=STATE_HELP)
    p.add_argument("--json", action="store_true", help="as JSON: checkpoints, storage, violations")
    p = sub.add_parser(
        "soak", help="replay a synthetic session of any size turn by turn; report stored bytes"
    )
    p.add_argument("--agent", required=True, choices=["openai-codex", "google-gemini", "aider"],
                   help="the agent whose session is made")  # fmt: skip
    p.add_argument("--size", default="30M", help="native transcript size: 300M, 1G, ...")
    p.add_argument("--budget", help="ENTIRE_VIEW_BUDGET for the plugin (default: the plugin's own)")
    p.add_argument(
        "--seed", type=int, default=0, help="the generator's seed (the same seed, the same session)"
    )
    p.add_argument("--turn-bytes", help="average native bytes a turn adds (default: size / 120, 64K to 2M)")
    p.add_argument("--big-output", default="20M", help="the one huge tool output (0: none)")
    p.add_argument("--dir", help="where to make the scratch directory (default: the system's temp)")
    p.add_argument("--json", help="write the summary and per-turn rows to this file")
    p.add_argument("--keep", action="store_true", help="keep the scratch directory")
    p.add_argument("-v", "--verbose", action="store_true", help="one line per TurnEnd as it completes")
    p = sub.add_parser("install-shim", help="write the `entire` shim into a directory (put it first on PATH)")
    p.add_argument("directory", help="where to write it, outside the repository (made if missing)")
    args = parser.parse_args(argv)

    if args.command == "demo":
        return demo.run(args.agent, keep=args.keep)
    if args.command == "soak":
        from entire_sim import soak

        return soak.main(args)
    if args.command == "discover":
        found = discovery.discover(os.environ.get("PATH", ""), os.getcwd(), dict(os.environ))
        print(json.dumps(found.to_json(), indent=2))
        return 0
    if args.command == "hooks":
        from entire_sim.shim import run_hook

        return run_hook(args.agent, args.hook)
    if args.command == "install-shim":
        print(Simulator(Path.cwd()).install_shim(Path(args.directory)))
        return 0
    sim = _sim(args)
    if args.command == "enable":
        print(f"Installed {sim.enable(args.agent, force=args.force)} hooks for {args.agent}")
    elif args.command == "disable":
        sim.disable(args.agent)
    elif args.command == "resume":
        result = sim.resume(args.agent, args.session_id, chunk_size=args.chunk_size)
        print(f"To continue this session: {result['command']}")
    elif args.command == "report":
        if args.json:
            checkpoints = sim.checkpoints()
            print(json.dumps({"checkpoints": checkpoints, "storage": storage(checkpoints),
                              "violations": sim.violations()}, indent=2))  # fmt: skip
        else:
            print(
                render("(all agents)", str(sim.repo), sim.hook_calls(), sim.checkpoints(), sim.violations())
            )
    errors = sim.errors()
    for error in errors:
        sys.stderr.write(f"violation: {error['subcommand']}: {error['message']}\n")
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
