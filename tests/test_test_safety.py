"""No test string, fixture or contract-kit case holds a destructive command (issue 21's guard).

Hostile input keeps its shapes with harmless verbs (``entire_core.testing.hostile.CANARY_PAYLOADS``).
The scanner's own patterns live in ``hostile.py``, the one file it does not read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from entire_core.testing import hostile

ROOT = Path(__file__).resolve().parents[1]
SCANNED = [ROOT / "packages", ROOT / "tools", ROOT / "tests"]
PATTERNS_FILE = Path(hostile.__file__).resolve()


def test_no_test_tree_holds_a_destructive_command() -> None:
    found = [line for line in hostile.scan(SCANNED) if not line.startswith(f"{PATTERNS_FILE}:")]
    assert found == [], (
        "destructive commands in test strings or fixtures (use a canary payload):\n" + "\n".join(found)
    )


def _words(*parts: str) -> str:
    """A command joined at run time, so this file never holds it."""
    return " ".join(parts)


@pytest.mark.parametrize(
    "command",
    [
        _words("x;", "rm", "-rf", "~"),
        _words("rm", "-r", "build"),
        _words("rm", "-f", "x"),
        _words("rm", "--recursive", "x"),
        _words("sudo", "mk" + "fs.ext4", "/dev/sda1"),
        _words("dd", "if=/dev/zero", "of=/dev/sda"),
        _words("cat", "x", ">", "/dev/nvme0n1"),
        ":()" + "{ :|:& };:",
        _words("chmod", "-R", "777", "/"),
        _words("find", ".", "-name", "x", "-delete"),
        _words("git", "clean", "-fdx"),
        _words("Remove" + "-Item", "x", "-Recurse", "-Force"),
        _words("rd", "/s", "/q", "C:\\"),
        _words("sh" + "red", "-u", "x"),
    ],
)
def test_the_guard_catches_each_kind_of_destructive_command(command: str, tmp_path: Path) -> None:
    case = tmp_path / "tests" / "test_case.py"
    case.parent.mkdir()
    case.write_text(f"HOSTILE = [\n    'fine',\n    {command!r},\n]\n")
    assert hostile.scan([tmp_path]) == [f"{case}:3: {hostile.destructive_commands(command)[0][1]}"]


@pytest.mark.parametrize(
    "harmless",
    [
        *hostile.CANARY_PAYLOADS,
        _words("rm", "notes.txt"),
        "shutil.rmtree(staging)",
        "the form was confirmed",
        "git clean",
        "model /summary",
        "chmod 0600 file",
    ],
)
def test_the_guard_lets_harmless_shapes_through(harmless: str) -> None:
    assert hostile.destructive_commands(harmless) == []


def test_the_guard_reads_fixtures_and_scripts_but_not_build_output(tmp_path: Path) -> None:
    bad = _words("rm", "-rf", "/")
    for name in ("data/session.jsonl", "hook.sh", "bin/entire-shim", ".venv/lib/x.py", "build/x.txt",
                 "image.png"):  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(bad + "\n")
    found = sorted(line.split(":")[0].removeprefix(f"{tmp_path}/") for line in hostile.scan([tmp_path]))
    assert found == ["bin/entire-shim", "data/session.jsonl", "hook.sh"]
