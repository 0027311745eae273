"""What every real-agent end-to-end test needs: the pinned agent installed once, and a network
namespace in which only 127.0.0.1 exists, so the agent can reach the scripted model server and
nothing else.

Agents are cached under ``$ENTIRE_E2E_CACHE``, by default ``$XDG_CACHE_HOME/entire-agents-e2e``
(``~/.cache/...``; the test plugin names the real one before it moves the tests' home): the first run
installs them from the package registries, later runs reuse them. An interrupted install is never
mistaken for a finished one.

When a real-agent test cannot run here (no ``unshare``, no npm, an install that fails) the helpers
raise ``Unavailable``; ``entire_sim.pytest_e2e`` turns that into a one-line skip on a laptop, or a
failure where the tests are required (``CI=true`` or ``ENTIRE_E2E=1``, see ``required``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

REQUIRE_HINT = "set ENTIRE_E2E=1 or CI=true to require"
"""How a skipped end-to-end test tells a developer to make it required."""


class Unavailable(RuntimeError):
    """A real-agent test cannot run on this machine: ``reason`` is one line, ``details`` the evidence."""

    def __init__(self, reason: str, details: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.details = details


def required(environ: Mapping[str, str] | None = None) -> bool:
    """True where the end-to-end tests must run: in CI (``CI=true``) or with ``ENTIRE_E2E=1``."""
    env = os.environ if environ is None else environ
    return env.get("ENTIRE_E2E", "") == "1" or env.get("CI", "").lower() in ("true", "1")


LOOPBACK_ONLY = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh"]
"""Prefix that runs a command in a new network namespace whose loopback is up and nothing else."""


def cache_dir() -> Path:
    """Where pinned agents are installed and reused: ``$ENTIRE_E2E_CACHE``, or the user's cache."""
    if os.environ.get("ENTIRE_E2E_CACHE"):
        return Path(os.environ["ENTIRE_E2E_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "entire-agents-e2e"


def in_loopback_namespace(argv: list[str]) -> list[str]:
    """``argv`` run inside a fresh loopback-only network namespace."""
    return [*LOOPBACK_ONLY, *argv]


def loopback_namespace_problem() -> str | None:
    """Why a loopback-only namespace cannot be made here (one line), or None."""
    if shutil.which("unshare") is None:
        return "needs unshare -n (Linux network namespaces)"
    try:
        done = subprocess.run(in_loopback_namespace(["true"]), capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`unshare -n` cannot run: {exc}"
    if done.returncode != 0:
        reason = " ".join(done.stderr.decode(errors="replace").split())
        return f"cannot create a loopback-only network namespace (`unshare -n`, `ip link`): {reason}; run as root"
    return None


def require_loopback_namespace() -> None:
    """Raise ``Unavailable`` unless a loopback-only namespace can be made here."""
    problem = loopback_namespace_problem()
    if problem:
        raise Unavailable(problem)


def npm_tool(package: str, version: str, binary: str) -> Path:
    """The ``binary`` of npm ``package@version``, installed into the cache on first use.

    npm installs into a staging directory renamed into place when done (``node_modules/.bin`` links
    are relative, so the tree can move).
    """
    target = cache_dir() / f"{package.rsplit('/', 1)[-1]}-{version}"
    found = target / "node_modules" / ".bin" / binary
    if found.exists():
        return found
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable(f"needs npm to install {package}@{version}")
    staging = target.with_name(f"{target.name}.tmp-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    argv = [npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund", "--loglevel=error",
            f"{package}@{version}"]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, timeout=900, check=False)
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise Unavailable(
            f"npm install {package}@{version} failed", done.stderr.decode(errors="replace")[-3000:]
        )
    if target.exists():  # another run finished first
        shutil.rmtree(staging, ignore_errors=True)
    else:
        staging.rename(target)
    return found


def pypi_tool(package: str, version: str) -> Path:
    """The ``bin`` directory of a virtual environment with PyPI ``package==version``, made on first use.

    A virtual environment cannot be moved (its scripts name their interpreter by absolute path), so
    it is built in place and a ``.complete`` marker, written last, says that it is finished.
    """
    target = cache_dir() / f"{package}-{version}"
    venv = target / "venv"
    if not (target / ".complete").exists():
        target.mkdir(parents=True, exist_ok=True)
        for argv in ([sys.executable, "-m", "venv", "--clear", str(venv)],
                     [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", f"{package}=={version}"]):  # fmt: skip
            done = subprocess.run(argv, capture_output=True, timeout=900, check=False)
            if done.returncode != 0:
                raise Unavailable(
                    f"installing {package}=={version} failed ({argv[2]})",
                    done.stderr.decode(errors="replace")[-3000:],
                )
        (target / ".complete").touch()
    return venv / "bin"


def paths_under(*roots: str | Path) -> set[str]:
    """Every file, folder and link under ``roots`` (links are not followed), as strings."""
    found: set[str] = set()
    for root in roots:
        for folder, dirs, files in os.walk(root):
            found.update(os.path.join(folder, name) for name in [*dirs, *files])
    return found


SQLITE_SIDECARS = ("-wal", "-shm", "-journal")
"""Files an SQLite database keeps beside itself while it is open, made and removed with its connections."""


def left_behind(before: set[str], after: set[str]) -> list[str]:
    """What ``after`` has that ``before`` had not (``paths_under`` of the same roots, before and after a run).

    An SQLite database's own sidecar files (``-wal``, ``-shm``, ``-journal``) are no new thing when the
    database was there before: they come and go with whoever has it open (Codex's state databases).
    """
    new = after - before
    return sorted(
        path for path in new if not (path.endswith(SQLITE_SIDECARS) and path.rsplit("-", 1)[0] in before)
    )
