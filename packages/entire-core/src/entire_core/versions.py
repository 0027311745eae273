"""An agent's support window: the versions of the agent a plugin is tested against, in one place.

Each agent package declares one ``WINDOW`` in its ``versions.py``. ``installed_version`` is the one
probe of the installed agent (``<program> --version`` placed in the window): ``doctor`` reports it and
``install-hooks`` refuses a version below the window. The end-to-end tests are parametrized over
``WINDOW.versions()``, and the README's "Supported versions" table is ``WINDOW.markdown_table()`` (a
test holds them equal). Nothing here is
agent-specific and nothing heavy is imported.
"""

from __future__ import annotations

from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

Version = tuple[int, int, int]


def parse_version(text: str) -> Version | None:
    """The first ``X.Y.Z`` in ``text`` (``"codex-cli 0.171.0"`` -> ``(0, 171, 0)``); None when there is none.

    A pre-release or build suffix (``0.62.0-nightly.20261201``, ``v0.86.2``) is ignored.
    """
    for word in text.replace(",", " ").split():
        head = word.lstrip("v").split("-", 1)[0].split("+", 1)[0]
        parts = head.split(".")
        if len(parts) >= 3 and all(p.isdigit() for p in parts[:3]):
            return int(parts[0]), int(parts[1]), int(parts[2])
    return None


def format_version(version: Version) -> str:
    """``(0, 171, 0)`` -> ``"0.171.0"``."""
    return ".".join(str(part) for part in version)


@dataclass(frozen=True)
class Release:
    """One version of the agent the end-to-end tests run, and what is known about it."""

    version: str
    """The exact version installed by the tests (``"0.171.0"``)."""
    tested: str
    """What the tests exercise with this version (one line, for the README)."""
    differences: str
    """How this version differs from the others, and what the plugin does about it."""


@dataclass(frozen=True)
class Verdict:
    """Where an installed version falls relative to a window."""

    version: str
    """The version as the agent reported it, or empty when it could not be told."""
    status: str
    """``"supported"``, ``"older"`` (below the window: unsupported), ``"newer"`` (past the newest tested
    version: expected to work, not tested) or ``"unknown"`` (no version could be read)."""
    message: str
    """One line for the user naming the version, the window and, when needed, what to upgrade."""

    @property
    def supported(self) -> bool:
        """False only for a version below the window, the one case the plugin knows to be wrong."""
        return self.status != "older"


@dataclass(frozen=True)
class SupportWindow:
    """The oldest and newest agent versions a plugin supports, and the versions tested in between."""

    agent: str
    """The agent's name for people (``"Codex CLI"``)."""
    tested: tuple[Release, ...]
    """Every tested version, oldest first: the first is the oldest supported, the last the newest."""
    upgrade: str
    """The command that installs the newest tested version (``npm install -g @openai/codex@{newest}``)."""

    def __post_init__(self) -> None:
        parsed = [parse_version(t.version) for t in self.tested]
        known = [v for v in parsed if v is not None]
        if not known or len(known) != len(parsed) or known != sorted(known) or len(set(known)) != len(known):
            raise ValueError(f"{self.agent}: tested versions must be X.Y.Z, distinct and oldest first")

    @property
    def oldest(self) -> str:
        """The oldest supported version."""
        return self.tested[0].version

    @property
    def newest(self) -> str:
        """The newest tested version."""
        return self.tested[-1].version

    def versions(self) -> list[str]:
        """Every tested version, oldest first (what the end-to-end tests are parametrized over)."""
        return [t.version for t in self.tested]

    def describe(self) -> str:
        """``"Codex CLI 0.130.0 to 0.171.0 (tested: 0.130.0, 0.139.0, 0.171.0)"``."""
        return f"{self.agent} {self.oldest} to {self.newest} (tested: {', '.join(self.versions())})"

    def upgrade_command(self) -> str:
        """The upgrade command with the newest version filled in: the one install hint of the agent,
        which ``doctor``, ``install-hooks`` and ``generate-text`` all give."""
        return self.upgrade.format(newest=self.newest)

    def not_installed(self, program: str) -> tuple[str, str]:
        """``(what is wrong, what to do)`` when ``program`` is not on PATH, the same wherever it is said."""
        return f"{program} is not on PATH: {self.agent} is not installed", f"`{self.upgrade_command()}`"

    def verdict(self, reported: str | None) -> Verdict:
        """Where ``reported`` (what ``<agent> --version`` printed) falls in this window."""
        text = (reported or "").strip()
        parsed = parse_version(text)
        window = f"supported: {self.describe()}"
        if parsed is None:
            shown = f" ({text!r})" if text else ""
            return Verdict("", "unknown", f"{self.agent} reported no version{shown}; {window}")
        version = format_version(parsed)
        oldest, newest = parse_version(self.oldest), parse_version(self.newest)
        assert oldest is not None and newest is not None
        if parsed < oldest:
            return Verdict(version, "older", f"{self.agent} {version} is older than the supported window; "
                           f"{window}; upgrade: `{self.upgrade_command()}`")  # fmt: skip
        if parsed > newest:
            return Verdict(version, "newer", f"{self.agent} {version} is newer than the newest tested version; "
                           f"{window}")  # fmt: skip
        tested = " (tested)" if version in self.versions() else ""
        return Verdict(version, "supported", f"{self.agent} {version}{tested}; {window}")

    def markdown_table(self) -> str:
        """The README's "Supported versions" table."""
        rows = ["| Version | What the tests run | Known differences |", "|---|---|---|"]
        rows += [f"| {t.version} | {t.tested} | {t.differences} |" for t in self.tested]
        return "\n".join(rows) + "\n"


def probe(binary: str, env: Mapping[str, str], *, timeout: float = 30) -> tuple[str | None, str]:
    """``(what `binary --version` printed, problem)``: the output's last non-empty line, or why there is none."""
    import subprocess

    try:
        done = subprocess.run(
            [binary, "--version"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=dict(env),
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"`{binary} --version` failed: {exc}"
    lines = [line.strip() for line in done.stdout.decode("utf-8", "replace").splitlines() if line.strip()]
    if not lines or parse_version(lines[-1]) is None:
        return None, f"`{binary} --version` printed no version (exit {done.returncode})"
    return lines[-1], ""


@dataclass(frozen=True)
class Installed:
    """What is installed of an agent: where its binary is and where its version falls in the window."""

    program: str
    """The name looked up on PATH (``"codex"``)."""
    binary: str | None
    """The executable found on PATH, or None when there is none."""
    verdict: Verdict | None
    """Where the reported version falls in the window; None when no version could be read."""
    problem: str
    """Why there is no verdict (not on PATH, ``--version`` failed or printed none); empty otherwise."""


def installed_version(
    window: SupportWindow, program: str, env: Mapping[str, str], *, timeout: float = 30
) -> Installed:
    """Find ``program`` on the environment's PATH, run ``program --version`` and place it in ``window``.

    The one version probe of every agent: ``doctor`` reports it, ``install-hooks`` refuses below the window.
    """
    import os
    import shutil

    binary = shutil.which(program, path=env.get("PATH", os.defpath))
    if binary is None:
        return Installed(program, None, None, f"{program} is not on PATH")
    reported, problem = probe(binary, env, timeout=timeout)
    if problem:
        return Installed(program, binary, None, problem)
    return Installed(program, binary, window.verdict(reported), "")


def refuse_older(window: SupportWindow, program: str, env: Mapping[str, str]) -> None:
    """Raise AgentError when ``program`` on the environment's PATH reports a version below ``window``.

    ``install-hooks`` calls this before writing anything: hooks installed for such a version would not
    run, or not as the plugin needs, and failing is the only way ``entire enable`` shows the user why.
    A missing program, or one that reports no version, is no reason to refuse: the agent may be
    installed later, or elsewhere.
    """
    verdict = installed_version(window, program, env).verdict
    if verdict is not None and not verdict.supported:
        from entire_core.errors import AgentError

        raise AgentError(f"hooks not installed: {verdict.message}")
