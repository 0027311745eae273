"""Tests that cannot reach the machine they run on: a throwaway home for every process, none left behind.

The pytest plugin (``entire_core.testing.pytest_plugin``) applies all of this once per test process:

- ``isolate(root)`` points ``HOME``, the XDG homes and ``TMPDIR`` of this process, and so of every process
  it starts, into ``root``. The caches of the tools the tests install with (uv, pip, npm, Go, the pinned
  agents of the end-to-end tests) and pyenv's shims keep their real places, each named by its own
  variable, so nothing is downloaded twice and ``uv`` still runs.
- ``GroupedPopen`` replaces ``subprocess.Popen``: every process a test starts leads a process group of
  its own, killing it (as a timeout of ``subprocess.run`` does) kills the whole group, and it refuses
  to start a process whose home, XDG homes, temporary directory or working directory lie outside a
  temporary directory.
- ``end_orphaned_groups()`` runs after each test: what is left of a group whose leader has exited is
  killed, so no grandchild outlives its test. ``end_all_groups()`` runs at the end of the session.

A quoting bug that makes a shell run a hostile test string then finds a home that is thrown away, and
its process tree ends with the test.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CONFINED = ("HOME", "USERPROFILE", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
            "TMPDIR", "TMP", "TEMP")  # fmt: skip
"""Variables that name where a process writes, which must lie inside a temporary directory."""

ISOLATED_MARK = "ENTIRE_TEST_ISOLATED"
"""Set to the isolated root once a process is isolated; its workers (pytest-xdist) inherit it."""
SYSTEM_TMP_MARK = "ENTIRE_TEST_SYSTEM_TMPDIR"
"""The system's temporary directory from before the isolation (pytest's own temporary paths are there)."""

GIT_IDENTITY = "[user]\n\tname = Entire tests\n\temail = tests@example.invalid\n"
"""The throwaway home's ``.gitconfig``: commits in test repositories need an author."""


class UnconfinedProcess(RuntimeError):
    """A test tried to start a process that could write outside a temporary directory."""


def kept_locations(environ: Mapping[str, str]) -> dict[str, str]:
    """Where the real caches and tool homes are, as the variables that name them, before ``HOME`` moves.

    Only variables that are not set already, and for pyenv only when its root exists (its shims read
    ``$PYENV_ROOT`` or ``~/.pyenv``).
    """
    home = environ.get("HOME") or os.path.expanduser("~")
    cache = environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    wanted = {
        "UV_CACHE_DIR": os.path.join(cache, "uv"),
        "PIP_CACHE_DIR": os.path.join(cache, "pip"),
        "npm_config_cache": os.path.join(home, ".npm"),
        "GOPATH": os.path.join(home, "go"),
        "GOCACHE": os.path.join(cache, "go-build"),
        "ENTIRE_E2E_CACHE": os.path.join(cache, "entire-agents-e2e"),
    }
    if os.path.isdir(os.path.join(home, ".pyenv")):
        wanted["PYENV_ROOT"] = os.path.join(home, ".pyenv")
    return {name: value for name, value in wanted.items() if not environ.get(name)}


def isolated_environ(root: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` with every confined variable inside ``root`` and the real caches kept by name."""
    env = dict(environ)
    env.update(kept_locations(environ))
    home, tmp = root / "home", root / "tmp"
    env.update({"HOME": str(home), "USERPROFILE": str(home), "TMPDIR": str(tmp), "TMP": str(tmp),
                "TEMP": str(tmp), "XDG_CONFIG_HOME": str(root / "xdg-config"),
                "XDG_CACHE_HOME": str(root / "xdg-cache"), "XDG_DATA_HOME": str(root / "xdg-data"),
                "XDG_STATE_HOME": str(root / "xdg-state"), ISOLATED_MARK: str(root),
                SYSTEM_TMP_MARK: environ.get(SYSTEM_TMP_MARK) or tempfile.gettempdir()})  # fmt: skip
    return env


def isolate(root: Path) -> None:
    """Move this process's home, XDG homes and temporary directory into ``root`` (made here)."""
    env = isolated_environ(root, os.environ)
    for name in ("HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        Path(env[name]).mkdir(parents=True, exist_ok=True)
    (root / "home" / ".gitconfig").write_text(GIT_IDENTITY)
    os.environ.clear()
    os.environ.update(env)


_CONFINING: list[bool] = [False]
"""Whether processes started now are a test's (between a test's setup and teardown)."""


def confine(on: bool) -> None:
    """Start (or stop) treating new processes as a test's: grouped, and refused outside temporary directories."""
    _CONFINING[0] = on


_TEMP_ROOTS: list[str] = []
"""Directories inside which a test's processes may write: the system's temporary directory and the root."""

_KEPT_OUT: list[str] = []
"""Directories a test's processes may not name even inside a temporary directory: the checkout under
test, which a clone in ``/tmp`` puts inside the system's temporary directory."""


def allow_under(*directories: str | Path) -> None:
    """Let processes name paths under these directories (``isolate``'s root, the system temp directory)."""
    _add(_TEMP_ROOTS, directories)


def keep_out_of(*directories: str | Path) -> None:
    """Refuse paths under these directories (the checkout), unless a nearer allowed directory holds them."""
    _add(_KEPT_OUT, directories)


def _add(bases: list[str], directories: tuple[str | Path, ...]) -> None:
    for directory in directories:
        real = os.path.realpath(directory)
        if real not in bases:
            bases.append(real)


def inside_temp(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` lies strictly inside an allowed temporary directory, and not in a kept-out one.

    Where both hold a path, the nearer one decides: the checkout in ``/tmp`` is kept out, the session's
    root is allowed even if the system's temporary directory were inside the checkout.
    """
    real: str = os.path.realpath(os.fspath(path))
    return _nearest(real, _TEMP_ROOTS, itself=False) > _nearest(real, _KEPT_OUT, itself=True)


def _nearest(real: str, bases: list[str], *, itself: bool) -> int:
    """The length of the longest of ``bases`` that holds ``real`` (or is it, with ``itself``); -1 if none."""
    return max(
        (
            len(base)
            for base in bases
            if real.startswith(base.rstrip(os.sep) + os.sep) or (itself and real == base)
        ),
        default=-1,
    )


def confinement_problem(env: Mapping[str, str] | None, cwd: str | os.PathLike[str] | None) -> str | None:
    """Why a process started with ``env`` (None: this process's) and ``cwd`` is not confined, or None."""
    if not _TEMP_ROOTS:
        return None
    names = os.environ if env is None else env
    for name in CONFINED:
        value = names.get(name)
        if value and not inside_temp(value):
            return f"{name}={value}"
    where = os.getcwd() if cwd is None else os.fspath(cwd)
    if not inside_temp(where):
        return f"working directory {where}"
    return None


def confined_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with this process's ``HOME`` where it names none.

    A process without ``HOME`` finds the real one in the password database. Without an XDG home it
    falls back inside ``HOME``, and without ``TMPDIR`` to the system's temporary directory: both stay
    confined, and the code under test sees the fallbacks it would see.
    """
    if env.get("HOME") or "HOME" not in os.environ:
        return dict(env)
    return {**env, "HOME": os.environ["HOME"]}


_GROUPS: list[GroupedPopen] = []
"""Processes started as group leaders by this process, whose groups may still have members."""


class GroupedPopen(subprocess.Popen):  # type: ignore[type-arg]
    """``subprocess.Popen`` whose process leads its own group, which ``kill`` and ``terminate`` end whole.

    A caller that chooses its own session or group (``start_new_session``, ``process_group``,
    ``preexec_fn``) keeps its choice and the ordinary ``kill``.
    """

    def __init__(self, args: Any, *rest: Any, **kwargs: Any) -> None:
        if not _CONFINING[0]:  # pytest's own processes (xdist workers), outside any test
            self._leads_group = False
            super().__init__(args, *rest, **kwargs)
            return
        if not rest:  # every call in this workspace passes the options by name
            env = kwargs.get("env")
            if env is not None:
                kwargs["env"] = env = confined_env(env)
            problem = confinement_problem(env, kwargs.get("cwd"))
            if problem:
                raise UnconfinedProcess(
                    f"a test may not start {args!r} with {problem}: outside a temporary directory"
                )
        self._leads_group = (
            os.name == "posix"
            and not rest
            and not ({"start_new_session", "process_group", "preexec_fn"} & kwargs.keys())
        )
        if self._leads_group:
            kwargs["start_new_session"] = True
        super().__init__(args, *rest, **kwargs)
        if self._leads_group:
            _GROUPS.append(self)

    def send_signal(self, sig: int) -> None:
        if self._leads_group:
            self.poll()  # reaps an exited leader, so its group is signalled only while members remain
            _signal_group(self.pid, sig)
        else:
            super().send_signal(sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def _signal_group(pgid: int, sig: int) -> bool:
    """Signal every process in group ``pgid``; False when the group has no members left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed its user; nothing of ours is left to stop
        return False
    return True


def end_orphaned_groups() -> int:
    """Kill what is left of every group whose leader has exited; the number of groups that had members."""
    ended = 0
    for leader in list(_GROUPS):
        if leader.poll() is None:
            continue  # still running: a fixture's server, say; its group ends with it or with the session
        _GROUPS.remove(leader)
        if _signal_group(leader.pid, signal.SIGKILL):
            ended += 1
    return ended


def end_all_groups() -> None:
    """Kill every group this process started, leaders included (the end of a test session)."""
    for leader in list(_GROUPS):
        _GROUPS.remove(leader)
        _signal_group(leader.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            leader.wait(timeout=5)
