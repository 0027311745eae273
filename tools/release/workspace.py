"""The uv workspace as the release tools see it: its members, their versions and where those live.

Standard library only, so that ``bump.py`` runs with any Python 3.11 and nothing installed.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import sys
import tomllib
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import Any, cast

CORE = "entire-core"
"""The distribution every agent depends on; its version is the reference when versions disagree."""
PRIVATE_CLASSIFIER = "Private :: Do Not Upload"
"""PyPI refuses any upload carrying this classifier; our never-released tools carry it."""
AGENT_GROUP = "entire.agents"
"""The entry-point group every agent package registers its Agent class in."""


def normalize(name: str) -> str:
    """A distribution name in PEP 503 normal form: ``Entire_Core`` -> ``entire-core``."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass
class Member:
    """One workspace member (a directory with a pyproject.toml) and what the release tools read from it."""

    root: Path
    path: Path
    name: str
    version: str
    private: bool
    module: str
    agents: list[str]
    data: dict[str, Any] = field(repr=False)

    @property
    def rel(self) -> str:
        """The member's directory relative to the workspace root, with ``/`` separators."""
        return self.path.relative_to(self.root).as_posix()

    @property
    def pyproject(self) -> Path:
        """The member's pyproject.toml."""
        return self.path / "pyproject.toml"

    @property
    def init_file(self) -> Path:
        """``<module-root>/<module>/__init__.py``, where the static ``__version__`` lives."""
        backend = _table(_table(_table(self.data, "tool"), "uv"), "build-backend")
        module_root = str(backend.get("module-root", "src"))
        return self.path / module_root / Path(*self.module.split(".")) / "__init__.py"

    def requirements(self) -> list[str]:
        """Every requirement string of ``[project] dependencies`` and ``[project.optional-dependencies]``."""
        project = _table(self.data, "project")
        found = [str(r) for r in cast("list[object]", project.get("dependencies", []))]
        for extra in _table(project, "optional-dependencies").values():
            found += [str(r) for r in cast("list[object]", extra)]
        return found


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return cast("dict[str, Any]", value) if isinstance(value, dict) else {}


def load_toml(path: Path) -> dict[str, Any]:
    """A TOML file parsed; a missing or broken file raises ValueError naming it."""
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}") from None


def members(root: Path) -> list[Member]:
    """The workspace members the root pyproject.toml lists, in path order."""
    workspace = _table(_table(_table(load_toml(root / "pyproject.toml"), "tool"), "uv"), "workspace")
    patterns = [str(p) for p in cast("list[object]", workspace.get("members", []))]
    excluded = {
        Path(p).resolve()
        for pattern in cast("list[object]", workspace.get("exclude", []))
        for p in glob.glob(str(root / str(pattern)))
    }
    paths = sorted(
        {
            Path(p).resolve()
            for pattern in patterns
            for p in glob.glob(str(root / pattern))
            if (Path(p) / "pyproject.toml").is_file()
        }
        - excluded
    )
    return [_member(root.resolve(), path) for path in paths]


def _member(root: Path, path: Path) -> Member:
    data = load_toml(path / "pyproject.toml")
    project = _table(data, "project")
    name = normalize(str(project.get("name", "")))
    classifiers = [str(c) for c in cast("list[object]", project.get("classifiers", []))]
    backend = _table(_table(_table(data, "tool"), "uv"), "build-backend")
    module = str(backend.get("module-name") or name.replace("-", "_"))
    groups = _table(project, "entry-points")
    agents = sorted(str(k) for k in _table(groups, AGENT_GROUP))
    return Member(
        root=root,
        path=path,
        name=name,
        version=str(project.get("version", "")),
        private=PRIVATE_CLASSIFIER in classifiers,
        module=module,
        agents=agents,
        data=data,
    )


def published(root: Path) -> list[Member]:
    """The members that are released: every one without the ``Private :: Do Not Upload`` classifier."""
    return [m for m in members(root) if not m.private]


def uv_command() -> list[str] | None:
    """How to run uv: ``$UV`` (set inside ``uv run``), ``uv`` on PATH, or ``python -m uv``."""
    if os.environ.get("UV"):
        return [os.environ["UV"]]
    if found := shutil.which("uv"):
        return [found]
    if find_spec("uv") is not None:
        return [sys.executable, "-m", "uv"]
    return None
