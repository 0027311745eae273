"""The shell commands the READMEs show, so tests can run exactly them and the docs cannot rot."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ("aider", "cline-cli", "google-gemini", "openai-codex", "qwen-code")
_COMMENT = re.compile(r"\s{2,}#.*$")


def readmes() -> list[Path]:
    """Every README of the workspace."""
    return sorted(p for p in ROOT.glob("**/README.md") if ".venv" not in p.parts and "data" not in p.parts)


def commands(readme: Path) -> list[str]:
    """The commands in the ```sh blocks of ``readme``, without their trailing comments, in order."""
    found: list[str] = []
    inside = False
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            inside = line.strip() == "```sh" if not inside else False
            continue
        if inside:
            command = _COMMENT.sub("", line).strip()
            if command and not command.startswith("#"):
                found.append(command)
    return found


def all_commands() -> dict[str, list[str]]:
    """Each README command and the READMEs (relative paths) that show it."""
    shown: dict[str, list[str]] = {}
    for readme in readmes():
        for command in commands(readme):
            where = shown.setdefault(command, [])
            if str(readme.relative_to(ROOT)) not in where:
                where.append(str(readme.relative_to(ROOT)))
    return shown


def shown(command: str) -> str:
    """``command`` itself, after checking a README shows it (so a test runs what users read)."""
    assert command in all_commands(), f"no README shows {command!r}"
    return command


def for_agent(command: str, agent: str) -> str:
    """A README command with ``<name>`` filled in for ``agent``, literally: a path made of the name (such as
    ``./packages/agent-<name>``) must be right for every agent, or not be written that way."""
    return shown(command).replace("<name>", agent)


PACKAGE_DIRS = {
    "aider": "packages/agent-aider",
    "cline-cli": "packages/agent-cline-cli",
    "google-gemini": "packages/agent-gemini",
    "openai-codex": "packages/agent-codex",
    "qwen-code": "packages/agent-qwen-code",
}
"""Each agent's folder in the checkout (not always ``agent-<name>``)."""

_INSTALLS = re.compile(r"^uv (?:tool (?:un)?install|build) ")


def install_lines() -> dict[str, list[str]]:
    """Every ``uv tool install``, ``uv build`` and ``uv tool uninstall`` line of an agent the READMEs show, with
    ``<name>`` filled in for each agent, and the READMEs showing it (lines of other tools, such as Go's, left out)."""
    lines: dict[str, list[str]] = {}
    for command, where in all_commands().items():
        if not _INSTALLS.match(command) or not ("entire-agent-" in command or "./packages/" in command
                                                or command.startswith("uv build ")):  # fmt: skip
            continue
        for filled in sorted({command.replace("<name>", agent) for agent in AGENTS}):
            readmes_of = lines.setdefault(filled, [])
            readmes_of += [name for name in where if name not in readmes_of]
    return lines


_FENCE = re.compile(r"^```.*?^```[^\n]*$", re.M | re.S)
_SPAN = re.compile(r"`(entire [^`]+)`")


def entire_commands() -> dict[str, list[str]]:
    """Every ``entire ...`` command a README names, in a ```sh block or inline, and the READMEs naming it.

    Inline spans are read with line breaks as spaces (a span may wrap), and ``a | b`` alternatives stay
    one command; the test that runs them fills in the placeholders.
    """
    found: dict[str, list[str]] = {}
    for readme in readmes():
        name = str(readme.relative_to(ROOT))
        text = readme.read_text(encoding="utf-8")
        names = [c for c in commands(readme) if c.startswith("entire ")]
        names += [" ".join(m.split()) for m in _SPAN.findall(_FENCE.sub("", text).replace("\n", " "))]
        for command in names:
            readmes_of = found.setdefault(command, [])
            if name not in readmes_of:
                readmes_of.append(name)
    return found
