"""The subcommands that run on every hook import nothing heavy (checked with ``python -X importtime``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from entire_core.testing.pytest_plugin import Imports, heavy
from entire_core.testing.runner import Sandbox, imported_modules

HOT = [
    (["info"], b""),
    (["--help"], b""),
    (["detect"], b""),
    (["get-transcript-position", "--path", "/nonexistent"], b""),
    (["parse-hook", "--hook", "stop"], json.dumps({"session_id": "s", "transcript_path": "/t"}).encode()),
    (["parse-hook", "--hook", "stop"], b""),
    (["extract-modified-files", "--path", "/nonexistent", "--offset", "0"], b""),
    (["calculate-tokens", "--offset", "0"], b'{"type": "assistant", "usage": {"input": 1}}\n'),
]


@pytest.mark.parametrize(
    ("args", "stdin"), HOT, ids=[" ".join(a[:1]) + str(i) for i, (a, _) in enumerate(HOT)]
)
def test_hot_subcommands_stay_light(
    sample_script: Path, imports: Imports, args: list[str], stdin: bytes
) -> None:
    modules = imports(sample_script, *args, stdin=stdin)
    assert "entire_core.cli" in modules  # the measurement itself works
    assert heavy(modules) == set()


def test_validating_subcommands_do_import_pydantic(sample_script: Path, imports: Imports) -> None:
    # The check above could pass vacuously if importtime output were not parsed; this one cannot.
    stdin = json.dumps({"session_id": "s", "session_ref": "/nonexistent"}).encode()
    assert "pydantic" in imports(sample_script, "read-session", stdin=stdin)


# What each hot subcommand may load beyond the interpreter's start-up and the agent's own module:
# the dispatcher, its handler module and the small pieces that handler uses. No json, re, enum,
# typing, dataclasses or pathlib: each of those costs a share of python's own start-up.
NEEDED = {
    "info": {"entire_core.cli", "entire_core.cli_flags", "entire_core.cli_stdio", "entire_core.commands",
             "entire_core._json", "entire_core.validate"},
    "get-transcript-position": {"entire_core.cli", "entire_core.cli_flags", "entire_core.cli_stdio",
                                "entire_core.commands", "entire_core._json", "entire_core.validate",
                                "entire_core.views.frames", "entire_core.offsets"},
}  # fmt: skip
"""``get-transcript-position`` also loads the view frames its answer is in (``views`` loads each part as it is
used) and the agent's own reading of the position (``offsets``, which the whole of ``views`` loaded before)."""


@pytest.mark.parametrize(
    "args", [["info"], ["get-transcript-position", "--path", "/nonexistent"]], ids=lambda a: a[0]
)
def test_info_and_position_import_only_what_they_need(
    sample_script: Path, imports: Imports, sandbox: Sandbox, args: list[str]
) -> None:
    before = imported_modules(sample_script, [], sandbox, code="import entire_core.testing.sample_agent")
    extra = imports(sample_script, *args) - before
    assert extra == NEEDED[args[0]]
