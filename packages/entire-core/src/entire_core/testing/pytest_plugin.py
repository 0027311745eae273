"""Fixtures every agent package's tests share, and the rules that keep every test off the machine it runs on.

Load it with ``pytest_plugins = ["entire_core.testing.pytest_plugin"]`` in a root conftest.py (this
workspace does) or ``-p entire_core.testing.pytest_plugin``. It is not registered as an entry point,
so installing entire-core never adds fixtures to someone else's test session.

- ``sandbox``: a ``Sandbox`` in ``tmp_path``: a repository root and a private HOME, XDG and TMP tree.
- ``make_agent``: ``make_agent(AgentClass, **env)`` is the agent in that sandbox, its repository a fresh
  git repository, with extra environment (``CODEX_HOME=...``) on top of the sandbox's.
- ``force_platform`` / ``windows``: ``sys.platform`` forced (``"win32"``) for the code paths of another
  OS, while ``entire_core.locks`` keeps this OS's file locks, so the code still runs for real here.
- ``imports``: ``imports(script, *args, stdin=b"")`` is the set of modules one run of a console script
  imported (``python -X importtime``), each run in a fresh sandbox; ``heavy(modules)`` names the heavy
  ones. ``launcher(name, "module:function")`` writes a console script that runs this checkout.

For every test, without asking (``entire_core.testing.isolation``):

- the session's HOME, XDG homes and TMPDIR are a throwaway directory (the real caches of uv, pip, npm,
  Go and the end-to-end agents keep their places, named by their own variables);
- each test runs in a working directory of its own, and ``$ENTIRE_TEST_CANARY`` names a file there that
  the hostile payloads of ``entire_core.testing.hostile`` create if a shell ever runs one: the test
  fails when it exists;
- every process a test starts leads its own process group, a timeout or ``kill()`` ends the whole
  group, a process may not be given a home, XDG home, temporary or working directory outside a
  temporary directory, and what is left of a group when its leader has exited is killed after the test.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Generator
from pathlib import Path
from types import SimpleNamespace
from typing import Protocol, TypeVar

import pytest

from entire_core.agent import Agent
from entire_core.testing import isolation
from entire_core.testing.hostile import CANARY_ENV
from entire_core.testing.runner import Sandbox, heavy_imports, imported_modules, write_launcher

A = TypeVar("A", bound=Agent)


class MakeAgent(Protocol):
    def __call__(self, agent_cls: type[A], /, *, git: bool = True, **env: str) -> A: ...


class Imports(Protocol):
    def __call__(self, script: Path, /, *args: str, stdin: bytes = b"") -> set[str]: ...


_SESSION: dict[str, Path] = {}
"""``root``: this session's throwaway directory; ``owned`` is set where this process made it (not an xdist worker)."""


def pytest_configure(config: pytest.Config) -> None:
    inherited = os.environ.get(isolation.ISOLATED_MARK)
    if inherited:  # an xdist worker: its controller isolated the environment it inherited
        root = Path(inherited)
    else:
        root = Path(tempfile.mkdtemp(prefix="entire-tests-"))
        isolation.isolate(root)
        _SESSION["owned"] = root
    _SESSION["root"] = root
    isolation.allow_under(os.environ[isolation.SYSTEM_TMP_MARK], root)
    isolation.keep_out_of(config.rootpath)  # the checkout, even when it is a clone in /tmp
    subprocess.Popen = isolation.GroupedPopen  # subprocess.run and friends look it up at each call


def pytest_unconfigure(config: pytest.Config) -> None:
    isolation.end_all_groups()
    if "owned" in _SESSION:
        shutil.rmtree(_SESSION.pop("owned"), ignore_errors=True)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    """The test's own working directory and canary from its first setup hook to its last teardown."""
    work = Path(tempfile.mkdtemp(prefix="test-", dir=_SESSION["root"]))
    before = os.getcwd()
    os.chdir(work)
    os.environ[CANARY_ENV] = str(work / "CANARY")
    isolation.confine(True)
    try:
        return (yield)
    finally:
        isolation.confine(False)
        isolation.end_orphaned_groups()
        os.chdir(before)
        os.environ.pop(CANARY_ENV, None)
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(autouse=True)
def _canary() -> Generator[None, None, None]:
    """Fails the test whose hostile payload a shell ran: the canary file exists after it."""
    canary = Path(os.environ[CANARY_ENV])
    yield
    if canary.exists():
        pytest.fail(f"a hostile test payload ran in a shell: it created {canary}", pytrace=False)


def init_repository(repo: Path) -> None:
    """Make ``repo`` a git repository with one commit, as a user's project is."""
    env = {"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "T",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": "/usr/bin:/bin:/usr/local/bin"}  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "initial"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    """A repository root and a private home, XDG and TMP tree under ``tmp_path``."""
    return Sandbox(tmp_path)


@pytest.fixture
def make_agent(sandbox: Sandbox) -> MakeAgent:
    """Builds an agent whose every path (HOME, XDG homes, the repository) is in the sandbox."""

    def make(agent_cls: type[A], /, *, git: bool = True, **env: str) -> A:
        if git and not (sandbox.repo / ".git").exists():
            init_repository(sandbox.repo)
        return agent_cls(env={**sandbox.env, **env}, cwd=str(sandbox.repo))

    return make


@pytest.fixture
def force_platform(monkeypatch: pytest.MonkeyPatch) -> Callable[[str], None]:
    """``force_platform("win32")`` makes the code under test see that ``sys.platform`` until the test ends."""

    from entire_core import locks

    monkeypatch.setattr(locks, "sys", SimpleNamespace(platform=sys.platform))  # this OS's file locks

    def force(platform: str) -> None:
        monkeypatch.setattr(sys, "platform", platform)

    return force


@pytest.fixture
def windows(force_platform: Callable[[str], None]) -> None:
    """The test runs as if on Windows (``sys.platform == "win32"``)."""
    force_platform("win32")


@pytest.fixture
def imports(tmp_path: Path) -> Imports:
    """Runs a console script once per call, in a fresh sandbox (a git repository), and returns every module it imported."""
    runs = itertools.count(1)

    def run(script: Path, /, *args: str, stdin: bytes = b"") -> set[str]:
        sandbox = Sandbox(tmp_path / f"run-{next(runs)}")
        sandbox.git_init()  # install-hooks refuses outside a git repository, before it imports its editor
        return imported_modules(script, list(args), sandbox, stdin=stdin)

    return run


@pytest.fixture(scope="session")
def launcher(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str, str], Path]:
    """``launcher("google-gemini", "pkg:main")`` is an ``entire-agent-*`` script, as pip writes it."""
    made: dict[tuple[str, str], Path] = {}

    def write(name: str, target: str) -> Path:
        if (name, target) not in made:
            made[name, target] = write_launcher(tmp_path_factory.mktemp("bin"), name, target)
        return made[name, target]

    return write


def heavy(modules: set[str]) -> set[str]:
    """The heavy modules (pydantic, tomlkit, YAML, lock libraries, importlib.metadata) among ``modules``."""
    return heavy_imports(modules)
