"""Byte identity of the front (``entire_core.front``) and the Python path, over hostile input.

``differences`` writes an agent's front into a directory, runs every case through it and through
Python (the command the front hands off to), and names each case whose exit status or stdout differ.
It also runs the cases the front must answer by itself through a front whose Python does not exist:
a front that handed everything to Python would pass the first check and fail this one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from entire_core import front
from entire_core.agent import Agent


@dataclass(frozen=True)
class Case:
    """One call: its arguments, what it changes in the environment (None: unset), and whether the front
    must answer it without Python."""

    name: str
    args: tuple[bytes, ...]
    env: dict[str, bytes | None] = field(default_factory=dict[str, "bytes | None"])
    front_answers: bool = False


def _dirs(root: Path) -> dict[str, bytes]:
    """Repository paths, made under ``root``: names keyed by what is odd about them."""
    made: dict[str, bytes] = {}
    base = os.fsencode(root)
    for key, name in {
        "plain": b"repo",
        "space": b"my repo",
        "punctuation": b"a+b@c~d,e:f=g%h.i_j-k",
        "long": b"r" * 30 + b"-" + b"s" * 30,
        "single quote": b"it's",
        "double quote": b'say "hi"',
        "backslash": b"back\\slash",
        "newline": b"new\nline",
        "dollar": b"$HOME`x`",
        "glob": b"star*[ab]?",
        "non-utf-8": b"caf\xe9",
        "unicode": "café".encode(),
        "unicode digit": "repo\u0663".encode(),
    }.items():
        path = base + b"/" + name
        os.makedirs(path, exist_ok=True)
        made[key] = path
    os.symlink(made["plain"], base + b"/link")
    made["symlink"] = base + b"/link"
    os.symlink(made["space"], base + b"/plainlink")
    made["symlink to a space"] = base + b"/plainlink"
    os.symlink(base + b"/loop", base + b"/loop")
    made["symlink loop"] = base + b"/loop"
    made["missing"] = base + b"/no-such-dir"
    made["trailing slash"] = made["plain"] + b"/"
    made["dot component"] = base + b"/./repo"
    made["double slash"] = b"/" + base
    made["dotdot"] = base + b"/repo/../repo"
    made["root"] = b"/"
    made["relative"] = b"repo"
    made["empty"] = b""
    (root / "file").write_bytes(b"")
    made["a file"] = base + b"/file"
    return made


def cases(root: Path) -> list[Case]:
    """Every case, its directories made under ``root``."""
    dirs = _dirs(root)
    safe = {"plain", "space", "punctuation", "long", "symlink", "symlink to a space", "trailing slash",
            "dot component", "root"}  # fmt: skip
    found = [
        Case(f"get-session-dir {key}", (b"get-session-dir", b"--repo-path", path), front_answers=key in safe)
        for key, path in dirs.items()
    ]
    plain = dirs["plain"]
    state = os.fsencode(root / "state")
    environments: list[tuple[str, dict[str, bytes | None], bool]] = [
        ("XDG_STATE_HOME unset", {"XDG_STATE_HOME": None}, True),
        ("XDG_STATE_HOME empty", {"XDG_STATE_HOME": b""}, True),
        ("XDG_STATE_HOME relative", {"XDG_STATE_HOME": b"state"}, True),
        ("XDG_STATE_HOME trailing slash", {"XDG_STATE_HOME": state + b"/"}, True),
        ("XDG_STATE_HOME two trailing slashes", {"XDG_STATE_HOME": state + b"//"}, True),
        ("XDG_STATE_HOME with a space", {"XDG_STATE_HOME": state + b" x"}, True),
        ("XDG_STATE_HOME with a quote", {"XDG_STATE_HOME": state + b'"x'}, False),
        ("XDG_STATE_HOME not UTF-8", {"XDG_STATE_HOME": state + b"\xff"}, False),
        ("HOME and XDG unset", {"XDG_STATE_HOME": None, "HOME": None}, False),
        ("HOME empty", {"XDG_STATE_HOME": None, "HOME": b""}, False),
        ("HOME root", {"XDG_STATE_HOME": None, "HOME": b"/"}, True),
        ("HOME trailing slash", {"XDG_STATE_HOME": None, "HOME": os.fsencode(root) + b"/"}, True),
        ("HOME relative", {"XDG_STATE_HOME": None, "HOME": b"home"}, True),
        ("HOME with a backslash", {"XDG_STATE_HOME": None, "HOME": os.fsencode(root) + b"/a\\b"}, False),
        ("USERPROFILE only", {"XDG_STATE_HOME": None, "HOME": None, "USERPROFILE": os.fsencode(root)}, False),
        ("ENTIRE_REPO_ROOT elsewhere", {"ENTIRE_REPO_ROOT": dirs["space"]}, True),
    ]
    for key, env, answers in environments:
        found.append(
            Case(f"get-session-dir, {key}", (b"get-session-dir", b"--repo-path", plain), env, answers)
        )
    for args, answers in [
        ((b"info",), True),
        ((b"--version",), True),
        ((b"version",), True),
        ((b"-version",), True),
        ((b"info", b"extra"), False),
        ((b"info", b"--help"), False),
        ((b"--help",), False),
        ((), False),
        ((b"no-such-subcommand",), False),
        ((b"get-session-dir",), False),
        ((b"get-session-dir", b"--repo-path"), False),
        ((b"get-session-dir", b"--repo-path=" + plain), False),
        ((b"get-session-dir", b"-repo-path", plain), False),
        ((b"get-session-dir", b"--repo-path", plain, b"--extra"), False),
        ((b"get-session-dir", b"--no-such-flag", plain), False),
    ]:
        found.append(Case(" ".join(a.decode("utf-8", "replace") for a in args) or "(nothing)", args,
                          front_answers=answers))  # fmt: skip
    return found


def shells() -> list[str]:
    """The POSIX shells here to run the front under: ``/bin/sh`` and whichever of dash, bash and busybox
    is another program."""
    found = {os.path.realpath("/bin/sh"): "/bin/sh"}
    for name in ("dash", "bash", "busybox"):
        path = shutil.which(name)
        if path and os.path.realpath(path) not in found:
            found[os.path.realpath(path)] = f"{path} sh" if name == "busybox" else path
    return list(found.values())


def _run(argv: list[bytes], case: Case, env: dict[str, str], cwd: Path) -> tuple[int, bytes]:
    """Exit status and stdout of ``argv`` with the case's changes to ``env``, made by ``env(1)``: a
    variable unset or emptied stays so (the test harness gives a process without ``HOME`` its own)."""
    changes = [b"env"]
    for key, value in case.env.items():
        changes += [b"-u", key.encode()] if value is None else [key.encode() + b"=" + value]
    done = subprocess.run(changes + argv, env=env, cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL,
                          timeout=60, check=False)  # fmt: skip
    return done.returncode, done.stdout


def installed_dist(path: Path) -> Path:
    """A package's ``.dist-info`` directory at ``path``, installed long before any front is written."""
    path.mkdir(parents=True)
    (path / "RECORD").write_bytes(b"")
    os.utime(path / "RECORD", (1_000_000_000, 1_000_000_000))
    return path


def write_front(
    agent_cls: type[Agent], python: str, path: Path, dist: Path, site: tuple[str, ...] | None = None
) -> Path:
    """The front of ``agent_cls`` written at ``path`` (executable), handing calls to ``python``."""
    path.write_text(front.script(agent_cls, python, str(path), (str(dist),), site), encoding="utf-8")
    path.chmod(0o755)
    return path


def differences(agent_cls: type[Agent], root: Path, base_env: dict[str, str]) -> list[str]:
    """Each case (per shell) whose exit status or stdout differ between the front and Python."""
    package = agent_cls.__module__.split(".")[0]
    dist = installed_dist(root / "dist-info")
    python = [os.fsencode(sys.executable), b"-P", b"-c", f"from {package} import main; main()".encode()]
    fronts: dict[str, Path] = {}
    # The front hands calls to a Python started without site (-S), given the directories our packages and
    # their dependencies are in, as front.site_path bakes them: its answers must be the full Python's too.
    import site

    import entire_core

    homes = [sys.modules[package].__file__ or "", entire_core.__file__ or ""]
    site_dirs = tuple(
        dict.fromkeys([*(os.path.dirname(os.path.dirname(h)) for h in homes), *site.getsitepackages()])
    )
    for kind, interpreter in (("front", sys.executable), ("alone", "/nonexistent/python")):
        fronts[kind] = write_front(agent_cls, interpreter, root / kind, dist, site_dirs)
    work = root / "cases"
    work.mkdir()
    problems: list[str] = []
    from entire_core.agent import Agent as BaseAgent

    agent = agent_cls()
    views = agent.view_format() is not None and type(agent).get_session_dir is BaseAgent.get_session_dir
    for case in cases(work):
        expected = _run(python + list(case.args), case, base_env, work)
        # Without views, get-session-dir is the agent's own: Python answers it, so "alone" fails there.
        alone = case.front_answers and (views or case.args[:1] != (b"get-session-dir",))
        for shell in shells():
            for kind in ("front", "alone") if alone else ("front",):
                argv = [*map(os.fsencode, shell.split()), os.fsencode(fronts[kind]), *case.args]
                got = _run(argv, case, base_env, work)
                if got != expected:
                    problems.append(f"{case.name} under {shell} ({kind}): {got!r} != Python's {expected!r}")
    return problems
