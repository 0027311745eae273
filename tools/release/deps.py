"""Which distributions a wheel really needs, found from what its code imports.

Declared dependencies say what a wheel *pulls in*; this says what it *uses*. Starting from every module
of an agent package, it follows imports through our own wheels (any import anywhere in a module counts,
function-level ones included; imports under ``if TYPE_CHECKING:`` do not run and do not count; a string
such as ``"entire_core.commands:info"`` counts as an import of that module, because that is how
the dispatcher loads subcommands). An import of a third-party module needs the distribution that
provides it, and everything that distribution requires. Anything installed beyond that closure is
weight the wheel makes users carry, such as tomlkit for an agent that never edits TOML.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from artifacts import Wheel
from workspace import normalize

_DOTTED_TARGET = re.compile(r"^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?::\w*)?$")
SEED = frozenset({"pip", "setuptools", "wheel"})
"""What ``python -m venv`` puts into every environment; not pulled in by any wheel."""
RUN_ELSEWHERE = {"entire_agent_aider.bootstrap": ("Aider", frozenset({"aider"}))}
"""Modules a wheel ships as scripts for another program's interpreter -> that program, and the top-level
modules its environment provides. Such a module needs nothing from the wheel's environment; it may
import the standard library and those modules only, never ours (they are not installed there)."""


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(tree: ast.AST) -> Iterable[ast.AST]:
    """Every node of ``tree`` except the bodies of ``if TYPE_CHECKING:`` blocks."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def imports_of(source: str, module: str, *, is_package: bool) -> tuple[set[str], set[str]]:
    """The absolute dotted names ``module`` imports at run time (``a.b`` for ``from a import b`` too),
    and the dotted names its strings spell (``"pkg.mod:func"``), which may be dynamic imports."""
    names: set[str] = set()
    spelled: set[str] = set()
    package = module.split(".") if is_package else module.split(".")[:-1]
    for node in _runtime_nodes(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = _DOTTED_TARGET.match(node.value)
            if match:
                spelled.add(match[1])
    return names, spelled


@dataclass
class Reach:
    """What a set of root modules imports, directly or through our other modules."""

    modules: dict[str, str] = field(default_factory=dict[str, str])
    """Each of our modules reached -> the module that imported it first ("" for a root)."""
    external: dict[str, str] = field(default_factory=dict[str, str])
    """Each third-party top-level module imported -> the first of our modules that imports it."""
    problems: list[str] = field(default_factory=list[str])
    """Imports a module run by another program's interpreter (``RUN_ELSEWHERE``) cannot make there."""


class ImportGraph:
    """The modules of our wheels and what each imports."""

    def __init__(self, wheels: Iterable[Wheel]) -> None:
        self.sources: dict[str, str] = {}
        self.packages: set[str] = set()
        self.owner: dict[str, str] = {}  # our top-level module -> its distribution
        for wheel in wheels:
            modules = wheel.modules()
            self.sources.update(modules)
            self.packages |= wheel.packages()
            for module in modules:
                self.owner[module.split(".")[0]] = wheel.name

    def modules_of(self, top: str) -> list[str]:
        """Every module of our top-level package ``top``."""
        return sorted(m for m in self.sources if m == top or m.startswith(top + "."))

    def reach(self, roots: Iterable[str]) -> Reach:
        """Follow imports from ``roots`` through our modules, collecting third-party imports."""
        reach = Reach()
        queue = [(root, "") for root in roots]
        while queue:
            module, parent = queue.pop(0)
            if module in reach.modules:
                continue
            reach.modules[module] = parent
            names, spelled = imports_of(self.sources[module], module, is_package=module in self.packages)
            names |= {s for s in spelled if s.split(".")[0] in self.owner}  # "config.toml" is a file name
            if module in RUN_ELSEWHERE:
                reach.problems += _foreign_problems(module, names, self.owner)
                continue
            for name in sorted(names):
                parts = name.split(".")
                top = parts[0]
                if top in self.owner:
                    # importing a.b.c runs a, a.b and a.b.c; a name that is no module is an attribute
                    queue += [
                        (p, module)
                        for i in range(1, len(parts) + 1)
                        if (p := ".".join(parts[:i])) in self.sources
                    ]
                elif top and top not in sys.stdlib_module_names and top != "__future__":
                    reach.external.setdefault(top, module)
        return reach


@dataclass
class Installed:
    """One distribution installed in an environment."""

    name: str
    version: str
    requires: list[str]


def unconditional(requirements: Iterable[str], extras: Iterable[str] = ()) -> list[str]:
    """The names of the requirements that apply with ``extras`` on this interpreter's platform."""
    from packaging.requirements import Requirement

    names: list[str] = []
    wanted = ["", *extras]
    for text in requirements:
        requirement = Requirement(text)
        if requirement.marker is None or any(requirement.marker.evaluate({"extra": e}) for e in wanted):
            names.append(normalize(requirement.name))
    return names


@dataclass
class Verdict:
    """The needed distributions of an install (name -> why) and what is wrong with the install."""

    needed: dict[str, str]
    problems: list[str]


def judge(
    reach: Reach,
    owner: Mapping[str, str],
    installed: Mapping[str, Installed],
    providers: Mapping[str, list[str]],
) -> Verdict:
    """Compare an environment's distributions with what the reached code needs.

    ``providers`` maps a top-level module to the installed distributions that provide it
    (``importlib.metadata.packages_distributions()`` of that environment).
    """
    needed: dict[str, str] = {}
    problems: list[str] = list(reach.problems)
    queue: list[tuple[str, str]] = []
    for module, parent in reach.modules.items():
        dist = owner[module.split(".")[0]]
        if dist not in needed:
            needed[dist] = f"imported by {parent}" if parent else "the package itself"
    for top, module in sorted(reach.external.items()):
        dists = [normalize(d) for d in providers.get(top, [])]
        if not dists:
            problems.append(f"{module} imports {top}, but no installed distribution provides it")
        queue += [(d, f"{module} imports {top}") for d in dists]
    while queue:
        name, why = queue.pop(0)
        if name in needed:
            continue
        needed[name] = why
        dist = installed.get(name)
        if dist is None:
            problems.append(f"{name} is needed ({why}) but not installed")
            continue
        queue += [(r, f"required by {name}") for r in unconditional(dist.requires)]
    for name in sorted(set(installed) - set(needed) - SEED):
        by = sorted(label for d in installed.values() if (label := _requirer(d, name)))
        problems.append(
            f"{name} {installed[name].version} is installed but nothing reached imports it"
            + (f" (pulled in by {', '.join(by)})" if by else "")
        )
    return Verdict(needed, problems)


def _foreign_problems(module: str, names: Iterable[str], ours: Mapping[str, str]) -> list[str]:
    program, provided = RUN_ELSEWHERE[module]
    tops = sorted({name.split(".")[0] for name in names} - {"", "__future__"})
    return [
        f"{module} runs in {program}'s interpreter, which cannot import {top}"
        for top in tops
        if top in ours or (top not in provided and top not in sys.stdlib_module_names)
    ]


def _requirer(dist: Installed, name: str) -> str:
    """``dist`` (``dist[extra]`` when only an extra asks) if it requires ``name``, else ""."""
    from packaging.requirements import Requirement

    for text in dist.requires:
        requirement = Requirement(text)
        if normalize(requirement.name) == name:
            extra = re.search(r"extra\s*==\s*[\"']([^\"']+)[\"']", str(requirement.marker or ""))
            return f"{dist.name}[{extra[1]}]" if extra else dist.name
    return ""
