"""Run a plugin the way the Entire CLI does: in-process for speed, or as a real console script.

Both runners give every call the environment the compliance suite gives it (``ENTIRE_PROTOCOL_VERSION``,
``ENTIRE_REPO_ROOT``, and a private HOME, XDG and TMP tree) with ``cwd`` at the repository root.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from entire_core.agent import Agent
from entire_core.testing.hostile import CANARY_ENV

KEPT_ENV = ("PATH", "LANG", "LC_ALL", "SYSTEMROOT", "COMSPEC", "PATHEXT", CANARY_ENV)


class Result:
    """What one call printed and how it exited."""

    def __init__(self, args: list[str], code: int, stdout: bytes, stderr: bytes) -> None:
        self.args = args
        self.code = code
        self.stdout = stdout
        self.stderr = stderr

    @property
    def text(self) -> str:
        """stdout decoded as UTF-8."""
        return self.stdout.decode("utf-8")

    @property
    def error(self) -> str:
        """stderr decoded as UTF-8."""
        return self.stderr.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """stdout decoded as exactly one JSON value."""
        return json.loads(self.stdout)

    def __repr__(self) -> str:
        return f"Result({self.args!r}, code={self.code}, stdout={self.stdout[:300]!r}, stderr={self.stderr[:300]!r})"


class Sandbox:
    """A repository root and a private home for one test: paths and the environment to run with."""

    def __init__(self, root: Path, *, extra_env: dict[str, str] | None = None) -> None:
        self.root = root
        self.repo = root / "repo"
        self.home = root / "home"
        for path in (
            self.repo,
            self.home,
            root / "xdg-config",
            root / "xdg-cache",
            root / "xdg-data",
            root / "tmp",
        ):
            path.mkdir(parents=True, exist_ok=True)
        self.env: dict[str, str] = {k: os.environ[k] for k in KEPT_ENV if k in os.environ}
        self.env.update(
            {
                "ENTIRE_PROTOCOL_VERSION": "1",
                "ENTIRE_REPO_ROOT": str(self.repo),
                "HOME": str(self.home),
                "USERPROFILE": str(self.home),
                "XDG_CONFIG_HOME": str(root / "xdg-config"),
                "XDG_CACHE_HOME": str(root / "xdg-cache"),
                "XDG_DATA_HOME": str(root / "xdg-data"),
                "TMPDIR": str(root / "tmp"),
                "TMP": str(root / "tmp"),
                "TEMP": str(root / "tmp"),
            }
        )
        if extra_env:
            self.env.update(extra_env)

    def git_init(self) -> None:
        """Make the repository a git repository, as every repository Entire records in is (no commit)."""
        import subprocess

        subprocess.run(["git", "init", "-q", "--template=", str(self.repo)], env={**self.env, "GIT_CONFIG_NOSYSTEM": "1"},
                       check=True, capture_output=True)  # fmt: skip

    def snapshot(self) -> dict[str, bytes]:
        """Every file and directory under the repo, the home, the XDG homes and TMPDIR, with file bytes: to
        prove what a call changed, and that an uninstall leaves nothing of ours anywhere."""
        files: dict[str, bytes] = {}
        bases = (
            self.repo,
            self.home,
            *(self.root / d for d in ("xdg-config", "xdg-cache", "xdg-data", "tmp")),
        )
        for base in bases:
            for path in sorted(base.rglob("*")):
                key = str(path.relative_to(self.root))
                if path.is_symlink():
                    files[key] = b"<link> " + os.readlink(path).encode()
                elif path.is_dir():
                    files[key] = b"<dir>"
                else:
                    files[key] = path.read_bytes()
        return files


class InProcessRunner:
    """Calls ``entire_core.cli.run`` in this process with real file descriptors 0, 1 and 2 swapped in."""

    def __init__(self, agent_cls: type[Agent], sandbox: Sandbox) -> None:
        self.agent_cls = agent_cls
        self.sandbox = sandbox

    def __call__(self, *args: str, stdin: bytes = b"") -> Result:
        from entire_core.cli import run

        argv = list(args)
        with (
            tempfile.TemporaryFile() as fin,
            tempfile.TemporaryFile() as fout,
            tempfile.TemporaryFile() as ferr,
        ):
            fin.write(stdin)
            fin.seek(0)
            sys.stdout.flush()
            sys.stderr.flush()
            saved_fds = [os.dup(0), os.dup(1), os.dup(2)]
            saved_streams = (sys.stdin, sys.stdout, sys.stderr)
            saved_env = dict(os.environ)
            saved_cwd = os.getcwd()
            try:
                for fd, f in ((0, fin), (1, fout), (2, ferr)):
                    os.dup2(f.fileno(), fd)
                sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
                sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
                sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
                os.environ.clear()
                os.environ.update(self.sandbox.env)
                os.chdir(self.sandbox.repo)
                try:
                    code = run(self.agent_cls, argv)
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os.chdir(saved_cwd)
                os.environ.clear()
                os.environ.update(saved_env)
                sys.stdin, sys.stdout, sys.stderr = saved_streams
                for fd, saved in zip((0, 1, 2), saved_fds, strict=True):
                    os.dup2(saved, fd)
                    os.close(saved)
            fout.seek(0)
            ferr.seek(0)
            return Result(argv, code, fout.read(), ferr.read())


class ScriptRunner:
    """Runs an installed console script as the Entire CLI does: a new process per call, no shell."""

    def __init__(self, script: str, sandbox: Sandbox, *, timeout: float = 30.0) -> None:
        self.script = script
        self.sandbox = sandbox
        self.timeout = timeout

    def __call__(self, *args: str, stdin: bytes | None = b"") -> Result:
        argv = [self.script, *args]
        proc = subprocess.run(
            argv,
            input=stdin if stdin is not None else None,
            stdin=subprocess.DEVNULL if stdin is None else None,
            capture_output=True,
            cwd=self.sandbox.repo,
            env=self.sandbox.env,
            timeout=self.timeout,
            check=False,
        )
        return Result(list(args), proc.returncode, proc.stdout, proc.stderr)


def write_launcher(directory: Path, agent_name: str, target: str, *, python: str | None = None) -> Path:
    """Write an ``entire-agent-<name>`` executable calling ``module:function``, as a console script does."""
    module, _, function = target.partition(":")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"entire-agent-{agent_name}"
    interpreter = python or sys.executable
    # Written aside and renamed: parallel test workers may write the same launcher while another runs it.
    staging = directory / f".{path.name}.{os.getpid()}.tmp"
    staging.write_text(
        f"#!{interpreter}\nimport sys\nfrom {module} import {function}\nsys.exit({function}())\n"
    )
    staging.chmod(0o755)
    os.replace(staging, path)
    return path


HEAVY_MODULES = ("pydantic", "pydantic_core", "tomlkit", "yaml", "ruamel", "filelock", "portalocker",
                 "importlib.metadata")  # fmt: skip
"""Modules the hot subcommands (info, --help, detect, get-transcript-position, parse-hook) must not import.

The OS lock primitives (``fcntl``, ``msvcrt``) are not here: they are small C modules, and
``entire_core.locks`` uses them on the hook path."""


def importtime_modules(stderr: bytes) -> set[str]:
    """The modules named in ``python -X importtime`` output (``PYTHONPROFILEIMPORTTIME=1`` writes the same)."""
    modules: set[str] = set()
    for line in stderr.decode(errors="replace").splitlines():
        if line.startswith("import time:") and "|" in line:
            modules.add(line.rsplit("|", 1)[1].strip())
    return modules


def interpreter_of(script: Path) -> str:
    """The interpreter a console script's ``#!`` line names."""
    return script.read_text(encoding="utf-8").splitlines()[0].removeprefix("#!").strip()


def imported_modules(
    script: Path, args: list[str], sandbox: Sandbox, *, stdin: bytes = b"", code: str | None = None
) -> set[str]:
    """Every module a console script run imports, from ``python -X importtime``.

    With ``code``, the script's interpreter runs ``python -c code`` instead (a baseline to subtract).
    """
    command = ["-c", code] if code is not None else [str(script), *args]
    proc = subprocess.run(
        [interpreter_of(script), "-X", "importtime", *command],
        input=stdin, capture_output=True, cwd=sandbox.repo, env=sandbox.env, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
    return importtime_modules(proc.stderr)


def heavy_imports(modules: set[str]) -> set[str]:
    """The members of ``modules`` that belong to ``HEAVY_MODULES``."""
    return {m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY_MODULES)}
