"""``make new-agent NAME=<name>``: a new agent package, wired into the workspace, passing the contract kit.

Creates ``packages/agent-<name>`` from ``template/`` (the package with its console script and entry
point, its version from the package, one module per job: ``hooks.py``, ``events.py``, ``transcript.py``,
``compact.py``, ``view.py`` (the bounded view the CLI reads, on from the start), ``textgen.py``,
``paths.py``, ``doctor.py``, ``versions.py`` (its support window, a placeholder version); the contract
test subclass, the window's tests and a README stub), then adds it to the root ``pyproject.toml``, a
CHANGELOG line under "Unreleased", and the lock.
The lockstep tool (``tools/release/bump.py``) finds every workspace member itself; the new package
starts at entire-core's version with the requirement on entire-core that bump.py checks.

What is left to the agent's author is the agent's own knowledge: its config shape, its hook payloads,
its transcript format and the versions it is tested with (the README's "Adding an agent").

    uv run python tools/scaffold/new_agent.py <name> [--title "Display Name"] [--binary cmd]
        [--config-dir .folder] [--no-lock]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from string import Template

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tools" / "release"))  # bump.py and workspace.py are scripts, not a package

from bump import core_range  # noqa: E402
from workspace import CORE, members  # noqa: E402

NAME_RE = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
PUBLISHER_URL = "https://github.com/entireio/entire-agents-python"


class ScaffoldError(Exception):
    """A scaffold that cannot be made; the message is one line for the user."""


def check_name(name: str, title: str, root: Path) -> None:
    """Refuse names the Entire CLI would shadow or that clash with what the workspace has."""
    from entire_core.testing.cases import BUILTIN_NAMES, BUILTIN_TYPES

    if not NAME_RE.match(name):
        raise ScaffoldError(f"{name!r} is not a registry name: lowercase letters, digits and single hyphens")
    if name in BUILTIN_NAMES:
        raise ScaffoldError(
            f"{name!r} is a built-in agent of the Entire CLI, which would never run this plugin"
        )
    if title in BUILTIN_TYPES:
        raise ScaffoldError(f"{title!r} is a built-in agent's type; give another --title")
    if (root / "packages" / f"agent-{name}").exists():
        raise ScaffoldError(f"packages/agent-{name} already exists")
    if any(name in m.agents for m in members(root)):
        raise ScaffoldError(f"the workspace already has an agent named {name!r}")


def names(name: str, title: str, version: str, *, binary: str = "", config_dir: str = "") -> dict[str, str]:
    """What the templates' ``${...}`` stand for; the agent's command and project config folder default
    to its registry name (``qwen-code``'s are ``qwen`` and ``.qwen``)."""
    words = name.split("-")
    return {
        "binary": binary or name,
        "config_dir": config_dir or f".{name}",
        "name": name,
        "title": title,
        "dist": f"entire-agent-{name}",
        "module": "entire_agent_" + "_".join(words),
        "cls": "".join(w.capitalize() for w in words) + "Agent",
        "view_cls": "".join(w.capitalize() for w in words) + "View",
        "version": version,
    }


def pyproject(n: dict[str, str], core_requirement: str) -> dict[str, object]:
    """The new package's ``pyproject.toml``, as data (written whole with tomli-w)."""
    return {
        "project": {
            "name": n["dist"],
            "version": n["version"],
            "description": f"Entire CLI external-agent plugin for {n['title']}: records its sessions into git checkpoints.",
            "readme": "README.md",
            "license": "MIT",
            "license-files": ["LICENSE"],
            "requires-python": ">=3.11",
            "authors": [{"name": "Entire Python plugins team"}],
            "keywords": ["entire", n["name"], "ai", "git", "checkpoints"],
            "classifiers": [
                "Development Status :: 2 - Pre-Alpha",
                "Environment :: Console",
                "Intended Audience :: Developers",
                "Operating System :: POSIX",
                "Programming Language :: Python :: 3",
                "Programming Language :: Python :: 3 :: Only",
                "Programming Language :: Python :: 3.11",
                "Topic :: Software Development :: Version Control :: Git",
                "Typing :: Typed",
            ],
            "dependencies": [f"{CORE}{core_requirement}"],
            "urls": {
                "Homepage": PUBLISHER_URL,
                "Issues": f"{PUBLISHER_URL}/issues",
                "Source": f"{PUBLISHER_URL}/tree/main/packages/agent-{n['name']}",
            },
            "scripts": {n["dist"]: f"{n['module']}:main"},
            "entry-points": {"entire.agents": {n["name"]: f"{n['module']}.agent:{n['cls']}"}},
        },
        "tool": {"uv": {"sources": {CORE: {"workspace": True}}}},
        "build-system": {"requires": ["uv_build>=0.9,<0.14"], "build-backend": "uv_build"},
    }


def render(package: Path, n: dict[str, str]) -> None:
    """Every template file, substituted, at its place in the new package."""
    for source in sorted((HERE / "template").rglob("*")):
        if source.is_dir():
            continue
        relative = source.relative_to(HERE / "template")
        if relative.parts[0] == "src":
            relative = Path("src", n["module"], *relative.parts[1:])
        target = package / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.suffix == ".tmpl":
            text = Template(source.read_text(encoding="utf-8")).substitute(n)
            target.with_suffix("").write_text(text, encoding="utf-8")
        else:
            shutil.copyfile(source, target)
    (package / "src" / n["module"] / "py.typed").write_text("", encoding="utf-8")
    shutil.copyfile(ROOT / "LICENSE", package / "LICENSE")


def add_to_root(root: Path, dist: str, module: str, folder: str = "") -> None:
    """The workspace root depends on the new member (so ``uv run`` installs it), takes it from the tree,
    measures its coverage (``make test`` holds every package's ``src/`` at 90%), and puts its ``tests``
    folder (``folder``: ``agent-<name>``) on pytest's ``pythonpath``, where its fixture modules import."""
    import tomlkit

    path = root / "pyproject.toml"
    doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    project = doc["project"]
    tool = doc["tool"]
    assert isinstance(project, dict) and isinstance(tool, dict), f"{path}: no [project] or [tool] table"
    dependencies = project["dependencies"]
    assert isinstance(dependencies, list), f"{path}: [project] dependencies is not a list"
    dependencies.append(dist)
    sources = tool["uv"]["sources"]
    source = tomlkit.inline_table()
    source["workspace"] = True
    sources[dist] = source
    coverage = tool["coverage"]["run"]["source"]
    assert isinstance(coverage, list), f"{path}: [tool.coverage.run] source is not a list"
    coverage.append(module)
    pythonpath = tool["pytest"]["ini_options"]["pythonpath"]
    assert isinstance(pythonpath, list), f"{path}: [tool.pytest.ini_options] pythonpath is not a list"
    if folder and f"packages/{folder}/tests" not in pythonpath:
        pythonpath.append(f"packages/{folder}/tests")
    _write(path, tomlkit.dumps(doc))


def add_changelog_line(root: Path, dist: str, name: str) -> None:
    """A line under "## Unreleased" (made above the last release when missing); bump.py folds it in."""
    path = root / "CHANGELOG.md"
    text = path.read_text(encoding="utf-8")
    line = f"- **{dist}** (registry name `{name}`): new agent package, scaffolded by `make new-agent`.\n"
    heading = re.search(r"^## Unreleased[ \t]*\n\n?", text, re.M)
    if heading:
        text = text[: heading.end()] + line + text[heading.end() :]
    else:
        first = re.search(r"^## ", text, re.M)
        at = first.start() if first else len(text)
        text = text[:at] + "## Unreleased\n\n" + line + "\n" + text[at:]
    _write(path, text)


def _write(path: Path, text: str) -> None:
    from entire_core.fsutil import atomic_write

    atomic_write(str(path), text.encode("utf-8"))


def scaffold(
    root: Path, name: str, title: str, *, lock: bool = True, binary: str = "", config_dir: str = ""
) -> Path:
    """Create and wire the package; on any failure, the tree is left as it was."""
    import tomli_w

    check_name(name, title, root)
    version = next(m.version for m in members(root) if m.name == CORE)
    n = names(name, title, version, binary=binary, config_dir=config_dir)
    package = root / "packages" / f"agent-{name}"
    saved = {
        p: p.read_bytes()
        for p in (root / "pyproject.toml", root / "CHANGELOG.md", root / "uv.lock")
        if p.exists()
    }
    try:
        render(package, n)
        with (package / "pyproject.toml").open("wb") as f:
            tomli_w.dump(pyproject(n, core_range(version)), f)
        add_to_root(root, n["dist"], n["module"], f"agent-{name}")
        add_changelog_line(root, n["dist"], name)
        # The templates are written for any name; the house style is ruff's, at whatever length the name makes lines.
        _tool(root, "ruff", "check", "--fix", "--select", "I", "--quiet", str(package))
        _tool(root, "ruff", "format", "--quiet", str(package))
        if lock:
            _tool(root, os.environ.get("UV", "uv"), "lock", "--quiet")
    except BaseException:
        shutil.rmtree(package, ignore_errors=True)
        for path, data in saved.items():
            path.write_bytes(data)
        raise
    return package


def _tool(root: Path, *argv: str) -> None:
    """Run a tool in the workspace; its failure is a ScaffoldError with its last line of output."""
    if argv[0] == "ruff":
        argv = (sys.executable, "-m", "ruff", *argv[1:])
    done = subprocess.run(list(argv), cwd=root, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        raise ScaffoldError(f"{' '.join(argv[:2])} failed: {last}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("name", help="the registry name: entire-agent-<name>, never a built-in agent's")
    parser.add_argument("--title", help="the display name and the agent's `type` (default: from the name)")
    parser.add_argument("--binary", default="", help="the agent's command (default: the name)")
    parser.add_argument(
        "--config-dir", default="", help="the agent's project config folder (default: .<name>)"
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="the workspace root (default: this checkout)")
    parser.add_argument("--no-lock", action="store_true", help="do not run `uv lock` afterwards")
    args = parser.parse_args(argv)
    title = args.title or " ".join(w.capitalize() for w in args.name.split("-"))
    try:
        package = scaffold(
            args.root.resolve(),
            args.name,
            title,
            lock=not args.no_lock,
            binary=args.binary,
            config_dir=args.config_dir,
        )
    except ScaffoldError as exc:
        print(f"new-agent: {exc}", file=sys.stderr)
        return 1
    rel = package.relative_to(args.root.resolve())
    print(
        f"created {rel}; now teach it the agent: hooks.py, events.py, transcript.py and versions.py (README: Adding an agent)"
    )
    print(f"run its contract tests: uv run pytest {rel}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
