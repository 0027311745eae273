"""A stand-in for one ``entire hooks <agent> <hook>`` process: the plugin calls the Entire CLI makes.

    python hookhost.py <agent> <hook> < payload     # a hook of one of our plugins
    python hookhost.py --builtin                    # a built-in agent's hook: no plugin is run

What Entire CLI v0.10.3 does for a hook of an external agent (strace of the real binary): ``info`` on
every ``entire-agent-*`` on PATH, ``get-session-dir`` on every plugin found, then ``parse-hook`` with
the payload, each a process of its own, one after the other. A built-in agent's hook runs none of them.
The stand-in is this small Python program for both, so that ``bench.py hooks`` can give the cost of our
calls as a ratio to a hook that makes none, in the same run. Nothing is imported but the standard library.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys

PREFIX = "entire-agent-"


def plugins() -> list[str]:
    """Every ``entire-agent-*`` on PATH, first occurrence of a name winning, in PATH order."""
    found: dict[str, str] = {}
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if os.path.isabs(entry):
            for path in sorted(glob.glob(os.path.join(glob.escape(entry), PREFIX + "*"))):
                found.setdefault(os.path.basename(path), path)
    return list(found.values())


def main(argv: list[str]) -> int:
    if argv == ["--builtin"]:
        plugins()
        return 0
    agent, hook = argv
    payload = sys.stdin.buffer.read()
    found = plugins()
    repo = os.getcwd()
    for path in found:
        subprocess.run([path, "info"], capture_output=True, check=True)
    for path in found:
        subprocess.run([path, "get-session-dir", "--repo-path", repo], capture_output=True, check=True)
    target = next(p for p in found if os.path.basename(p) == PREFIX + agent)
    subprocess.run([target, "parse-hook", "--hook", hook], input=payload, capture_output=True, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
