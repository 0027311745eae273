"""bump.py against a copy of a small fake workspace: every kind of skew is caught, a bump round-trips."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

BUMP = Path(__file__).resolve().parents[1] / "bump.py"
ALPHA = "packages/agent-alpha/pyproject.toml"
BETA = "packages/agent-beta/pyproject.toml"
ALPHA_INIT = "packages/agent-alpha/src/entire_agent_alpha/__init__.py"
BETA_INIT = "packages/agent-beta/src/entire_agent_beta/__init__.py"
CORE_INIT = "packages/core/src/entire_core/__init__.py"


def bump(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run bump.py on ``root`` as a user would."""
    return subprocess.run(
        [sys.executable, str(BUMP), "--root", str(root), *args], capture_output=True, text=True, check=False
    )


def problems(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The problem lines of a failed --check (without its closing count)."""
    return [line for line in done.stderr.splitlines() if line and not line.startswith("bump.py --check:")]


def edit(root: Path, rel: str, old: str, new: str) -> None:
    """Replace the one occurrence of ``old`` in a file of the workspace."""
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} in {rel}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the workspace, by relative path."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def changed_lines(before: bytes, after: bytes) -> list[tuple[str, str]]:
    """``(old line, new line)`` of each line that differs; the line count must be the same."""
    old, new = before.decode().splitlines(keepends=True), after.decode().splitlines(keepends=True)
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


def test_a_workspace_in_lockstep_passes(fake_workspace: Path) -> None:
    done = bump(fake_workspace, "--check")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "lockstep: 4 packages at 0.1.0, uv.lock and CHANGELOG.md agree"


SKEWS: dict[str, tuple[Callable[[Path], None], list[str]]] = {
    "pyproject version": (
        lambda r: edit(r, ALPHA, 'version = "0.1.0"', 'version = "0.1.1"'),
        [
            "packages/agent-alpha/pyproject.toml: entire-agent-alpha is at '0.1.1', expected 0.1.0 (lockstep)",
            "uv.lock: entire-agent-alpha is locked at '0.1.0' but its pyproject says '0.1.1' (run uv lock)",
        ],
    ),
    "__version__ differs": (
        lambda r: edit(r, BETA_INIT, '"0.1.0"', '"0.1.2"'),
        ["packages/agent-beta/src/entire_agent_beta/__init__.py: __version__ is '0.1.2', expected 0.1.0"],
    ),
    "__version__ missing": (
        lambda r: edit(r, ALPHA_INIT, '__version__ = "0.1.0"\n', ""),
        ['packages/agent-alpha/src/entire_agent_alpha/__init__.py: no static __version__ = "..." line'],
    ),
    "__version__ twice": (
        lambda r: edit(
            r, CORE_INIT, '__version__ = "0.1.0"\n', '__version__ = "0.1.0"\n__version__ = "0.1.0"\n'
        ),
        ["packages/core/src/entire_core/__init__.py: 2 __version__ lines, expected one"],
    ),
    "core range too wide": (
        lambda r: edit(r, ALPHA, "entire-core[toml]>=0.1,<0.2", "entire-core[toml]>=0.1,<0.3"),
        [
            "packages/agent-alpha/pyproject.toml: requirement 'entire-core[toml]>=0.1,<0.3' should be "
            "entire-core[toml]>=0.1,<0.2"
        ],
    ),
    "core range missing": (
        lambda r: edit(r, BETA, '"entire-core >= 0.1, < 0.2"', '"entire-core"'),
        ["packages/agent-beta/pyproject.toml: requirement 'entire-core' should be entire-core>=0.1,<0.2"],
    ),
    "core range of an extra": (
        lambda r: edit(r, BETA, "entire-core[toml]>=0.1,<0.2 ;", "entire-core[toml]>=0.0,<0.2 ;"),
        [
            'packages/agent-beta/pyproject.toml: requirement "entire-core[toml]>=0.0,<0.2 ; python_version >= '
            "'3.11'\" should be entire-core[toml]>=0.1,<0.2"
        ],
    ),
    "a private tool's range": (
        lambda r: edit(r, "tools/sim/pyproject.toml", '["entire-core"]', '["entire-core>=0.0,<0.1"]'),
        ["tools/sim/pyproject.toml: requirement 'entire-core>=0.0,<0.1' should be entire-core>=0.1,<0.2"],
    ),
    "agent without core": (
        lambda r: edit(r, ALPHA, 'dependencies = ["entire-core[toml]>=0.1,<0.2"]', "dependencies = []"),
        [
            "packages/agent-alpha/pyproject.toml: agent package entire-agent-alpha has no requirement on entire-core"
        ],
    ),
    "member missing from the root's dependencies": (
        lambda r: edit(r, "pyproject.toml", ' "entire-agent-beta",', ""),
        [
            "pyproject.toml: workspace member entire-agent-beta is not in the root's dependencies "
            "(a plain `uv run` would not install it)"
        ],
    ),
    "member missing from the lock": (
        lambda r: _drop_locked_package(r, "entire-agent-beta"),
        ["uv.lock: workspace member entire-agent-beta is missing (run uv lock)"],
    ),
    "stale lock version": (
        lambda r: edit(
            r, "uv.lock", 'name = "entire-core"\nversion = "0.1.0"', 'name = "entire-core"\nversion = "0.0.9"'
        ),
        ["uv.lock: entire-core is locked at '0.0.9' but its pyproject says '0.1.0' (run uv lock)"],
    ),
    "lock lists a removed member": (
        lambda r: edit(
            r, "uv.lock", '    "entire-core",\n', '    "entire-core",\n    "entire-agent-gone",\n'
        ),
        ["uv.lock: lists entire-agent-gone, which is no longer a workspace member (run uv lock)"],
    ),
    "no changelog section": (
        lambda r: edit(r, "CHANGELOG.md", "## 0.1.0 - 2026-01-01", "## 0.0.9 - 2026-01-01"),
        ["CHANGELOG.md: no section for 0.1.0 ('## 0.1.0 - YYYY-MM-DD')"],
    ),
    "no changelog": (
        lambda r: (r / "CHANGELOG.md").unlink(),
        ["CHANGELOG.md: missing (bump.py adds a section per release)"],
    ),
}


def _drop_locked_package(root: Path, name: str) -> None:
    lock = (root / "uv.lock").read_text(encoding="utf-8")
    blocks = lock.split("\n[[package]]\n")
    kept = [b for b in blocks if not b.startswith(f'name = "{name}"\n')]
    assert len(kept) == len(blocks) - 1
    (root / "uv.lock").write_text("\n[[package]]\n".join(kept), encoding="utf-8")


@pytest.mark.parametrize("skew", list(SKEWS))
def test_every_kind_of_skew_is_one_line_each(fake_workspace: Path, skew: str) -> None:
    mutate, expected = SKEWS[skew]
    mutate(fake_workspace)
    done = bump(fake_workspace, "--check")
    assert done.returncode == 1
    assert problems(done) == expected
    assert done.stderr.splitlines()[-1] == f"bump.py --check: {len(expected)} problem(s)"


def test_minor_bump_round_trips_and_edits_only_its_lines(fake_workspace: Path) -> None:
    beta = fake_workspace / BETA
    beta.write_bytes(beta.read_bytes().replace(b"\n", b"\r\n"))  # a CRLF file keeps its line ends
    (fake_workspace / BETA_INIT).write_text("__version__: str = '0.1.0'\n", encoding="utf-8")  # quotes kept
    before = snapshot(fake_workspace)

    done = bump(fake_workspace, "minor", "--notes", "- entire-core: faster.\n", "--date", "2026-12-01")
    assert done.returncode == 0, done.stderr
    assert bump(fake_workspace, "--check").returncode == 0
    after = snapshot(fake_workspace)

    assert changed_lines(before[ALPHA], after[ALPHA]) == [
        ('version = "0.1.0"\n', 'version = "0.2.0"\n'),
        (
            'dependencies = ["entire-core[toml]>=0.1,<0.2"]\n',
            'dependencies = ["entire-core[toml]>=0.2,<0.3"]\n',
        ),
    ]
    assert changed_lines(before[BETA], after[BETA]) == [
        ('version = "0.1.0"\r\n', 'version = "0.2.0"\r\n'),
        ('    "entire-core >= 0.1, < 0.2",\r\n', '    "entire-core >=0.2,<0.3",\r\n'),
        (
            "extra = [\"entire-core[toml]>=0.1,<0.2 ; python_version >= '3.11'\"]\r\n",
            "extra = [\"entire-core[toml]>=0.2,<0.3 ; python_version >= '3.11'\"]\r\n",
        ),
    ]
    assert changed_lines(before[BETA_INIT], after[BETA_INIT]) == [
        ("__version__: str = '0.1.0'\n", "__version__: str = '0.2.0'\n")
    ]
    assert changed_lines(before[CORE_INIT], after[CORE_INIT]) == [
        ('__version__ = "0.1.0"\n', '__version__ = "0.2.0"\n')
    ]
    sim = "tools/sim/pyproject.toml"
    assert changed_lines(before[sim], after[sim]) == [('version = "0.1.0"\n', 'version = "0.2.0"\n')]
    assert after["tools/sim/src/entire_sim/__init__.py"] == before["tools/sim/src/entire_sim/__init__.py"]
    assert after["pyproject.toml"] == before["pyproject.toml"]
    log = after["CHANGELOG.md"].decode()
    assert log == before["CHANGELOG.md"].decode().replace(
        "## 0.1.0 - 2026-01-01", "## 0.2.0 - 2026-12-01\n\n- entire-core: faster.\n\n## 0.1.0 - 2026-01-01"
    )
    assert re.findall(r'name = "(entire-[a-z-]+)"\nversion = "([0-9.]+)"', after["uv.lock"].decode()) == [
        ("entire-agent-alpha", "0.2.0"),
        ("entire-agent-beta", "0.2.0"),
        ("entire-core", "0.2.0"),
        ("entire-sim", "0.2.0"),
    ]


def test_explicit_major_then_patch(fake_workspace: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes.md"
    notes.write_text("Big one.\n", encoding="utf-8")
    assert bump(fake_workspace, "1.0.0", "--notes-file", str(notes)).returncode == 0
    assert 'dependencies = ["entire-core[toml]>=1.0,<1.1"]' in (fake_workspace / ALPHA).read_text(
        encoding="utf-8"
    )
    assert bump(fake_workspace, "patch", "--notes", "Small one.").returncode == 0
    text = (fake_workspace / ALPHA).read_text(encoding="utf-8")
    assert 'version = "1.0.1"' in text
    assert 'dependencies = ["entire-core[toml]>=1.0,<1.1"]' in text
    log = (fake_workspace / "CHANGELOG.md").read_text(encoding="utf-8")
    assert log.index("## 1.0.1 - ") < log.index("## 1.0.0 - ") < log.index("## 0.1.0 - ")
    assert bump(fake_workspace, "--check").returncode == 0


def test_a_bump_repairs_skewed_lines(fake_workspace: Path) -> None:
    edit(fake_workspace, BETA_INIT, '"0.1.0"', '"0.0.3"')
    edit(fake_workspace, ALPHA, "entire-core[toml]>=0.1,<0.2", "entire-core[toml]>=0.0")
    done = bump(fake_workspace, "minor", "--notes", "Repaired.")
    assert done.returncode == 0, done.stderr
    assert '"0.2.0"' in (fake_workspace / BETA_INIT).read_text(encoding="utf-8")
    assert '"entire-core[toml]>=0.2,<0.3"' in (fake_workspace / ALPHA).read_text(encoding="utf-8")


def test_an_explicit_version_repairs_disagreeing_versions(fake_workspace: Path) -> None:
    edit(fake_workspace, ALPHA, 'version = "0.1.0"', 'version = "0.1.1"')
    done = bump(fake_workspace, "0.2.0", "--notes", "Together again.")
    assert done.returncode == 0, done.stderr
    assert bump(fake_workspace, "--check").returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["0.1.0", "--notes", "x"], "bump.py: 0.1.0 is not newer than 0.1.0"),
        (["0.0.9", "--notes", "x"], "bump.py: 0.0.9 is not newer than 0.1.0"),
        (["1.2", "--notes", "x"], "bump.py: '1.2' is neither X.Y.Z nor major, minor or patch"),
        (["minor", "--notes", "  \n"], "bump.py: release notes are empty: give --notes or --notes-file"),
    ],
)
def test_refused_bumps_write_nothing(fake_workspace: Path, args: list[str], message: str) -> None:
    before = snapshot(fake_workspace)
    done = bump(fake_workspace, *args)
    assert done.returncode == 1
    assert done.stderr.strip() == message
    assert snapshot(fake_workspace) == before


def test_relative_bump_refuses_disagreeing_versions(fake_workspace: Path) -> None:
    edit(fake_workspace, ALPHA, 'version = "0.1.0"', 'version = "0.1.1"')
    before = snapshot(fake_workspace)
    done = bump(fake_workspace, "patch", "--notes", "x")
    assert done.stderr.strip() == "bump.py: versions disagree (0.1.0, 0.1.1); bump to an explicit X.Y.Z"
    assert snapshot(fake_workspace) == before


def test_a_section_that_exists_is_not_added_twice(fake_workspace: Path) -> None:
    edit(fake_workspace, "CHANGELOG.md", "# Changelog\n", "# Changelog\n\n## 0.2.0 - 2026-01-02\n\nEarly.\n")
    before = snapshot(fake_workspace)
    done = bump(fake_workspace, "minor", "--notes", "x")
    assert done.stderr.strip() == "bump.py: CHANGELOG.md already has a section for 0.2.0"
    assert snapshot(fake_workspace) == before


def test_unreleased_lines_join_the_new_release_section() -> None:
    from bump import changelog_with

    text = "# Changelog\n\n## Unreleased\n\n- **entire-agent-x**: new agent package.\n\n## 0.1.0 - 2026-11-30\n\n- first\n"
    result = changelog_with(text, "0.2.0", "2026-12-01", "- notes")
    assert "Unreleased" not in result
    assert result.index("## 0.2.0 - 2026-12-01\n\n- notes\n- **entire-agent-x**") < result.index("## 0.1.0")
    assert result.endswith("## 0.1.0 - 2026-11-30\n\n- first\n")
