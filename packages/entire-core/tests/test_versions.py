"""Support windows: version parsing, the verdict for every side of a window, the README table, probing."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
from entire_core.errors import AgentError
from entire_core.versions import Release, SupportWindow, parse_version, probe, refuse_older

WINDOW = SupportWindow(
    agent="Some CLI",
    tested=(Release("0.130.0", "a", "x"), Release("0.139.0", "b", "y"), Release("0.171.0", "c", "z")),
    upgrade="npm install -g some@{newest}",
)


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("0.171.0", (0, 171, 0)),
        ("codex-cli 0.130.0", (0, 130, 0)),
        ("0.130.0-alpha.1", (0, 130, 0)),
        ("aider v0.86.2", (0, 86, 2)),
        ("0.62.0-nightly.20261201.abc+build", (0, 62, 0)),
        ("version 1.2", None),
        ("x", None),
        ("", None),
    ],
)
def test_parse_version(text: str, parsed: tuple[int, int, int] | None) -> None:
    assert parse_version(text) == parsed


def test_window_shape() -> None:
    assert (WINDOW.oldest, WINDOW.newest) == ("0.130.0", "0.171.0")
    assert WINDOW.versions() == ["0.130.0", "0.139.0", "0.171.0"]
    assert WINDOW.describe() == "Some CLI 0.130.0 to 0.171.0 (tested: 0.130.0, 0.139.0, 0.171.0)"
    assert WINDOW.upgrade_command() == "npm install -g some@0.171.0"
    with pytest.raises(ValueError, match="oldest first"):
        SupportWindow("X", (Release("0.2.0", "", ""), Release("0.1.0", "", "")), "")
    with pytest.raises(ValueError):
        SupportWindow("X", (), "")
    with pytest.raises(ValueError):
        SupportWindow("X", (Release("one", "", ""),), "")


def test_verdicts() -> None:
    window = "supported: Some CLI 0.130.0 to 0.171.0 (tested: 0.130.0, 0.139.0, 0.171.0)"
    older = WINDOW.verdict("codex-cli 0.120.0")
    assert (older.status, older.supported, older.version) == ("older", False, "0.120.0")
    assert older.message == (
        f"Some CLI 0.120.0 is older than the supported window; {window}; upgrade: `npm install -g some@0.171.0`"
    )
    inside = WINDOW.verdict("0.147.0")
    assert (inside.status, inside.supported, inside.message) == (
        "supported",
        True,
        f"Some CLI 0.147.0; {window}",
    )
    assert WINDOW.verdict("0.139.0").message == f"Some CLI 0.139.0 (tested); {window}"
    newer = WINDOW.verdict("0.200.1")
    assert (newer.status, newer.supported) == ("newer", True)
    assert newer.message == f"Some CLI 0.200.1 is newer than the newest tested version; {window}"
    unknown = WINDOW.verdict("garbage")
    assert (unknown.status, unknown.version) == ("unknown", "")
    assert unknown.message == f"Some CLI reported no version ('garbage'); {window}"
    assert WINDOW.verdict(None).message == f"Some CLI reported no version; {window}"


def test_markdown_table() -> None:
    assert WINDOW.markdown_table() == (
        "| Version | What the tests run | Known differences |\n|---|---|---|\n"
        "| 0.130.0 | a | x |\n| 0.139.0 | b | y |\n| 0.171.0 | c | z |\n"
    )


def _script(tmp_path: Path, body: str) -> str:
    path = tmp_path / "tool"
    path.write_text(f"#!{sys.executable}\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.mark.skipif(os.name == "nt", reason="a POSIX script stands in for the agent's binary")
def test_probe(tmp_path: Path) -> None:
    env = dict(os.environ)
    assert probe(_script(tmp_path, "print('banner\\ncodex-cli 0.130.0\\n')"), env) == (
        "codex-cli 0.130.0",
        "",
    )
    reported, problem = probe(_script(tmp_path, "import sys; sys.exit(3)"), env)
    assert reported is None and problem.endswith("printed no version (exit 3)")
    reported, problem = probe(str(tmp_path / "missing"), env)
    assert reported is None and "--version` failed" in problem


@pytest.mark.skipif(os.name == "nt", reason="a POSIX script stands in for the agent's binary")
def test_refuse_older(tmp_path: Path) -> None:
    env = {"PATH": str(tmp_path)}
    refuse_older(WINDOW, "tool", env)  # not installed: nothing to refuse
    for version in ("0.130.0", "0.171.0", "0.300.0"):
        _script(tmp_path, f"print('tool {version}')")
        refuse_older(WINDOW, "tool", env)
    _script(tmp_path, "print('no version')")
    refuse_older(WINDOW, "tool", env)
    _script(tmp_path, "print('tool 0.120.0')")
    with pytest.raises(AgentError) as caught:
        refuse_older(WINDOW, "tool", env)
    assert str(caught.value) == (
        "hooks not installed: Some CLI 0.120.0 is older than the supported window; supported: Some CLI 0.130.0 "
        "to 0.171.0 (tested: 0.130.0, 0.139.0, 0.171.0); upgrade: `npm install -g some@0.171.0`"
    )
