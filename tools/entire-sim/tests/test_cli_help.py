"""``entire-sim --help`` and each command's: plain text, and a line of help for every argument."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

COMMANDS = ["demo", "discover", "enable", "disable", "hooks", "resume", "report", "soak", "install-shim"]


def _help(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "entire_sim.cli", *args, "--help"], capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip
    assert (done.returncode, done.stderr) == (0, ""), done
    return done.stdout


def test_the_top_help_is_plain_text_and_lists_every_command() -> None:
    text = _help()
    assert "``" not in text and ":mod:" not in text
    for command in COMMANDS:
        assert re.search(rf"^\s+{re.escape(command)}\s", text, re.M), command


@pytest.mark.parametrize("command", COMMANDS)
def test_every_argument_has_a_line_of_help(command: str) -> None:
    text = _help(command)
    options = text.split("options:", 1)[1] if "options:" in text else ""
    positional = (
        text.split("positional arguments:", 1)[1].split("options:", 1)[0] if "positional" in text else ""
    )
    for block in (options, positional):
        # argparse prints an argument without help as its name alone on the line, nothing after it
        entries = re.findall(r"^  (\S.*?)(?:  +(\S.*))?$", block, re.M)
        bare = [name for name, described in entries if not described and not name.startswith("-h")]
        wrapped = [name for name in bare if f"  {name}\n                        " in block]
        assert sorted(set(bare) - set(wrapped)) == [], f"{command}: {bare}"


def test_the_readme_shows_every_command_and_the_state_flag() -> None:
    from pathlib import Path

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    for command in COMMANDS:
        assert f"| `entire-sim {command}" in readme, command
    assert "--state DIR" in readme and "$ENTIRE_SIM_STATE" in readme
