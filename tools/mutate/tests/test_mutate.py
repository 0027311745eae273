"""``make mutate``: the mutants it makes, how it runs them, and how it counts equivalents."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location("mutate", Path(__file__).resolve().parents[1] / "mutate.py")
assert _SPEC and _SPEC.loader
mutate = importlib.util.module_from_spec(_SPEC)
sys.modules["mutate"] = mutate
_SPEC.loader.exec_module(mutate)

SOURCE = textwrap.dedent(
    '''
    """A docstring: 1 < 2 is not code."""
    from __future__ import annotations

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        LIMIT: int = 3 if 1 < 2 else 4

    def clamp(x: int = 0, *, loud: bool = False) -> int:
        """Also not code."""
        if x > 10 and not loud:
            return 10
        for _ in range(2):
            break
        return -x
    '''
)


def test_every_mutation_is_numbered_and_named_by_its_expression() -> None:
    shown = [(m.line, m.function, m.original, m.mutated) for m in mutate.mutants_of("tiny", SOURCE)]
    assert shown == [
        (9, "clamp", "0", "1"),  # a default: shown alone
        (9, "clamp", "False", "True"),
        (11, "clamp", "x > 10", "x > 11"),
        (11, "clamp", "x > 10", "x > 9"),
        (11, "clamp", "x > 10", "x >= 10"),
        (11, "clamp", "x > 10", "x <= 10"),
        (11, "clamp", "not loud", "loud"),
        (11, "clamp", "x > 10 and (not loud)", "x > 10 or not loud"),
        (12, "clamp", "return 10", "return 11"),
        (12, "clamp", "return 10", "return 9"),
        (13, "clamp", "range(2)", "range(3)"),
        (13, "clamp", "range(2)", "range(1)"),
        (14, "clamp", "break", "continue"),
        (15, "clamp", "-x", "x"),
    ]


def test_a_mutated_source_differs_from_the_original_in_exactly_one_place() -> None:
    found = mutate.mutants_of("tiny", SOURCE)
    unchanged = mutate.mutated_source(SOURCE, -1)
    assert "Also not code." in unchanged and "TYPE_CHECKING" in unchanged
    for mutant in found:
        changed = mutate.mutated_source(SOURCE, mutant.index)
        lines = [(a, b) for a, b in zip(unchanged.splitlines(), changed.splitlines(), strict=True) if a != b]
        assert len(lines) == 1, mutant
        assert mutant.mutated.replace("(", "").replace(")", "") in lines[0][1].replace("(", "").replace(
            ")", ""
        )


def test_equivalents_need_a_reason_and_are_listed_once(tmp_path: Path) -> None:
    path = tmp_path / "equivalent.toml"
    entry = 'module = "tiny"\nfunction = "clamp"\noriginal = "x > 10"\nmutant = "x >= 10"\n'
    path.write_text(f'[[equivalent]]\n{entry}reason = "10 clamps to 10"\n')
    assert mutate.load_equivalents(path) == {("tiny", "clamp", "x > 10", "x >= 10"): "10 clamps to 10"}
    path.write_text(f'[[equivalent]]\n{entry}reason = " "\n')
    with pytest.raises(SystemExit, match="needs a reason"):
        mutate.load_equivalents(path)
    path.write_text(f'[[equivalent]]\n{entry}reason = "a"\n[[equivalent]]\n{entry}reason = "b"\n')
    with pytest.raises(SystemExit, match="listed twice"):
        mutate.load_equivalents(path)


def _outcome(found: list[object], survivors: list[object]) -> object:
    return mutate.Outcome("tiny", found, survivors, 1.0)


def test_the_report_scores_without_equivalents_and_fails_on_unexplained_or_stale(
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = mutate.mutants_of("tiny", SOURCE)
    boundary = next(m for m in found if m.mutated == "x >= 10")
    listed = {boundary.key: "10 clamps to 10"}
    assert mutate.report([_outcome(found, [boundary])], listed, 90.0) == 0
    table = capsys.readouterr().out
    assert "| tiny   | 14      | 13     | 0        | 1          | 100.0% |" in table
    assert mutate.report([_outcome(found, [boundary, found[0]])], listed, 90.0) == 1
    assert f"survived: {found[0]}" in capsys.readouterr().out
    assert mutate.report([_outcome(found, [])], listed, 0.0) == 1
    assert "stale in equivalent.toml" in capsys.readouterr().out
    assert mutate.report([_outcome(found, found[:2])], {}, 90.0) == 1
    assert "below 90%: tiny" in capsys.readouterr().out


TINY = """
def clamp(x):
    if x > 10:
        return 10
    return x


def count_to(n):
    i = 0
    while i < n:
        i += 1
    return i
"""

TINY_TESTS = """
import os, subprocess
from tiny import mod


def test_clamp():
    assert mod.clamp(11) == 10 and mod.clamp(3) == 3


def test_count_to():
    assert mod.count_to(3) == 3


def test_confined():
    assert os.environ["HOME"].startswith(os.environ["TMPDIR"].rsplit("/", 1)[0])
    assert not os.getcwd().startswith(os.environ["REAL_CHECKOUT"])
"""


def test_a_run_counts_killed_and_surviving_mutants_and_stops_one_that_loops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "src" / "tiny"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text(TINY)
    tests = tmp_path / "tests" / "test_tiny.py"
    tests.parent.mkdir()
    tests.write_text(TINY_TESTS)
    monkeypatch.setenv("REAL_CHECKOUT", str(Path(__file__).resolve().parents[3]))
    space = mutate.Workspace(tmp_path / "work", package)
    try:
        outcome = mutate.mutate_module("mod", [tests], [space], package, floor=2.0)
    finally:
        space.close()
    survived = {(m.original, m.mutated) for m in outcome.survivors}
    # No test calls clamp(10), and count_to(3) is 3 from i = 1 as from i = 0. The loops (i += 0,
    # i -= 1) are stopped at the timeout and count as killed, as does everything else.
    assert survived == {("x > 10", "x > 9"), ("x > 10", "x >= 10"), ("i = 0", "i = 1")}
    assert len(outcome.mutants) == 12
    assert (package / "mod.py").read_text() == TINY  # the package itself is never written


def test_within_and_retry_run_only_the_mutants_they_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    package = tmp_path / "src" / "tiny"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text(TINY)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_tiny.py").write_text(TINY_TESTS)
    monkeypatch.setenv("REAL_CHECKOUT", str(Path(__file__).resolve().parents[3]))
    monkeypatch.setattr(mutate, "PACKAGE", package)
    monkeypatch.setattr(mutate, "TESTS", tmp_path / "tests")
    monkeypatch.setattr(mutate, "MODULES", {"mod": ("test_tiny.py",)})
    monkeypatch.setattr(mutate, "EQUIVALENTS", tmp_path / "equivalent.toml")
    ran: list[int] = []
    run = mutate.Workspace.run

    def counted(self: object, package: Path, mutant: object, *args: object, **kwargs: object) -> object:
        ran.append(-1 if mutant is None else mutant.index)  # pyright: ignore[reportAttributeAccessIssue]
        return run(self, package, mutant, *args, **kwargs)

    monkeypatch.setattr(mutate.Workspace, "run", counted)
    found = mutate.mutants_of("mod", TINY)
    assert mutate.main(["mod", "--jobs", "1", "--within", "clamp"]) == 1  # x > 9 and x >= 10 survive
    assert ran == [-1] + [m.index for m in found if m.function == "clamp"]
    assert "| mod    | 6       | 4      | 2        |" in capsys.readouterr().out
    log = tmp_path / "run.log"
    log.write_text(
        "  survived: mod:3 (clamp): `x > 10` -> `x > 9`\nsurvived: mod:10 (count_to): `i = 0` -> `i = 1`\n"
    )
    ran.clear()
    assert mutate.main(["mod", "--jobs", "1", "--retry", str(log)]) == 1
    assert ran == [-1] + [
        m.index for m in found if (m.original, m.mutated) in {("x > 10", "x > 9"), ("i = 0", "i = 1")}
    ]
    out = capsys.readouterr().out
    assert "| mod    | 2       | 0      | 2        |" in out and "below" not in out
