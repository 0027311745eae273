"""Strict checks of everything ``uv build --all-packages`` put in dist/, before anything may be published.

    uv run python tools/release/check_dist.py dist --prune-private

- Private members (``Private :: Do Not Upload``, such as tools/entire-sim) are removed from dist/ with
  ``--prune-private`` and are an error otherwise, so ``twine upload dist/*`` can never upload them.
- Every published workspace member has exactly one wheel and one sdist, at its workspace version.
- ``twine check --strict`` passes for every artifact.
- Each wheel's METADATA: a Markdown README of substance (for agents: install, ``entire enable``,
  ``doctor``, what is captured, limits, supported versions), a license expression with its license
  file and no legacy ``License ::`` classifiers, known classifiers consistent with Requires-Python and
  with ``py.typed``, https project URLs, a pure ``py3-none-any`` wheel without tests or bytecode, and a
  ``__version__`` equal to the metadata's version.
- Agents: one ``entire.agents`` entry point naming no built-in agent, the console script
  ``entire-agent-<name>``, both pointing at code that exists, and ``entire-core>=X.Y,<X.(Y+1)``.
- entire-core: its unconditional requirements are exactly what the dispatcher (``entire_core.cli``) and
  the modules it loads import; whatever only other modules import is an extra (tomlkit, ``[toml]``);
  every extra's requirement is imported somewhere.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import subprocess
import sys
from pathlib import Path

from artifacts import Artifact, Wheel, artifacts
from deps import ImportGraph
from workspace import AGENT_GROUP, CORE, normalize, published

REPO = Path(__file__).resolve().parents[2]
MIN_README_CHARS = 800
AGENT_README_TOPICS = {
    "install": r"uv tool install|pipx install",
    "entire enable": r"entire enable",
    "doctor": r"\bdoctor\b",
    "what is captured": r"captur",
    "known limits": r"limit",
    "supported versions": r"version",
}
DUNDER_VERSION = re.compile(r"^__version__\s*=\s*[\"']([^\"']*)[\"']", re.M)
TEST_KIT_NOTE = "entire_core.testing (the contract kit) imports pytest, which the tests that use it provide"


def prune_private(found: list[Artifact], *, prune: bool) -> tuple[list[Artifact], list[str]]:
    """The publishable artifacts; private ones are deleted with ``prune``, else each is a problem."""
    problems: list[str] = []
    for artifact in [a for a in found if a.private]:
        if prune:
            artifact.path.unlink()
            print(f"removed {artifact.path.name}: Private :: Do Not Upload (never published)")
        else:
            problems.append(f"{artifact.path.name}: Private :: Do Not Upload, must not be in dist/")
    return [a for a in found if not a.private], problems


def check_set(found: list[Artifact], root: Path) -> list[str]:
    """Every published member built exactly once as wheel and sdist, at its version, and nothing else."""
    problems: list[str] = []
    members = {m.name: m for m in published(root)}
    for member in members.values():
        for kind in ("wheel", "sdist"):
            built = [a for a in found if a.name == member.name and a.kind == kind]
            if len(built) != 1:
                problems.append(f"{member.name}: expected one {kind} in dist/, found {len(built)}")
            elif built[0].version != member.version:
                problems.append(
                    f"{built[0].path.name}: version {built[0].version}, workspace has {member.version}"
                )
    for artifact in found:
        if artifact.name not in members:
            problems.append(f"{artifact.path.name}: not a published workspace member; remove it from dist/")
    return problems


def check_readme(wheel: Wheel, thin_ok: set[str]) -> list[str]:
    """The README that becomes the package's page on the index."""
    where = wheel.path.name
    if wheel.metadata.get("Description-Content-Type", "").split(";")[0].strip() != "text/markdown":
        return [f'{where}: Description-Content-Type is not text/markdown (readme = "README.md")']
    body = str(wheel.metadata.get_payload() or "")
    problems: list[str] = []
    headings = re.findall(r"^#{1,6} .+$", body, re.M)
    if not headings or wheel.name not in headings[0]:
        problems.append(f"{where}: the README's first heading does not name {wheel.name}")
    if len(body.strip()) < MIN_README_CHARS or len([h for h in headings if h.startswith("## ")]) < 2:
        message = f"{where}: the README is too thin for an index page ({len(body.strip())} characters)"
        if wheel.name in thin_ok:
            print(f"WAIVED (--thin-readme-ok {wheel.name}): {message}")
        else:
            problems.append(message)
    if wheel.agents:
        for topic, pattern in AGENT_README_TOPICS.items():
            if not re.search(pattern, body, re.I):
                problems.append(f"{where}: the README says nothing about {topic}")
        if wheel.name not in body:
            problems.append(f"{where}: the README never names the package to install ({wheel.name})")
    return problems


def check_license(wheel: Wheel) -> list[str]:
    """PEP 639 license metadata: an expression, its files shipped, no legacy classifiers or field."""
    where = wheel.path.name
    problems: list[str] = []
    if not wheel.metadata.get("License-Expression", "").strip():
        problems.append(f'{where}: no License-Expression (license = "MIT" in [project])')
    if wheel.metadata.get("License"):
        problems.append(f"{where}: legacy License field next to License-Expression")
    legacy = [c for c in wheel.classifiers if c.startswith("License ::")]
    if legacy:
        problems.append(
            f"{where}: {legacy[0]!r}: License classifiers are deprecated by PEP 639 and PyPI refuses them "
            "next to License-Expression; drop them"
        )
    files = wheel.metadata.get_all("License-File") or []
    if not files:
        problems.append(f'{where}: no License-File (license-files = ["LICENSE"] and a LICENSE file)')
    for name in files:
        path = f"{wheel.dist_info}/licenses/{name}"
        if path not in wheel.names or not wheel.read(path).strip():
            problems.append(f"{where}: License-File {name} is missing or empty in the wheel")
    return problems


def check_classifiers(wheel: Wheel) -> list[str]:
    """Classifiers PyPI knows, and that agree with Requires-Python and with py.typed."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from trove_classifiers import classifiers as known
    from trove_classifiers import deprecated_classifiers

    where = wheel.path.name
    problems = [f"{where}: unknown classifier {c!r}" for c in wheel.classifiers if c not in known]
    problems += [
        f"{where}: deprecated classifier {c!r}" for c in wheel.classifiers if c in deprecated_classifiers
    ]
    for prefix in ("Development Status ::", "Programming Language :: Python :: 3", "Operating System ::"):
        if not any(c.startswith(prefix) for c in wheel.classifiers):
            problems.append(f"{where}: no {prefix!r} classifier")
    requires_python = wheel.metadata.get("Requires-Python", "")
    try:
        spec = SpecifierSet(requires_python)
    except InvalidSpecifier:
        return [*problems, f"{where}: Requires-Python {requires_python!r} is not a valid specifier"]
    if not requires_python:
        problems.append(f"{where}: no Requires-Python")
    elif sys.version.split()[0] not in spec:
        problems.append(
            f"{where}: Requires-Python {requires_python} excludes this Python ({sys.version.split()[0]})"
        )
    for c in wheel.classifiers:
        match = re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", c)
        if match and f"{match[1]}.99" not in spec:
            problems.append(f"{where}: classifier {c!r} contradicts Requires-Python {requires_python}")
    typed = any(n.endswith("/py.typed") for n in wheel.names)
    if typed != ("Typing :: Typed" in wheel.classifiers):
        problems.append(f"{where}: 'Typing :: Typed' and a py.typed file must come together")
    return problems


def check_urls(wheel: Wheel) -> list[str]:
    """Project URLs: at least a home or source page, all https."""
    where = wheel.path.name
    urls = [u.split(",", 1) for u in wheel.metadata.get_all("Project-URL") or []]
    if not urls:
        return [f"{where}: no Project-URL ([project.urls])"]
    problems = [
        f"{where}: Project-URL {label.strip()} is not https"
        for label, url in urls
        if not url.strip().startswith("https://")
    ]
    if not {label.strip().lower() for label, _ in urls} & {"homepage", "source", "repository"}:
        problems.append(f"{where}: no Homepage, Source or Repository URL")
    return problems


def check_contents(wheel: Wheel) -> list[str]:
    """A pure wheel with no tests or bytecode, whose ``__version__`` is the metadata's version."""
    where = wheel.path.name
    problems: list[str] = []
    if not wheel.path.name.endswith("-py3-none-any.whl"):
        problems.append(f"{where}: not a pure py3-none-any wheel")
    junk = [n for n in wheel.names if "__pycache__" in n or n.endswith(".pyc") or "/tests/" in f"/{n}"]
    if junk:
        problems.append(f"{where}: ships {junk[0]} (no tests or bytecode in wheels)")
    top = wheel.name.replace("-", "_")
    init = f"{top}/__init__.py"
    if init not in wheel.names:
        return [*problems, f"{where}: no {init}"]
    found = DUNDER_VERSION.search(wheel.read(init).decode("utf-8"))
    if not found or found[1] != wheel.version:
        problems.append(
            f"{where}: {init} __version__ is {found[1] if found else None!r}, metadata says {wheel.version}"
        )
    return problems


def _defines(wheel: Wheel, target: str) -> bool:
    module, _, attr = target.partition(":")
    source = wheel.modules().get(module.strip())
    if source is None:
        return False
    tree = ast.parse(source)
    name = attr.strip()
    return any(
        (isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name)
        or (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
        )
        for node in tree.body
    )


def check_agent(wheel: Wheel) -> list[str]:
    """An agent wheel's entry points and its requirement on entire-core."""
    from entire_core.testing.cases import BUILTIN_NAMES
    from packaging.requirements import Requirement

    where = wheel.path.name
    problems: list[str] = []
    agents = wheel.agents
    if len(agents) != 1:
        return [f"{where}: expected one {AGENT_GROUP} entry point, found {len(agents)}"]
    ((name, target),) = agents.items()
    if name in BUILTIN_NAMES:
        problems.append(f"{where}: {name!r} is a built-in agent's name; the CLI would never run this plugin")
    if wheel.name != f"entire-agent-{name}":
        problems.append(f"{where}: the distribution of agent {name!r} must be named entire-agent-{name}")
    if not _defines(wheel, target):
        problems.append(f"{where}: {AGENT_GROUP} entry point {name} = {target} names no class in the wheel")
    script = f"entire-agent-{name}"
    scripts = wheel.entry_points().get("console_scripts", {})
    if script not in scripts:
        problems.append(f"{where}: no console script {script}")
    elif not _defines(wheel, scripts[script]):
        problems.append(
            f"{where}: console script {script} = {scripts[script]} names nothing the wheel defines"
        )
    major, minor = (int(x) for x in wheel.version.split(".")[:2])
    wanted = {f">={major}.{minor}", f"<{major}.{minor + 1}"}
    core = [
        Requirement(r)
        for r in wheel.metadata.get_all("Requires-Dist") or []
        if normalize(Requirement(r).name) == CORE
    ]
    if len(core) != 1 or {str(s) for s in core[0].specifier} != wanted:
        problems.append(
            f"{where}: needs exactly one requirement {CORE}>={major}.{minor},<{major}.{minor + 1}"
        )
    return problems


def check_core(wheel: Wheel) -> list[str]:
    """entire-core's requirements against what its modules import."""
    from importlib.metadata import packages_distributions

    from deps import unconditional

    where = wheel.path.name
    graph = ImportGraph([wheel])
    runtime = [m for m in graph.modules_of("entire_core") if not m.startswith("entire_core.testing")]
    providers = {top: [normalize(d) for d in dists] for top, dists in packages_distributions().items()}

    def dist_of(top: str) -> str:
        return (providers.get(top) or [top])[0]

    requires = wheel.metadata.get_all("Requires-Dist") or []
    base = set(unconditional(requires))
    extras = {
        e: set(unconditional(requires, [e])) - base for e in wheel.metadata.get_all("Provides-Extra") or []
    }
    everywhere = {dist_of(t): m for t, m in graph.reach(runtime).external.items()}
    dispatcher = {dist_of(t): m for t, m in graph.reach(["entire_core.cli"]).external.items()}
    problems = [
        f"{where}: {module} imports {dist} on every call's path, so it must be an unconditional requirement"
        for dist, module in dispatcher.items()
        if dist not in base
    ]
    for dist in sorted(base - set(dispatcher)):
        if dist in everywhere:
            problems.append(
                f"{where}: requires {dist} unconditionally, but only {everywhere[dist]} (off the dispatcher's "
                "path) imports it: make it an extra"
            )
        else:
            problems.append(f"{where}: requires {dist} but no module imports it")
    for extra, dists in extras.items():
        problems += [
            f"{where}: extra [{extra}] pulls {d}, which no module imports"
            for d in sorted(dists - set(everywhere))
        ]
    declared = base.union(*extras.values())
    problems += [
        f"{where}: {module} imports {dist}, which is neither a requirement nor in an extra"
        for dist, module in everywhere.items()
        if dist not in declared
    ]
    return problems


def twine_check(paths: list[Path]) -> list[str]:
    """``twine check --strict``; its report when it fails."""
    done = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", *map(str, paths)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )
    if done.returncode == 0:
        return []
    lines = [
        line for line in (done.stdout + done.stderr).splitlines() if line.strip() and "PASSED" not in line
    ]
    return [f"twine check --strict: {line.strip()}" for line in lines] or ["twine check --strict failed"]


def main(argv: list[str] | None = None) -> int:
    """Check dist/; print every problem on its own line and exit 1 if there is any."""
    parser = argparse.ArgumentParser(description="Strict checks of the built wheels and sdists.")
    parser.add_argument("dist", type=Path, nargs="?", default=REPO / "dist")
    parser.add_argument("--prune-private", action="store_true", help="delete private members' artifacts")
    parser.add_argument("--thin-readme-ok", action="append", default=[], metavar="DIST",
                        help="report a too-short README of DIST without failing (temporary)")  # fmt: skip
    parser.add_argument("--root", type=Path, default=REPO, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    found, problems = prune_private(artifacts(args.dist), prune=args.prune_private)
    problems += check_set(found, args.root)
    problems += twine_check([a.path for a in found])
    thin_ok = {normalize(n) for n in args.thin_readme_ok}
    for wheel in [a for a in found if isinstance(a, Wheel)]:
        problems += check_readme(wheel, thin_ok)
        problems += check_license(wheel)
        problems += check_classifiers(wheel)
        problems += check_urls(wheel)
        problems += check_contents(wheel)
        if wheel.agents:
            problems += check_agent(wheel)
        if wheel.name == CORE:
            problems += check_core(wheel)
            print(f"note: {TEST_KIT_NOTE}")
        requires = "; ".join(wheel.metadata.get_all("Requires-Dist") or []) or "nothing"
        print(f"{wheel.path.name}: {wheel.size / 1024:.1f} KiB, requires {requires}")
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"check_dist: {len(problems)} problem(s) in {args.dist}", file=sys.stderr)
        return 1
    print(
        f"check_dist: {len(found)} artifacts in {args.dist} pass (twine check --strict and metadata checks)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
