"""A stand-in ``entire`` for doctor tests, answering the calls ``entire_core.chain`` makes as v0.10.3 does.

``entire version`` prints ``Entire CLI <version>``. ``entire hooks <agent> <hook>`` reads one JSON value
from stdin; outside a git repository it exits 0 quietly; otherwise, unless ``external_agents`` is true
in ``.entire/settings.json`` merged with ``.entire/settings.local.json`` (``local_only``: the local file
alone, as hosts after entireio/cli#2268 read it) and ``entire-agent-<agent>`` is on PATH, it fails with
the host's own message. Tests against the real binary use ``ENTIRE_BIN`` instead (marker ``host``).

``session_state`` and ``condensed`` write the state file v0.10.3 keeps per session, which plugins read
(a view's stored start and size, ``doctor``'s stuck sessions).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

_SCRIPT = """\
import json, os, shutil, sys
VERSION = {version!r}
LOCAL_ONLY = {local_only!r}
args = sys.argv[1:]
if args[:1] in (["version"], ["--version"]):
    print("Entire CLI " + VERSION)
    print("Go version: go1.26.8")
    sys.exit(0)
if len(args) != 3 or args[0] != "hooks":
    sys.stderr.write("fake entire: unsupported call " + " ".join(args) + "\\n")
    sys.exit(2)
try:
    json.loads(sys.stdin.read())
except ValueError:
    sys.stderr.write("failed to parse hook event: read stdin: empty hook input\\n")
    sys.exit(1)
here = os.getcwd()
while not os.path.exists(os.path.join(here, ".git")):
    if os.path.dirname(here) == here:
        sys.exit(0)
    here = os.path.dirname(here)
settings = {{}}
for name in (() if LOCAL_ONLY else ("settings.json",)) + ("settings.local.json",):
    try:
        with open(os.path.join(here, ".entire", name)) as f:
            settings.update(json.load(f))
    except (OSError, ValueError):
        pass
if settings.get("external_agents") is not True or not shutil.which("entire-agent-" + args[1]):
    sys.stderr.write('unknown agent "%s" (not found as built-in or external plugin)\\n' % args[1])
    sys.exit(1)
sys.exit(0)
"""


def fake_entire(bin_dir: Path, *, version: str = "0.10.3", local_only: bool = False) -> Path:
    """Write the stand-in as ``bin_dir/entire`` (executable) and return its path."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    path = bin_dir / "entire"
    path.write_text(f"#!{sys.executable}\n" + _SCRIPT.format(version=version, local_only=local_only))
    path.chmod(0o755)
    return path


def fake_plugin(bin_dir: Path, agent_name: str) -> Path:
    """An ``entire-agent-<name>`` on PATH for the stand-in to find (it is never run)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    path = bin_dir / f"entire-agent-{agent_name}"
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def real_entire() -> str:
    """The real Entire CLI named by ``ENTIRE_BIN``; skips the test with one line without it (fails with
    ``ENTIRE_HOST=1``)."""
    import os

    import pytest

    path = os.environ.get("ENTIRE_BIN", "")
    if path and os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    reason = "host: set ENTIRE_BIN to the Entire CLI binary to run this test against the real host"
    if os.environ.get("ENTIRE_HOST") == "1":
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def session_state(repo: Path, session_id: str, **state: object) -> None:
    """Write ``<repo>/.git/entire-sessions/<session_id>.json`` with ``state``, as the host keeps it.

    A repository never made one by ``git init`` gets a ``.git/HEAD``: git, and the plugin, take a ``.git``
    directory without one for no repository.
    """
    import json

    directory = repo / ".git" / "entire-sessions"
    directory.mkdir(parents=True, exist_ok=True)
    head = repo / ".git" / "HEAD"
    if not head.exists():
        head.write_text("ref: refs/heads/main\n")
    (directory / f"{session_id}.json").write_text(json.dumps({"session_id": session_id, **state}))


def condensed(repo: Path, session_id: str, view: str, data: bytes) -> tuple[int, int]:
    """The state after a commit condensed the view bytes ``data``: the line count and the size v0.10.3
    stores (``checkpoint_transcript_start``, ``checkpoint_transcript_size``), which it returns."""
    from entire_core.testing import compactor

    stored = (compactor.host_line_count(data), len(data))
    session_state(
        repo, session_id, transcript_path=view,
        checkpoint_transcript_start=stored[0], checkpoint_transcript_size=stored[1],
    )  # fmt: skip
    return stored
