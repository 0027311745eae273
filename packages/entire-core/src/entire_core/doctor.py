"""The ``doctor`` report every agent prints: checks that are ok, warn or fail, each problem with its fix.

An agent's ``doctor.py`` runs its checks into a ``Report`` and returns ``report.print()``, so every
agent's doctor looks the same and exits the same way::

    entire-agent-openai-codex doctor: /home/me/project
    ok    Codex CLI 0.171.0 at /usr/bin/codex (tested; supported: 0.130.0 to 0.171.0)
    FAIL  Entire's hooks are not installed in /home/me/project/.codex/hooks.json
          fix: `entire enable --agent openai-codex`
    skip  hook trust (not checked: the hooks are not installed)
    WARN  Gemini has not seen our project hooks yet
          note: its next start warns once, then records them
    result: 1 failed, 1 warning, 1 ok, 1 not checked

The exit status is 1 when a check failed and 0 otherwise, warnings included. A check that depends on
one that failed is reported with ``skip``, never ``ok``. ``check_version`` is the shared check of the
installed agent against its support window. Stdlib only: doctor is a command for people, but it is
loaded by the same console script as the hooks.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import TextIO

    from entire_core.agent import Agent
    from entire_core.versions import Installed, SupportWindow

OK, WARN, FAIL, SKIP = "ok", "WARN", "FAIL", "skip"
"""A check's status, as printed at the start of its line."""
INDENT = " " * 6
"""Where a check's text starts, and where its ``fix:`` and ``note:`` lines start."""

LINE_FORMS = re.compile(
    r"(?:ok  |WARN|FAIL|skip)  \S.*"  # a check
    r"|      (?:fix|note): \S.*"  # what to do about the check above, or what to know about it
    r"|result: \S.*"  # the last line
    r"|entire-agent-[a-z0-9-]+ doctor: \S.*"  # the first line
)
"""Every line a report prints matches one of these forms (the contract kit checks each agent's doctor)."""


@dataclass(frozen=True)
class Check:
    """One thing the doctor looked at and what it found."""

    status: str
    """``OK``, ``WARN``, ``FAIL`` or ``SKIP``."""
    what: str
    """What was found, one line: ``"Entire's hooks are not installed in .codex/hooks.json"``."""
    fix: str | None = None
    """The exact fix, one line: a command in backticks, or a concrete edit. Every failure has one."""
    note: str | None = None
    """What else to know about it, one line."""


class Report:
    """The checks of one ``doctor`` run, in the order they ran.

    ``program`` is the console script the report is about (``entire-agent-<name>``), for fixes that
    name one of its commands: ``f"`{report.program} install-hooks --force`"``.
    """

    def __init__(self, title: str, program: str = "") -> None:
        self.title = title
        self.program = program
        self.checks: list[Check] = []

    @classmethod
    def for_agent(cls, agent: Agent) -> Report:
        """A report titled ``entire-agent-<name> doctor: <repository root>``, about ``entire-agent-<name>``."""
        from entire_core import program_name

        program = program_name(agent.name)
        return cls(f"{program} doctor: {agent.repo_root}", program)

    def _add(self, check: Check) -> Check:
        self.checks.append(check)
        return check

    def ok(self, what: str, *, note: str | None = None) -> Check:
        """Record a check that passed."""
        return self._add(Check(OK, what, note=note))

    def warn(self, what: str, fix: str | None = None, *, note: str | None = None) -> Check:
        """Record something that works but deserves attention; it does not change the exit status."""
        return self._add(Check(WARN, what, fix, note))

    def fail(self, what: str, fix: str, *, note: str | None = None) -> Check:
        """Record a problem that stops Entire from recording, with the exact fix."""
        if not fix.strip():
            raise ValueError(f"a failed check needs its fix: {what}")
        return self._add(Check(FAIL, what, fix, note))

    def skip(self, what: str, because: str) -> Check:
        """Record a check that cannot be made because one it depends on failed."""
        return self._add(Check(SKIP, f"{what} (not checked: {because})"))

    def count(self, status: str) -> int:
        """How many checks ended with ``status``."""
        return sum(1 for check in self.checks if check.status == status)

    @property
    def failed(self) -> bool:
        """True when a check failed."""
        return self.count(FAIL) > 0

    @property
    def exit_code(self) -> int:
        """1 when a check failed, 0 otherwise (warnings included)."""
        return 1 if self.failed else 0

    def summary(self) -> str:
        """The last line: ``result: 1 failed, 2 warnings, 5 ok, 1 not checked``."""
        counts = [
            (self.count(FAIL), "failed", "failed"),
            (self.count(WARN), "warning", "warnings"),
            (self.count(OK), "ok", "ok"),
            (self.count(SKIP), "not checked", "not checked"),
        ]
        parts = [f"{n} {one if n == 1 else many}" for n, one, many in counts if n]
        return "result: " + (", ".join(parts) or "nothing to check")

    def lines(self) -> list[str]:
        """The report as printed, one line per item, without line breaks."""
        out = [self.title]
        for check in self.checks:
            out.append(f"{check.status:<4}  {_one_line(check.what)}")
            if check.fix:
                out.append(f"{INDENT}fix: {_one_line(check.fix)}")
            if check.note:
                out.append(f"{INDENT}note: {_one_line(check.note)}")
        out.append(self.summary())
        return out

    def render(self) -> str:
        """The report as printed."""
        return "".join(line + "\n" for line in self.lines())

    def print(self, stream: TextIO | None = None) -> int:
        """Write the report to ``stream`` (stdout by default); return the exit status."""
        (stream or sys.stdout).write(self.render())
        return self.exit_code


def _one_line(text: str) -> str:
    return " ".join(text.split())


def check_version(
    report: Report, window: SupportWindow, program: str, env: Mapping[str, str], *, timeout: float = 30
) -> Installed:
    """Report the installed agent against its support window; return what was found.

    Not on PATH and older than the window fail, with the install or upgrade command as the fix; newer
    than the newest tested version, or no readable version, warn.
    """
    from entire_core.versions import installed_version

    found = installed_version(window, program, env, timeout=timeout)
    command = f"`{window.upgrade_command()}`"
    supported = f"supported: {window.oldest} to {window.newest}"
    verdict = found.verdict
    if found.binary is None:
        report.fail(*window.not_installed(program))
    elif verdict is None or verdict.status == "unknown":
        problem = found.problem if verdict is None else verdict.message
        report.warn(f"{problem}; {supported}")
    elif verdict.status == "older":
        where = f"{window.agent} {verdict.version} at {found.binary}"
        report.fail(f"{where} is older than {window.oldest} ({supported})", command)
    elif verdict.status == "newer":
        where = f"{window.agent} {verdict.version} at {found.binary}"
        note = "formats are read tolerantly, but this version has not been tested"
        report.warn(f"{where} is newer than the newest tested version ({supported})", note=note)
    else:
        tested = "tested; " if verdict.version in window.versions() else ""
        report.ok(f"{window.agent} {verdict.version} at {found.binary} ({tested}{supported})")
    return found
