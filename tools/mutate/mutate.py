"""Mutation testing of the core modules the hooks depend on: do their tests catch a small deliberate bug?

    python tools/mutate/mutate.py [MODULE ...] [--jobs N] [--list]        (make mutate)

Each mutant is one small change to one module (``<`` for ``<=``, ``and`` for ``or``, ``n`` for ``n+1``,
``is`` for ``is not``, ``True`` for ``False``, ``break`` for ``continue``, a ``not`` dropped, ...), made on
the module's syntax tree. The module's own tests (``MODULES``) run against each mutant: a mutant is
*killed* when they fail, *survives* when they pass. A survivor is a bug the tests would let through,
unless it behaves exactly as the original, which ``equivalent.toml`` (next to this file) says, once,
with the reason. The run prints, per module, mutants, killed, survived and equivalent, and the score
``killed / (mutants - equivalent)``; it lists every survivor not in ``equivalent.toml`` and every entry
there that no longer matches a survivor, and exits 1 on either, or on a score under ``--min``.

Why a script and not mutmut: mutmut 3 rewrites every function into a trampoline that picks the mutant
at run time, so the code under test is no longer the code that ships (our start-up tests count the
modules a hook imports), it copies the tree into ``mutants/`` beside the workspace's editable installs,
and it has no file of equivalents with reasons. Here a mutant is the module's own source, changed in one
place, and the package is imported from a copy of its ``src/`` put first on ``PYTHONPATH``.

Every mutant runs as the tests do (``entire_core.testing.isolation``) and more: a throwaway HOME, XDG
homes, TMPDIR and working directory of its own, a process group of its own that is killed whole on a
timeout, and no bytecode written. A mutant that breaks quoting cannot reach the machine.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import cast

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "packages" / "entire-core" / "src" / "entire_core"
TESTS = ROOT / "packages" / "entire-core" / "tests"
EQUIVALENTS = Path(__file__).with_name("equivalent.toml")

MODULES: dict[str, tuple[str, ...]] = {
    "chunking": ("test_chunking.py",),
    "shell": ("test_shell.py",),
    "validate": ("test_validate.py",),
    "offsets": ("test_offsets.py", "test_offsets_model.py"),
    "gitdir": ("test_gitdir.py",),
    # The views package, a module at a time (the quickest kills first): its face, then each of its parts.
    "views": ("test_views_parts.py",),
    "views.format": ("test_views_parts.py", "test_views_model.py", "test_views.py"),
    "views.wire": (
        "test_views_parts.py",
        "test_views_v2.py",
        "test_views_model.py",
        "test_views.py",
        "test_wire.py",
    ),
    "views.frames": ("test_views_parts.py", "test_views_model.py", "test_views.py"),
    "views.legacy": ("test_views_v2.py", "test_views_model.py", "test_views.py"),
    "views.store": ("test_views_model.py", "test_views_parts.py", "test_views_v2.py", "test_views.py"),
    "views.header": ("test_views_model.py", "test_views_lead.py", "test_views.py"),
    "views.rebase": ("test_views_model.py", "test_views_v2.py", "test_views_lead.py", "test_views.py"),
    "views.follow": (
        "test_views_follow.py",
        "test_views_model.py",
        "test_views_parts.py",
        "test_views_lead.py",
        "test_views.py",
        "test_views_v2.py",
        "test_views_recover.py",
    ),
    "views.reclaim": ("test_views_recover.py",),
    "views.view": (
        "test_views_model.py",
        "test_views_lead.py",
        "test_views_v2.py",
        "test_views.py",
        "test_views_recover.py",
    ),
    "config._json_edit": ("config/test_json_edits.py", "config/test_json_properties.py"),
    "_json": ("test_small_json.py", "test_wire.py"),
    "installs": ("test_paths_and_installs.py",),
    "hookfile": ("test_hookfile.py",),
}
"""Each module the hooks depend on, and its own tests (under packages/entire-core/tests)."""

_SYMBOL: dict[type[ast.AST], str] = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is",
    ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in", ast.And: "and", ast.Or: "or", ast.Add: "+",
    ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.BitOr: "|", ast.BitAnd: "&", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
}  # fmt: skip
_COMPARE: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Lt: (ast.LtE, ast.GtE), ast.LtE: (ast.Lt, ast.Gt), ast.Gt: (ast.GtE, ast.LtE),
    ast.GtE: (ast.Gt, ast.Lt), ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,), ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,), ast.In: (ast.NotIn,), ast.NotIn: (ast.In,),
}  # fmt: skip
"""Each comparison's boundary shift and its negation."""
_ARITHMETIC: dict[type[ast.operator], tuple[type[ast.operator], ...]] = {
    ast.Add: (ast.Sub,), ast.Sub: (ast.Add,), ast.Mult: (ast.FloorDiv,), ast.Div: (ast.Mult,),
    ast.FloorDiv: (ast.Mult,), ast.Mod: (ast.FloorDiv,), ast.Pow: (ast.Mult,), ast.BitOr: (ast.BitAnd,),
    ast.BitAnd: (ast.BitOr,), ast.BitXor: (ast.BitOr,), ast.LShift: (ast.RShift,), ast.RShift: (ast.LShift,),
}  # fmt: skip


@dataclass(frozen=True)
class Mutant:
    """One change to one module: where it is and what it changes (``original`` becomes ``mutated``)."""

    module: str
    index: int
    line: int
    function: str
    original: str
    mutated: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What ``equivalent.toml`` names it by: no line number, so moving code keeps the entry."""
        return (self.module, self.function, self.original, self.mutated)

    def __str__(self) -> str:
        return f"{self.module}:{self.line} ({self.function}): `{self.original}` -> `{self.mutated}`"


def _swap(node: ast.AST, **changes: object) -> ast.AST:
    """A shallow copy of ``node`` with ``changes``."""
    fields = {name: getattr(node, name) for name in node._fields}
    fields.update(changes)
    copy = type(node)(**fields)
    return ast.copy_location(copy, node)


class _Mutator(ast.NodeTransformer):
    """Walks a module in a fixed order, numbering every mutation; applies the one numbered ``target``."""

    def __init__(self, module: str, target: int | None = None) -> None:
        self.module = module
        self.target = target
        self.found: list[Mutant] = []
        self.scope: list[str] = []

    def _offer(self, node: ast.AST, replacements: list[ast.AST], context: ast.AST | None = None) -> ast.AST:
        shown = context or node
        for replacement in replacements:
            index = len(self.found)
            mutated = (
                ast.unparse(replacement) if context is None else self._in_context(context, node, replacement)
            )
            where = ".".join(self.scope) or "<module>"
            self.found.append(
                Mutant(self.module, index, getattr(node, "lineno", 0), where, ast.unparse(shown), mutated)
            )
            if index == self.target:
                return replacement
        return node

    @staticmethod
    def _in_context(context: ast.AST, node: ast.AST, replacement: ast.AST) -> str:
        """``context`` (``node``'s parent) written out with ``replacement`` in ``node``'s place."""
        for name, value in ast.iter_fields(context):
            if value is node:
                setattr(context, name, replacement)
                try:
                    return ast.unparse(context)
                finally:
                    setattr(context, name, node)
            if isinstance(value, list) and any(item is node for item in value):
                position = next(i for i, item in enumerate(value) if item is node)
                value[position] = replacement
                try:
                    return ast.unparse(context)
                finally:
                    value[position] = node
        return ast.unparse(replacement)

    # -- where not to mutate --------------------------------------------------------------------------

    def _expr(self, node: ast.expr) -> ast.expr:
        return cast(ast.expr, self.visit(node))

    def _scoped(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> ast.AST:
        self.scope.append(node.name)
        if isinstance(node, ast.ClassDef):
            node.bases = [self._expr(b) for b in node.bases]
        else:
            node.args.defaults = [self._expr(d) for d in node.args.defaults]
            node.args.kw_defaults = [d if d is None else self._expr(d) for d in node.args.kw_defaults]
        node.body = [cast(ast.stmt, self.visit(statement)) for statement in node.body]
        self.scope.pop()
        return node  # decorators, annotations and return types are not behaviour

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        if node.value is not None:
            node.value = self._expr(node.value)
        return node

    def visit_If(self, node: ast.If) -> ast.AST:
        if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return node  # imports for the type checker only
        return self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        names = [t.id for t in node.targets if isinstance(t, ast.Name)]
        if names in (["TYPE_CHECKING"], ["__all__"]):
            return node
        return self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        if isinstance(node.value, ast.Constant):
            return node  # a docstring
        return self.generic_visit(node)

    # -- mutations ------------------------------------------------------------------------------------

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        for position, op in enumerate(node.ops):
            for other in _COMPARE.get(type(op), ()):
                ops = [*node.ops]
                ops[position] = other()
                result = self._offer(node, [_swap(node, ops=ops)])
                if result is not node:
                    return result
        return node

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        other = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        return self._offer(node, [_swap(node, op=other)])

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        if isinstance(node.op, ast.Mod) and isinstance(node.left, (ast.Constant, ast.JoinedStr)):
            return node  # "%s" % x formatting, not arithmetic
        return self._offer(node, [_swap(node, op=o()) for o in _ARITHMETIC.get(type(node.op), ())])

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        return self._offer(node, [_swap(node, op=o()) for o in _ARITHMETIC.get(type(node.op), ())])

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        node = self.generic_visit(node)  # type: ignore[assignment]
        if isinstance(node.op, ast.Not | ast.USub | ast.Invert):
            return self._offer(node, [node.operand])
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        value = node.value
        if isinstance(value, bool):
            return self._offer(node, [ast.copy_location(ast.Constant(not value), node)], self._parent())
        if isinstance(value, int):
            others = [value + 1] + ([value - 1] if value > 0 else [])
            return self._offer(
                node, [ast.copy_location(ast.Constant(v), node) for v in others], self._parent()
            )
        return node

    def visit_Break(self, node: ast.Break) -> ast.AST:
        return self._offer(node, [ast.copy_location(ast.Continue(), node)])

    def visit_Continue(self, node: ast.Continue) -> ast.AST:
        return self._offer(node, [ast.copy_location(ast.Break(), node)])

    # The expression a constant sits in, so a listed mutant reads `range(10)` -> `range(11)`.
    _parents: list[ast.AST]

    def visit(self, node: ast.AST) -> ast.AST:
        if not hasattr(self, "_parents"):
            self._parents = []
        self._parents.append(node)
        try:
            return super().visit(node)
        finally:
            self._parents.pop()

    def _parent(self) -> ast.AST | None:
        """The expression or simple statement a constant sits in (None: a block's header, shown alone)."""
        parent = self._parents[-2] if len(self._parents) > 1 else None
        return parent if isinstance(parent, _CONTEXTS) else None


_CONTEXTS = (ast.expr, ast.keyword, ast.arguments, ast.Return, ast.Assign, ast.AugAssign, ast.AnnAssign,
             ast.Assert, ast.Raise)  # fmt: skip


def mutants_of(module: str, source: str) -> list[Mutant]:
    """Every mutant of ``source``, numbered in a fixed order."""
    mutator = _Mutator(module)
    mutator.visit(ast.parse(source))
    return mutator.found


def mutated_source(source: str, index: int) -> str:
    """``source`` with mutation ``index`` applied (``-1``: unchanged), written back out from its tree."""
    tree = _Mutator("", index).visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


# -- running ----------------------------------------------------------------------------------------


def module_path(package: Path, module: str) -> Path:
    """The file of ``module`` (``views.wire``: ``views/wire.py``; a package, ``views``: its ``__init__.py``)."""
    path = package.joinpath(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def confined_env(scratch: Path, site: Path) -> dict[str, str]:
    """A mutant's environment: its copy of the package first, a throwaway home, no bytecode written."""
    for name in ("home", "xdg-config", "xdg-cache", "xdg-data", "xdg-state", "tmp", "cwd"):
        (scratch / name).mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env.update({"PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1", "HYPOTHESIS_PROFILE": "ci",
                "HOME": str(scratch / "home"), "XDG_CONFIG_HOME": str(scratch / "xdg-config"),
                "XDG_CACHE_HOME": str(scratch / "xdg-cache"), "XDG_DATA_HOME": str(scratch / "xdg-data"),
                "XDG_STATE_HOME": str(scratch / "xdg-state"), "TMPDIR": str(scratch / "tmp")})  # fmt: skip
    return env


_SERVER = r"""
import json, os, signal, sys, time
import hypothesis, pydantic, pytest  # what every run would import again; never the package under test
print("ready", flush=True)
for line in sys.stdin:
    job = json.loads(line)
    pid = os.fork()
    if pid == 0:  # the run: a session and process group of its own, a throwaway home, no output
        code = 99
        try:
            os.setsid()
            os.chdir(job["cwd"])
            os.environ.clear()
            os.environ.update(job["env"])
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            code = int(pytest.main(job["args"]))
        finally:
            os._exit(code)
    deadline = time.monotonic() + job["timeout"]
    code = None
    while code is None:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
        elif time.monotonic() > deadline:
            code = -1
        else:
            time.sleep(0.005)
    try:
        os.killpg(pid, signal.SIGKILL)  # the whole group: what the run left behind, or the run itself
    except ProcessLookupError:
        pass
    if code == -1:
        os.waitpid(pid, 0)
    print(json.dumps({"code": code}), flush=True)
"""
"""A worker that imports the test tools once, then forks one run per mutant (about 1.7 s saved a run).

Each run still imports the package under test afresh, from the copy its mutant was written into."""


class Workspace:
    """One worker's copy of the package, into which one mutant at a time is written, and its fork server."""

    def __init__(self, root: Path, package: Path) -> None:
        self.root = root
        self.site = root / "site"
        self.copy = self.site / package.name
        shutil.copytree(package, self.copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        self.runs = 0
        env = confined_env(root / "server", self.site)
        self.server = subprocess.Popen(
            [sys.executable, "-c", _SERVER], cwd=root / "server" / "cwd", env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, start_new_session=True,
        )  # fmt: skip
        assert self.server.stdout is not None
        if self.server.stdout.readline() != "ready\n":  # imports done: runs are timed from here
            raise SystemExit("mutate: the test worker did not start")

    def close(self) -> None:
        assert self.server.stdin is not None
        self.server.stdin.close()
        self.server.wait(timeout=30)
        if self.server.stdout is not None:
            self.server.stdout.close()

    def run_tests(self, tests: list[Path], timeout: float) -> tuple[bool, float]:
        """Run ``tests`` against the copy as it is now: (passed, seconds). A timeout is a failure."""
        self.runs += 1
        scratch = self.root / "runs" / str(self.runs)
        # The plugins the worker imported before the run cannot have their asserts rewritten: not a failure.
        args = ["-x", "-q", "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning"]
        job = {"args": [*args, *map(str, tests)], "cwd": str(scratch / "cwd"),
               "env": confined_env(scratch, self.site), "timeout": timeout}  # fmt: skip
        assert self.server.stdin is not None and self.server.stdout is not None
        started = time.monotonic()
        self.server.stdin.write(json.dumps(job) + "\n")
        self.server.stdin.flush()
        answer = self.server.stdout.readline()
        shutil.rmtree(scratch, ignore_errors=True)
        if not answer:
            raise SystemExit("mutate: the test worker stopped")
        return json.loads(answer)["code"] == 0, time.monotonic() - started

    def run(self, package: Path, mutant: Mutant | None, module: str, source: str, tests: list[Path],
            timeout: float) -> tuple[bool, float]:  # fmt: skip
        """Write ``mutant`` (None: the module as written back from its tree) and run ``tests`` on it."""
        target = module_path(self.copy, module)
        target.write_text(mutated_source(source, -1 if mutant is None else mutant.index), encoding="utf-8")
        try:
            return self.run_tests(tests, timeout)
        finally:
            shutil.copy2(module_path(package, module), target)


@dataclass
class Outcome:
    module: str
    mutants: list[Mutant]
    survivors: list[Mutant]
    seconds: float


def mutate_module(
    module: str,
    tests: list[Path],
    workspaces: list[Workspace],
    package: Path,
    *,
    floor: float = 10.0,
    within: str = "",
    only: set[str] | None = None,
) -> Outcome:
    """Every mutant of ``module`` against ``tests``, spread over ``workspaces``.

    A run that takes ten times as long as the unchanged module's (``floor`` seconds at least) is a
    mutant that loops: it is stopped, and counts as killed. ``within`` keeps the mutants of one
    function or class (its qualified name, or a prefix of it)."""
    source = module_path(package, module).read_text(encoding="utf-8")
    found = [m for m in mutants_of(module, source) if m.function.startswith(within)]
    if only is not None:
        found = [m for m in found if _unplaced(str(m)) in only]
    started = time.monotonic()
    passed, baseline = workspaces[0].run(package, None, module, source, tests, timeout=600)
    if not passed:
        raise SystemExit(f"mutate: {module}'s tests fail on the unchanged module; fix them first")
    timeout = max(floor, 10 * baseline)
    survivors: list[Mutant] = []
    queue: Iterator[Mutant] = iter(found)

    def worker(space: Workspace) -> None:
        for mutant in queue:  # a shared iterator: each mutant is taken by one worker
            ok, _ = space.run(package, mutant, module, source, tests, timeout)
            if ok:
                survivors.append(mutant)
            if sys.stderr.isatty():
                print(
                    f"\r  {module}: {len(found)} mutants, {len(survivors)} survived", end="", file=sys.stderr
                )

    with ThreadPoolExecutor(len(workspaces)) as pool:
        for future in [pool.submit(worker, space) for space in workspaces]:
            future.result()
    print(file=sys.stderr)
    survivors.sort(key=lambda m: m.index)
    for mutant in survivors:  # as soon as the module is done: a long run shows its findings as it goes
        print(f"  survived: {mutant}", file=sys.stderr)
    return Outcome(module, found, survivors, time.monotonic() - started)


def _unplaced(shown: str) -> str:
    """A mutant as printed, without its line number (``views:12 (f): ...`` -> ``views (f): ...``)."""
    module, _, rest = shown.partition(":")
    return module + rest[rest.index(" ") :] if " " in rest else shown


def survivors_in(path: Path) -> set[str]:
    """The mutants a earlier run printed as survivors (``survived: ...`` lines), without line numbers."""
    text = path.read_text(encoding="utf-8")
    return {
        _unplaced(line.split("survived: ", 1)[1].strip())
        for line in text.splitlines()
        if "survived: " in line
    }


def load_equivalents(path: Path) -> dict[tuple[str, str, str, str], str]:
    """``equivalent.toml``: each mutant that behaves as the original, by key, with its reason."""
    data = tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    found: dict[tuple[str, str, str, str], str] = {}
    for entry in data.get("equivalent", []):
        key = (entry["module"], entry["function"], entry["original"], entry["mutant"])
        if not entry.get("reason", "").strip():
            raise SystemExit(f"mutate: {path.name}: an equivalent mutant needs a reason: {key}")
        if key in found:
            raise SystemExit(f"mutate: {path.name}: listed twice: {key}")
        found[key] = entry["reason"]
    return found


def report(
    outcomes: list[Outcome],
    equivalents: dict[tuple[str, str, str, str], str],
    minimum: float,
    within: str = "",
) -> int:
    """Print the table, the unexplained survivors and the stale equivalents; 1 if any, or a low score."""
    rows = [("module", "mutants", "killed", "survived", "equivalent", "score", "seconds")]
    unexplained: list[Mutant] = []
    low: list[str] = []
    matched: set[tuple[str, str, str, str]] = set()
    for outcome in outcomes:
        equivalent = [m for m in outcome.survivors if m.key in equivalents]
        matched.update(m.key for m in equivalent)
        real = [m for m in outcome.survivors if m.key not in equivalents]
        unexplained.extend(real)
        counted = len(outcome.mutants) - len(equivalent)
        killed = len(outcome.mutants) - len(outcome.survivors)
        score = 100.0 * killed / counted if counted else 100.0
        if score < minimum:
            low.append(outcome.module)
        rows.append((outcome.module, str(len(outcome.mutants)), str(killed), str(len(real)), str(len(equivalent)),
                     f"{score:.1f}%", f"{outcome.seconds:.0f}"))  # fmt: skip
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    print("| " + " | ".join(cell.ljust(w) for cell, w in zip(rows[0], widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows[1:]:
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |")
    for mutant in unexplained:
        print(f"survived: {mutant}")
    modules = {o.module for o in outcomes}
    stale = [
        key for key in equivalents if key[0] in modules and key[1].startswith(within) and key not in matched
    ]
    for key in stale:
        print(f"stale in {EQUIVALENTS.name} (killed, or gone from the code): {key}")
    for module in low:
        print(f"below {minimum:.0f}%: {module}")
    return 1 if unexplained or stale or low else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mutate", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("modules", nargs="*", metavar="MODULE", help=f"default: all of {', '.join(MODULES)}")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="mutants run at once")
    parser.add_argument("--min", type=float, default=90.0, help="lowest score accepted per module (percent)")
    parser.add_argument("--list", action="store_true", help="print the mutants, run nothing")
    parser.add_argument(
        "--within",
        default="",
        metavar="QUALNAME",
        help="only the mutants of this function or class (a prefix: View. is every method)",
    )
    parser.add_argument("--retry", type=Path, metavar="LOG",
                        help="only the mutants an earlier run's output (LOG) lists as survivors; no score")  # fmt: skip
    args = parser.parse_args(argv)
    unknown = sorted(set(args.modules) - MODULES.keys())
    if unknown:
        parser.error(f"unknown module {', '.join(unknown)}; choose from {', '.join(MODULES)}")
    chosen = args.modules or list(MODULES)
    if args.list:
        for module in chosen:
            for mutant in mutants_of(module, module_path(PACKAGE, module).read_text(encoding="utf-8")):
                if mutant.function.startswith(args.within):
                    print(mutant)
        return 0
    equivalents = load_equivalents(EQUIVALENTS)
    only = survivors_in(args.retry) if args.retry is not None else None
    with tempfile.TemporaryDirectory(prefix="entire-mutate-") as scratch:
        workspaces = [Workspace(Path(scratch) / f"job-{n}", PACKAGE) for n in range(max(1, args.jobs))]
        try:
            outcomes = [
                mutate_module(
                    m, [TESTS / t for t in MODULES[m]], workspaces, PACKAGE, within=args.within, only=only
                )
                for m in chosen
            ]
        finally:
            for space in workspaces:
                space.close()
    if only is not None:  # no score: which of those mutants still survive, and which listed ones no longer do
        retried = {m.key for outcome in outcomes for m in outcome.mutants}
        equivalents = {key: reason for key, reason in equivalents.items() if key in retried}
        return report(outcomes, equivalents, 0.0, args.within)
    return report(outcomes, equivalents, args.min, args.within)


if __name__ == "__main__":
    sys.exit(main())
