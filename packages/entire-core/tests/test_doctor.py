"""The doctor report every agent prints: its look, its exit status, the shared version check, usage errors."""

from __future__ import annotations

import io
import os
import stat
import sys
from pathlib import Path

import pytest
from entire_core.doctor import FAIL, LINE_FORMS, OK, SKIP, WARN, Report, check_version
from entire_core.testing.runner import ScriptRunner
from entire_core.versions import Release, SupportWindow

WINDOW = SupportWindow(
    agent="Some CLI",
    tested=(Release("0.130.0", "a", "x"), Release("0.171.0", "c", "z")),
    upgrade="npm install -g some@{newest}",
)


def test_a_report_prints_each_check_its_fix_and_a_summary() -> None:
    report = Report("entire-agent-x doctor: /repo")
    report.ok("hooks installed in /repo/.x/hooks.json")
    report.fail("the project is not trusted", "`entire-agent-x trust --project`", note="Codex ignores .x/")
    report.skip("hook trust", "the project is not trusted")
    report.warn("newer than tested\nsecond line")
    out = io.StringIO()
    assert report.print(out) == 1
    assert out.getvalue() == (
        "entire-agent-x doctor: /repo\n"
        "ok    hooks installed in /repo/.x/hooks.json\n"
        "FAIL  the project is not trusted\n"
        "      fix: `entire-agent-x trust --project`\n"
        "      note: Codex ignores .x/\n"
        "skip  hook trust (not checked: the project is not trusted)\n"
        "WARN  newer than tested second line\n"
        "result: 1 failed, 1 warning, 1 ok, 1 not checked\n"
    )
    assert all(LINE_FORMS.fullmatch(line) for line in out.getvalue().splitlines())
    assert [c.status for c in report.checks] == [OK, FAIL, SKIP, WARN]


def test_warnings_do_not_fail_and_every_failure_needs_a_fix() -> None:
    report = Report("entire-agent-x doctor: /repo")
    report.warn("one", "`do this`")
    report.warn("two")
    assert (report.failed, report.exit_code, report.summary()) == (False, 0, "result: 2 warnings")
    with pytest.raises(ValueError, match="needs its fix"):
        report.fail("broken", " ")
    assert Report("t").summary() == "result: nothing to check"


def _tool(directory: Path, output: str) -> Path:
    path = directory / "tool"
    path.write_text(f"#!{sys.executable}\nprint({output!r})\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.skipif(os.name == "nt", reason="a POSIX script stands in for the agent's binary")
@pytest.mark.parametrize(
    ("output", "status", "what", "fix"),
    [
        (None, FAIL, "tool is not on PATH: Some CLI is not installed", "`npm install -g some@0.171.0`"),
        ("tool 0.120.0", FAIL, "Some CLI 0.120.0 at {tool} is older than 0.130.0 (supported: 0.130.0 to 0.171.0)",
         "`npm install -g some@0.171.0`"),
        ("tool 0.130.0", OK, "Some CLI 0.130.0 at {tool} (tested; supported: 0.130.0 to 0.171.0)", None),
        ("tool 0.150.0", OK, "Some CLI 0.150.0 at {tool} (supported: 0.130.0 to 0.171.0)", None),
        ("tool 0.180.0", WARN, "Some CLI 0.180.0 at {tool} is newer than the newest tested version "
         "(supported: 0.130.0 to 0.171.0)", None),
        ("no version", WARN, "`{tool} --version` printed no version (exit 0); supported: 0.130.0 to 0.171.0", None),
    ],
)  # fmt: skip
def test_check_version(tmp_path: Path, output: str | None, status: str, what: str, fix: str | None) -> None:
    tool = tmp_path / "tool"
    if output is not None:
        _tool(tmp_path, output)
    report = Report("t")
    found = check_version(report, WINDOW, "tool", {"PATH": str(tmp_path)})
    [check] = report.checks
    assert (check.status, check.what, check.fix) == (status, what.format(tool=tool), fix)
    assert found.binary == (None if output is None else str(tool))


@pytest.mark.skipif(os.name == "nt", reason="the launcher is a POSIX script")
def test_human_commands_refuse_unknown_flags_and_arguments(sample: ScriptRunner) -> None:
    """Core checks a human command's arguments against its declared flags, once for every agent."""
    for args in (["--verbose"], ["--json=1"], ["now"], ["-x"]):
        result = sample("doctor", *args)
        assert (result.code, result.stdout) == (2, b""), result
        [line] = result.error.splitlines()
        assert line.startswith("entire-agent-sample doctor: ") and "doctor --help" in line
    assert sample("doctor").code == 1  # no git repository, no hooks
    from entire_core.testing.host import fake_entire, fake_plugin
    from entire_core.testing.pytest_plugin import init_repository

    init_repository(sample.sandbox.repo)
    bin_dir = sample.sandbox.root / "host-bin"
    fake_entire(bin_dir)
    fake_plugin(bin_dir, "sample")
    sample.sandbox.env["PATH"] = f"{bin_dir}{os.pathsep}{sample.sandbox.env['PATH']}"
    (sample.sandbox.repo / ".entire").mkdir()
    (sample.sandbox.repo / ".entire" / "settings.json").write_text(
        '{"enabled": true, "external_agents": true}'
    )
    assert sample("doctor").code == 1  # no hooks
    sample("install-hooks")
    done = sample("doctor")
    assert (done.code, done.text.splitlines()[-1]) == (0, "result: 6 ok"), done.text


def test_a_report_for_an_agent_names_its_program(tmp_path: Path) -> None:
    """Fixes that name one of the plugin's commands take the program from the report, not a constant."""
    from entire_core.testing.sample_agent import SampleAgent

    report = Report.for_agent(SampleAgent(env={"ENTIRE_REPO_ROOT": str(tmp_path)}))
    assert (report.program, report.title) == (
        "entire-agent-sample",
        f"entire-agent-sample doctor: {tmp_path}",
    )
    assert LINE_FORMS.fullmatch(report.lines()[0])
    assert Report("t").program == ""
