"""``SupportWindowContract``: the contract kit's standard tests of an agent's support window."""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

import pytest

from entire_core.agent import Agent, HookSupport
from entire_core.errors import AgentError
from entire_core.testing.runner import Sandbox
from entire_core.versions import SupportWindow


def older_tested(window: SupportWindow) -> list[str]:
    """The tested versions below the newest: each needs captures of its own in ``tests/data/v<version>``."""
    return window.versions()[:-1]


def just_below(version: str) -> str:
    """A version just below ``version`` (``"0.130.0"`` -> ``"0.129.0"``, ``"0.82.3"`` -> ``"0.82.2"``)."""
    major, minor, patch = (int(part) for part in version.split("."))
    if patch:
        return f"{major}.{minor}.{patch - 1}"
    return f"{major}.{minor - 1}.0" if minor else f"{major - 1}.0.0"


class SupportWindowContract:
    """Standard tests of an agent's support window (``WINDOW`` in its ``versions.py``).

        class TestCodexWindow(SupportWindowContract):
            window = WINDOW
            agent_cls = OpenAICodexAgent
            package_dir = Path(__file__).parents[1]
            binary, version_line, hooks_installed = "codex", "codex-cli {version}", 8

    The README's table and one-line summary are the window; every tested version below the newest has
    captures in ``tests/data/v<version>`` and every capture directory is a tested version; the window
    judges versions below, in and past it; ``install-hooks`` refuses a version just below the window
    (a stand-in ``binary`` printing ``version_line``), changing nothing, and installs at the oldest.
    The agent's own cases (its doctor's wording, what each old capture holds) stay in its tests.
    """

    window: ClassVar[SupportWindow]
    agent_cls: ClassVar[type[Agent]]
    package_dir: ClassVar[Path]
    """The agent package's directory: ``README.md`` and ``tests/data`` are found there."""
    binary: ClassVar[str]
    version_line: ClassVar[str]
    """What ``<binary> --version`` prints, with ``{version}`` in it."""
    hooks_installed: ClassVar[int]
    """What ``install-hooks`` returns in a fresh repository."""
    extra_env: ClassVar[dict[str, str]] = {}

    def test_the_readme_table_is_the_window(self) -> None:
        text = (self.package_dir / "README.md").read_text(encoding="utf-8")
        assert self.window.markdown_table() in text
        assert " ".join(text.split()).count(f"Supported: {self.window.describe()}.") == 1

    def test_every_older_tested_version_has_captures(self) -> None:
        data = self.package_dir / "tests" / "data"
        for version in older_tested(self.window):
            assert any((data / f"v{version}").iterdir()), f"no captures of {version} in {data}/v{version}"
        captured = sorted(p.name.removeprefix("v") for p in data.glob("v[0-9]*") if p.is_dir())
        assert set(captured) <= set(self.window.versions()), f"captures of untested versions: {captured}"

    def test_the_window_judges_versions(self) -> None:
        window = self.window
        for version in window.versions():
            verdict = window.verdict(self.version_line.format(version=version))
            assert (verdict.status, verdict.version, verdict.supported) == ("supported", version, True)
            assert verdict.message.startswith(f"{window.agent} {version} (tested); supported: ")
        below = window.verdict(self.version_line.format(version=just_below(window.oldest)))
        assert below.status == "older" and not below.supported
        assert below.message.endswith(f"upgrade: `{window.upgrade_command()}`")
        major, minor, _ = window.newest.split(".")
        past = window.verdict(self.version_line.format(version=f"{major}.{int(minor) + 1}.0"))
        assert past.status == "newer" and past.supported
        assert window.verdict("").status == window.verdict("no version").status == "unknown"

    @pytest.mark.skipif(os.name == "nt", reason="a POSIX script stands in for the agent")
    def test_install_refuses_a_version_below_the_window(self, tmp_path: Path) -> None:
        sandbox = Sandbox(tmp_path)
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        stand_in = bin_dir / self.binary
        env = {**sandbox.env, **self.extra_env, "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"}
        agent = self.agent_cls(env=env, cwd=str(sandbox.repo))
        assert isinstance(agent, HookSupport)
        below = just_below(self.window.oldest)
        stand_in.write_text(f"#!/bin/sh\necho '{self.version_line.format(version=below)}'\n")
        stand_in.chmod(0o755)
        before = sandbox.snapshot()
        message = f"hooks not installed: {self.window.agent} {below} is older than the supported window; "
        with pytest.raises(AgentError) as refused:
            agent.install_hooks()
        assert str(refused.value).startswith(message)
        assert sandbox.snapshot() == before
        stand_in.write_text(f"#!/bin/sh\necho '{self.version_line.format(version=self.window.oldest)}'\n")
        assert agent.install_hooks() == self.hooks_installed

    def test_one_install_hint_everywhere(self, tmp_path: Path) -> None:
        """Without the agent on PATH, ``doctor`` and ``generate-text`` give the window's one install hint."""
        from entire_core.testing.runner import InProcessRunner

        sandbox = Sandbox(tmp_path, extra_env={**self.extra_env, "PATH": str(tmp_path / "empty")})
        run = InProcessRunner(self.agent_cls, sandbox)
        what, fix = self.window.not_installed(self.binary)
        assert fix == f"`{self.window.upgrade_command()}`"
        lines = run("doctor").text.splitlines()
        assert f"FAIL  {what}" in lines, lines
        assert lines[lines.index(f"FAIL  {what}") + 1] == f"      fix: {fix}", lines
        if self.agent_cls.has("text_generator"):
            answer = run("generate-text", stdin=b"Say hi.")
            assert answer.code == 1
            assert answer.error.strip() == f"entire-agent-{self.agent_cls.name} generate-text: {what}: {fix}"
