"""Calling a plugin as the Entire CLI does and checking its answer as Go's decoder would.

``Env`` runs one subcommand in a sandbox (in process, or a console script one process per call);
``check_answer`` validates a JSON answer against the pydantic wire models in strict mode;
``check_doctor_report`` holds a doctor's output to core's report (``entire_core.doctor``).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from entire_core.testing.runner import InProcessRunner, Result, Sandbox, ScriptRunner

ERROR_LINE = re.compile(
    r"entire-agent-(?P<agent>[a-z0-9][a-z0-9-]*)(?: (?P<subcommand>[a-z][a-z0-9-]*))?: (?P<what>\S.*)"
)
"""Core's one error format (``entire_core.cli_stdio.error_line``): ``entire-agent-<name> <subcommand>: <what is
wrong>[: <what to do>]``; the subcommand is left out only when there is none to name."""


def error_format_problem(
    text: str, agent_name: str | None = None, subcommand: str | None = None
) -> str | None:
    """Why ``text`` (a whole stderr) is not one error line in core's format, or None when it is.

    With ``agent_name`` and ``subcommand`` (``""``: none), the line must name exactly those.
    """
    lines = text.strip().splitlines()
    if len(lines) != 1:
        return f"not one line: {text!r}"
    found = ERROR_LINE.fullmatch(lines[0])
    if found is None:
        return f"not entire-agent-<name> <subcommand>: <what is wrong>: {lines[0]!r}"
    if agent_name is not None and found["agent"] != agent_name:
        return f"names entire-agent-{found['agent']}, not entire-agent-{agent_name}: {lines[0]!r}"
    if subcommand is not None and (found["subcommand"] or "") != subcommand:
        return f"names the subcommand {found['subcommand']!r}, not {subcommand!r}: {lines[0]!r}"
    return None


class Env:
    """One test's sandbox and a ``call`` that runs a subcommand and validates its answer.

    With ``agent_name``, every failure ``fails`` sees must be one line in core's error format naming the
    agent and the subcommand.
    """

    def __init__(
        self,
        sandbox: Sandbox,
        runner: InProcessRunner | ScriptRunner,
        agent_name: str | None = None,
        commands: tuple[str, ...] = (),
    ) -> None:
        self.sandbox = sandbox
        self.runner = runner
        self.agent_name = agent_name
        self.commands = commands
        """The agent's commands for people (``doctor``, ...), which its errors name like subcommands."""

    @property
    def repo(self) -> Path:
        return self.sandbox.repo

    def raw(self, *args: str, stdin: bytes = b"") -> Result:
        """Run a subcommand and return what happened, unchecked."""
        return self.runner(*args, stdin=stdin)

    def call(self, *args: str, stdin: bytes = b"") -> Any:
        """Run a subcommand that must succeed; return its decoded answer, validated strictly."""
        result = self.raw(*args, stdin=stdin)
        assert result.code == 0, f"{args[0]} failed: {result!r}"
        return check_answer(args[0], result.stdout)

    def call_text(self, *args: str) -> str:
        """Run a command for people that must succeed quietly on stderr; return its stdout as text."""
        result = self.raw(*args)
        assert result.code == 0 and result.stderr == b"", f"{args} failed: {result!r}"
        return result.text

    def fails(self, *args: str, stdin: bytes = b"") -> Result:
        """Run a subcommand that must fail cleanly: non-zero exit, one line on stderr, empty stdout."""
        result = self.raw(*args, stdin=stdin)
        assert result.code != 0, f"{args[0]} should have failed: {result!r}"
        assert result.stdout == b"", f"{args[0]} printed on stdout while failing: {result!r}"
        assert_one_line_error(result)
        if self.agent_name is not None:
            from entire_core.cli import SUBCOMMANDS

            named = args[0] if args and (args[0] in SUBCOMMANDS or args[0] in self.commands) else ""
            problem = error_format_problem(result.error, self.agent_name, named)
            assert problem is None, f"{args[:1]}: {problem}"
        return result


def assert_one_line_error(result: Result) -> None:
    """stderr holds exactly one non-empty line and no traceback."""
    text = result.error
    assert text.strip(), f"no message on stderr: {result!r}"
    assert "Traceback" not in text, f"traceback on stderr: {result!r}"
    assert len(text.strip().splitlines()) == 1, f"more than one line on stderr: {result!r}"


def check_doctor_report(result: Result, agent_name: str) -> None:
    """``doctor`` printed core's report (``entire_core.doctor``): its forms only, a fix under each failure."""
    from itertools import pairwise

    from entire_core.doctor import FAIL, LINE_FORMS, WARN

    assert result.code in (0, 1), f"doctor exits 0 or 1: {result!r}"
    assert result.stderr == b"", f"doctor wrote to stderr: {result!r}"
    lines = result.text.splitlines()
    assert len(lines) >= 2, f"doctor printed no report: {result!r}"
    odd = [line for line in lines if not LINE_FORMS.fullmatch(line)]
    assert not odd, f"doctor lines outside the report's forms: {odd}"
    assert lines[0].startswith(f"entire-agent-{agent_name} doctor: "), lines[0]
    assert lines[-1].startswith("result: ") and not any(ln.startswith("result: ") for ln in lines[:-1])
    for above, line in pairwise(lines):
        if above.startswith(FAIL):
            assert line.lstrip().startswith("fix: "), f"no fix under {above!r}"
        if line.lstrip().startswith("fix: "):
            assert above.startswith((FAIL, WARN)), f"a fix under {above!r}"
    failed = any(line.startswith(FAIL) for line in lines)
    assert result.code == (1 if failed else 0), f"exit {result.code} with failed={failed}: {result!r}"


def check_answer(subcommand: str, stdout: bytes) -> Any:
    """Validate a successful answer the way Go's decoder and our pydantic models see it; return it decoded."""
    from entire_core.protocol import ANSWER_MODELS

    if subcommand in ("read-transcript", "reassemble-transcript", "write-hook-response"):
        return stdout
    if subcommand in ("write-session", "uninstall-hooks", "prepare-transcript"):
        return None
    assert stdout.endswith(b"\n"), f"{subcommand}: JSON answer must end with a newline: {stdout[:200]!r}"
    assert stdout.count(b"\n") == 1, f"{subcommand}: more than one line on stdout: {stdout[:200]!r}"
    value = json.loads(stdout)
    if subcommand == "parse-hook" and value is None:
        assert stdout.strip() == b"null"
        return None
    model = ANSWER_MODELS[subcommand]
    model.model_validate_json(stdout, strict=True)
    return value


def native_behind_view(ref: object, expected: dict[str, Any]) -> object:
    """A view path (``entire_core.views``) as the native path it views; any other value as it is.

    The view must be a file whose bytes are the native file's, when the native file is small.
    """
    if not isinstance(ref, str) or not ref:
        return ref
    directory, name = os.path.split(ref)
    meta_dir = os.path.join(directory, ".meta")
    stem = name.rsplit(".", 1)[0]
    meta_path = os.path.join(meta_dir, stem + ".json")
    if not os.path.isfile(meta_path):
        return ref
    with open(meta_path, "rb") as f:
        native = json.loads(f.read())["native"]
    assert os.path.isfile(ref), f"the view {ref} of {native} does not exist"
    if os.path.isfile(native) and os.path.getsize(native) < 1 << 20:
        with open(native, "rb") as a, open(ref, "rb") as b:
            assert a.read() == b.read(), f"the view {ref} differs from the small native file {native}"
    given = expected.get("session_ref")
    if isinstance(given, str) and os.path.abspath(given) == native:
        return given
    return native
