"""``InfoContract``: the contract kit's standard tests of what a plugin says about itself.

``info``, ``--help`` and ``--version``, the console script and the front, unknown subcommands and
flags, and the one format of every error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from entire_core.testing.cases import BUILTIN_NAMES, BUILTIN_TYPES
from entire_core.testing.checks import Env
from entire_core.testing.contract_base import ContractBase


class InfoContract(ContractBase):
    """Standard tests of ``info``, help, version, and how unknown input is refused."""

    def test_console_entry_point_runs_this_agent(self, env: Env) -> None:
        """The installed ``entire-agent-<name>`` console script dispatches for this agent class and exits
        with the dispatcher's status (its target ends the process: it is run, never called in-process)."""
        import subprocess
        import sysconfig
        from importlib.metadata import entry_points

        script = f"entire-agent-{self.agent_cls.name}"
        if not [e for e in entry_points(group="console_scripts") if e.name == script]:
            pytest.skip(f"no installed console script {script} (a test's own agent)")
        path = Path(sysconfig.get_path("scripts")) / (script + (".exe" if os.name == "nt" else ""))

        def run(arg: str) -> subprocess.CompletedProcess[bytes]:
            return subprocess.run([str(path), arg], capture_output=True, env=env.sandbox.env, cwd=env.sandbox.repo,
                                  timeout=60, check=False)  # fmt: skip

        info = run("info")
        assert (info.returncode, info.stderr) == (0, b"")
        assert json.loads(info.stdout)["name"] == self.agent_cls.name
        unknown = run("no-such-subcommand")
        assert unknown.returncode == 2 and unknown.stdout == b""

    def test_front_answers_as_python_does(self, env: Env, tmp_path: Path) -> None:
        """The front (``entire_core.front``) answers ``info``, ``--version`` and ``get-session-dir`` byte
        for byte as Python does, under every POSIX shell here, or hands the call to Python: hostile
        repository paths, the environment that changes the answer, unknown subcommands, bad flags."""
        if os.name == "nt":
            pytest.skip("the front is a POSIX sh script; Windows runs the Python entry point")
        import sys

        from entire_core.testing import frontcheck

        if not callable(getattr(sys.modules[self.agent_cls.__module__.split(".")[0]], "main", None)):
            pytest.skip("no console script: the agent's package has no main (a test's own agent)")
        problems = frontcheck.differences(self.agent_cls, tmp_path / "front", env.sandbox.env)
        assert not problems, "\n".join(problems)

    def test_info(self, env: Env) -> None:
        info = env.call("info")
        cls = self.agent_cls
        assert info["protocol_version"] == 1
        assert info["name"] == cls.name and info["name"] not in BUILTIN_NAMES
        assert info["type"] and info["type"] not in BUILTIN_TYPES
        assert info["description"].strip()
        assert info["capabilities"] == cls.capabilities()
        assert bool(info["hook_names"]) == cls.has("hooks")
        for name in info["hook_names"]:
            assert name and not name.startswith("-") and " " not in name, f"bad hook name {name!r}"
        for var in info["caller_env_vars"]:
            assert var.isupper() and 2 <= len(var) <= 64, var
        for path in info["protected_dirs"] + info["protected_files"]:
            assert path and not os.path.isabs(path) and ".." not in path.split("/"), path

    def test_help_and_version(self, env: Env) -> None:
        result = env.raw("--help")
        assert result.code == 0 and b"info" in result.stdout and result.stderr == b""
        version = env.raw("--version")
        assert version.code == 0 and self.agent_cls.version.encode() in version.stdout

    def test_help_lists_only_real_flags_each_with_help(self, env: Env) -> None:
        import re

        from entire_core.cli import SUBCOMMANDS

        text = env.call_text("--help")
        listed = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))
        declared = {"--help", "--version"}
        for name, spec in SUBCOMMANDS.items():
            if spec.capability and not self._has(spec.capability):
                assert f"  {name} " not in text, f"--help lists {name}, which {self.agent_cls.name} lacks"
                continue
            assert f"  {name} " in text, f"--help does not list {name}"
            declared |= {f"--{flag}" for flag in spec.flags}
            for flag in spec.flags:
                line = next((ln for ln in text.splitlines() if ln.strip().startswith(f"--{flag} ")
                             or ln.strip() == f"--{flag}"), "")  # fmt: skip
                assert line.split(maxsplit=2)[1:], f"--{flag} of {name} has no line of help"
        for name, command in self.agent_cls.commands.items():
            own = env.call_text(name, "--help")
            assert own.startswith(f"usage: entire-agent-{self.agent_cls.name} {name}"), own
            for flag, help_text in command.flags.items():
                assert help_text.strip() and flag in own and flag in text, f"{name} {flag}"
                declared.add(flag.split()[0])
        assert listed <= declared, f"--help names flags that do not exist: {sorted(listed - declared)}"

    def test_unknown_and_missing_subcommand(self, env: Env) -> None:
        result = env.fails("this-subcommand-does-not-exist")
        assert b"this-subcommand-does-not-exist" in result.stderr
        assert env.raw().code != 0

    def test_unknown_flag(self, env: Env) -> None:
        env.fails("detect", "--no-such-flag", "x")
        env.fails("get-session-dir", "--repo-path")

    def test_every_subcommand_and_command_answers_help(self, env: Env) -> None:
        """``<subcommand> --help`` (``-h``, ``-help``, and after other flags) is its usage on stdout, exit 0."""
        from entire_core.cli import SUBCOMMANDS

        program = f"entire-agent-{self.agent_cls.name}"
        names = [n for n, spec in SUBCOMMANDS.items() if not spec.capability or self._has(spec.capability)]
        for name in [*names, *self.agent_cls.commands]:
            for spelling in ("--help", "-h", "-help"):
                result = env.raw(name, spelling)
                assert (result.code, result.stderr) == (0, b""), f"{name} {spelling}: {result!r}"
                assert result.text.startswith(f"usage: {program} {name}"), f"{name} {spelling}: {result!r}"
        if self._has("hooks"):
            result = env.raw("parse-hook", "--hook", self._hook_names()[0], "--help")
            assert result.code == 0 and result.text.startswith(f"usage: {program} parse-hook"), result

    def test_errors_name_the_program_the_subcommand_and_what_to_do(self, env: Env) -> None:
        """Core's one format for every agent: ``entire-agent-<name> <subcommand>: <what is wrong>[: <what to do>]``."""
        program = f"entire-agent-{self.agent_cls.name}"
        flag = env.fails("info", "--bogus")
        assert flag.error.strip() == (
            f"{program} info: flag provided but not defined: -bogus: see '{program} info --help'"
        )
        assert flag.code == 2
        not_an_object = env.fails("read-session", stdin=b"5")
        assert not_an_object.error.startswith(
            f"{program} read-session: stdin is not a hook input, a JSON object"
        )
        broken = env.fails("reassemble-transcript", stdin=b"{x")
        assert broken.error.startswith(f"{program} reassemble-transcript: stdin is not a chunk list")
        assert "input: input" not in not_an_object.error + broken.error
        empty = env.fails("write-session")
        assert empty.error.startswith(f"{program} write-session: stdin is empty, not an agent session")
        missing = env.fails()
        assert missing.error.strip() == f"{program}: missing subcommand: run '{program} --help' for the list"

    def test_detect(self, env: Env) -> None:
        assert isinstance(env.call("detect")["present"], bool)
