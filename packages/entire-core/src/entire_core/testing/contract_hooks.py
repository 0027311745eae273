"""``HooksContract``: the contract kit's standard tests of hooks.

Install, uninstall and the user's own config file given back byte for byte, ``parse-hook`` on any
stdin and on the agent's recorded payloads, and paths that name a directory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from entire_core.testing.cases import JSON_ORIGINALS, ORIGINALS
from entire_core.testing.checks import Env, assert_one_line_error, error_format_problem, native_behind_view
from entire_core.testing.contract_base import ContractBase, b64


class HooksContract(ContractBase):
    """Standard tests of installing hooks and parsing their payloads."""

    def test_hooks_lifecycle(self, env: Env) -> None:
        self._require("hooks")
        before = env.sandbox.snapshot()
        assert env.call("are-hooks-installed")["installed"] is False
        first = env.call("install-hooks")["hooks_installed"]
        assert first > 0
        assert env.call("are-hooks-installed")["installed"] is True
        after_install = env.sandbox.snapshot()
        assert env.call("install-hooks")["hooks_installed"] == 0
        assert env.sandbox.snapshot() == after_install, "a second install changed files"
        assert env.call("install-hooks", "--force")["hooks_installed"] == first
        env.call("install-hooks", "--local-dev")
        env.call("uninstall-hooks")
        assert env.call("are-hooks-installed")["installed"] is False
        assert env.sandbox.snapshot() == before, "uninstall did not restore the repository"
        env.call("uninstall-hooks")

    def test_install_hooks_outside_a_git_repository_refuses(self, tmp_path: Path) -> None:
        """Called by hand there (no ``ENTIRE_REPO_ROOT``), as `entire enable` refuses: one line naming the
        program and `git init`, and nothing written."""
        from entire_core.chain import git_common_dir

        self._require("hooks")
        env = self._fresh_env(tmp_path, git=False)
        if git_common_dir(str(env.sandbox.repo)) is not None:
            pytest.skip("the test's directory is inside a git repository")
        del env.sandbox.env["ENTIRE_REPO_ROOT"]  # the folder is the cwd
        before = env.sandbox.snapshot()
        for args in ((), ("--force",)):
            result = env.raw("install-hooks", *args)
            assert result.code == 1, f"install-hooks {args} outside a git repository: {result!r}"
            assert_one_line_error(result)
            problem = error_format_problem(result.error, self.agent_cls.name, "install-hooks")
            assert problem is None, problem
            assert "not in a git repository" in result.error and "`git init`" in result.error, result.error
            assert env.sandbox.snapshot() == before, (
                f"install-hooks {args} wrote files outside a git repository"
            )

    def test_install_hooks_in_a_plain_folder_named_by_entire_repo_root(self, tmp_path: Path) -> None:
        """As Entire's compliance suite runs them: a folder that is no git repository, named by
        ``ENTIRE_REPO_ROOT``, is taken as given; install, install again, uninstall, and nothing left."""
        from entire_core.chain import git_common_dir

        self._require("hooks")
        env = self._fresh_env(tmp_path, git=False)
        if git_common_dir(str(env.sandbox.repo)) is not None:
            pytest.skip("the test's directory is inside a git repository")
        before = env.sandbox.snapshot()
        assert env.call("install-hooks")["hooks_installed"] > 0
        assert env.call("are-hooks-installed")["installed"] is True
        assert env.call("install-hooks")["hooks_installed"] == 0
        env.call("uninstall-hooks")
        assert env.call("are-hooks-installed")["installed"] is False
        assert env.sandbox.snapshot() == before, "uninstall did not restore the folder"

    def test_install_twice_then_uninstall_gives_the_users_file_back(self, tmp_path: Path) -> None:
        """Over every tricky original: the same bytes come back, or no file and no folder we created."""
        self._require("hooks")
        if self.hook_config is None:
            pytest.skip(f"{self.agent_cls.name} names no hook_config")
        event = self._first_event(tmp_path / "probe")
        originals = {**ORIGINALS, **self.hook_config_originals}
        if self.hook_config_syntax == "json":
            originals = {**JSON_ORIGINALS, **self.hook_config_originals}
        unexpected: list[str] = []
        for i, (name, original) in enumerate(originals.items()):
            data = None if original is None else original.replace(b"{event}", event.encode())
            env = self._fresh_env(tmp_path / f"case-{i}")
            path = env.sandbox.repo / self.hook_config
            if data is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
            before = env.sandbox.snapshot()
            first = env.raw("install-hooks")
            if (first.code != 0) != (name in self.hook_config_refused):
                unexpected.append(f"{name}: install {'refused' if first.code else 'took'} it")
            if first.code == 0:
                assert env.call("are-hooks-installed")["installed"] is True, name
                env.call("install-hooks")
                env.call("uninstall-hooks")
            else:
                assert_one_line_error(first)
                problem = error_format_problem(first.error, self.agent_cls.name, "install-hooks")
                assert problem is None, f"{name}: {problem}"
            assert env.sandbox.snapshot() == before, (
                f"{name}: install, install, uninstall changed {self.hook_config}"
            )
        assert unexpected == [], f"{unexpected} (hook_config_refused: {sorted(self.hook_config_refused)})"

    def test_install_killed_after_a_write_is_undone_by_uninstall(self, tmp_path: Path) -> None:
        """``install-hooks`` killed (the host's 30 s kill, Ctrl-C in ``entire enable``) right after it wrote
        the agent's config file, or right after its install record: ``uninstall-hooks``, which ``entire
        disable`` runs since the hooks are in, still leaves everything as it was before the install.

        Every call is a process of the agent's console script, as the host makes it (the lock a killed
        call leaves is in the sandbox's TMPDIR, which an in-process call does not use)."""
        import sys

        from entire_core.testing.runner import write_launcher

        self._require("hooks")
        if self.hook_config is None:
            pytest.skip(f"{self.agent_cls.name} names no hook_config")
        package = self.agent_cls.__module__.split(".")[0]
        if not callable(getattr(sys.modules[package], "main", None)):
            pytest.skip("no console script: the agent's package has no main (a test's own agent)")
        script = write_launcher(tmp_path / "bin", self.agent_cls.name, f"{package}:main")
        config = os.path.basename(self.hook_config)
        for i, point in enumerate((f"write.renamed@{config}", "write.renamed@installs.json")):
            self._install_killed_then_disabled(script, tmp_path / f"case-{i}", point)

    def _install_killed_then_disabled(self, script: Path, root: Path, point: str) -> None:
        import subprocess

        from entire_core import faults

        sandbox = self._fresh_env(root).sandbox

        def run(subcommand: str, **fault: str) -> subprocess.CompletedProcess[bytes]:
            return subprocess.run([str(script), subcommand], capture_output=True, cwd=sandbox.repo,
                                  env={**sandbox.env, **fault}, timeout=60, check=False)  # fmt: skip

        def disable() -> list[str]:
            if json.loads(run("are-hooks-installed").stdout)["installed"]:
                assert run("uninstall-hooks").returncode == 0
            after = sandbox.snapshot()
            return sorted(
                name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
            )

        before = sandbox.snapshot()
        killed = run("install-hooks", **{faults.AT_ENV: f"install-hooks:{point}"})
        assert killed.returncode == -9, f"install-hooks never reached {point}: {killed!r}"
        in_repo = [name for name in disable() if name.startswith("repo/")]
        assert in_repo == [], f"killed at {point}, then disabled: {in_repo} differ from before the install"
        assert run("install-hooks").returncode == 0
        changed = disable()
        assert changed == [], (
            f"killed at {point}, enabled, disabled: {changed} differ from before the install"
        )

    def test_uninstall_killed_anywhere_is_finished_by_disable(self, tmp_path: Path) -> None:
        """``uninstall-hooks`` killed at any of its fault points (after the hooks are out, before its
        record is dropped or its lock file deleted): ``entire disable`` run again (``are-hooks-installed``,
        then ``uninstall-hooks`` when it says true) leaves everything as it was before the install, the
        temporary directory and the install records included (issue 37)."""
        import subprocess
        import sys

        from entire_core import faults
        from entire_core.testing.runner import write_launcher

        self._require("hooks")
        package = self.agent_cls.__module__.split(".")[0]
        if not callable(getattr(sys.modules[package], "main", None)):
            pytest.skip("no console script: the agent's package has no main (a test's own agent)")
        script = write_launcher(tmp_path / "bin", self.agent_cls.name, f"{package}:main")

        def sandbox_of(root: Path) -> Any:
            return self._fresh_env(root).sandbox

        def run(sandbox: Any, subcommand: str, **fault: str) -> subprocess.CompletedProcess[bytes]:
            return subprocess.run([str(script), subcommand], capture_output=True, cwd=sandbox.repo,
                                  env={**sandbox.env, **fault}, timeout=60, check=False)  # fmt: skip

        traced = sandbox_of(tmp_path / "trace")
        assert run(traced, "install-hooks").returncode == 0
        trace = tmp_path / "trace.txt"
        assert run(traced, "uninstall-hooks", **{faults.TRACE_ENV: str(trace)}).returncode == 0
        points = [line.split("\t")[2] for line in trace.read_text().splitlines()]
        assert points, "uninstall-hooks passed no fault point"
        for index, point in enumerate(points):
            k = points[: index + 1].count(point)
            sandbox = sandbox_of(tmp_path / f"case-{index}")
            before = sandbox.snapshot()
            assert run(sandbox, "install-hooks").returncode == 0
            killed = run(sandbox, "uninstall-hooks", **{faults.AT_ENV: f"uninstall-hooks:{point}#{k}"})
            assert killed.returncode == -9, f"uninstall-hooks never reached {point} #{k}: {killed!r}"
            if json.loads(run(sandbox, "are-hooks-installed").stdout)["installed"]:
                assert run(sandbox, "uninstall-hooks").returncode == 0
            assert json.loads(run(sandbox, "are-hooks-installed").stdout)["installed"] is False
            after = sandbox.snapshot()
            changed = sorted(
                name for name in before.keys() | after.keys() if before.get(name) != after.get(name)
            )
            assert changed == [], f"uninstall-hooks killed at {point} #{k}, then disabled: {changed} differ"

    def _first_event(self, root: Path) -> str:
        """An event name our install writes under ``hooks`` (JSON configs only)."""
        if self.hook_config_syntax != "json":
            return ""
        env = self._fresh_env(root)
        env.call("install-hooks")
        from entire_core.config.json import parse_json_text

        assert self.hook_config is not None
        text = (env.sandbox.repo / self.hook_config).read_text(encoding="utf-8-sig")
        events = parse_json_text(text, comments=True)["hooks"]
        return next(iter(events))

    def test_parse_hook_without_payload(self, env: Env) -> None:
        """Stdin that is not one JSON object: ``null``, exit 0 (a hook never fails the user's turn), and one
        line on stderr in core's format saying so (a person at the keyboard is told why nothing happened)."""
        self._require("hooks")
        for hook in self._hook_names():
            for stdin, why in (
                (b"", "stdin is empty"),
                (b"   \n", "stdin is empty"),
                (b"not json", "stdin is not JSON"),
                (b'{"session_id": ', "stdin is not JSON"),
                (b"\xff\xfe", "stdin is not JSON"),
                (b"[1, 2]", "stdin is an array, not a JSON object"),
                (b"[]", "stdin is an array, not a JSON object"),
                (b'"text"', "stdin is a string, not a JSON object"),
                (b"1.5", "stdin is a number, not a JSON object"),
                (b"true", "stdin is a boolean, not a JSON object"),
                (b"null", "stdin is null, not a JSON object"),
            ):
                result = env.raw("parse-hook", "--hook", hook, stdin=stdin)
                assert (result.code, result.stdout) == (0, b"null\n"), f"{hook} {stdin!r}: {result!r}"
                assert error_format_problem(result.error, self.agent_cls.name, "parse-hook") is None, result
                assert result.error.startswith(f"entire-agent-{self.agent_cls.name} parse-hook: {why}: "), (
                    result
                )
            event = env.call("parse-hook", "--hook", hook, stdin=b'{"unexpected": {"shape": [1]}}')
            assert event is None or event["type"] >= 1

    def test_parse_hook_compliance_suite_payload(self, env: Env) -> None:
        self._require("hooks")
        for hook in self._hook_names():
            payload: dict[str, str] = {"hook_type": hook, "session_id": "test-session-hook", "session_ref": "",
                       "timestamp": "2026-01-01T00:00:00Z", "user_prompt": "test prompt"}  # fmt: skip
            event = env.call("parse-hook", "--hook", hook, stdin=json.dumps(payload).encode())
            assert event is None or (event["type"] >= 1 and event["session_id"])

    def test_parse_hook_unknown_hook_is_null(self, env: Env) -> None:
        self._require("hooks")
        assert env.call("parse-hook", "--hook", "no-such-hook", stdin=b'{"session_id": "x"}') is None

    def test_parse_hook_without_hook_is_a_usage_error(self, env: Env) -> None:
        self._require("hooks")
        for args in ((), ("--hook", "")):
            result = env.fails("parse-hook", *args, stdin=b'{"session_id": "x"}')
            assert result.code == 2 and b"--hook" in result.stderr, result

    def test_a_directory_where_a_file_is_expected(self, env: Env) -> None:
        from entire_core.cli import SUBCOMMANDS

        directory = str(env.repo)
        for name, spec in SUBCOMMANDS.items():
            if spec.capability and not self._has(spec.capability):
                continue
            for flag in ("path", "session-ref"):
                if flag in spec.flags:
                    extra = ("--offset", "0") if "offset" in spec.flags else ()
                    result = env.fails(name, f"--{flag}", directory, *extra)
                    assert b"is a directory" in result.stderr, result
        session_dir = env.call("get-session-dir", "--repo-path", directory)["session_dir"]
        ref = env.call("resolve-session-file", "--session-dir", session_dir, "--session-id", "dir-1")[
            "session_file"
        ]
        os.makedirs(ref)
        session = {"session_id": "dir-1", "agent_name": self.agent_cls.name, "repo_path": directory,
                   "session_ref": ref, "native_data": b64(b"x")}  # fmt: skip
        result = env.fails("write-session", stdin=json.dumps(session).encode())
        assert b"is a directory" in result.stderr.lower(), result
        assert os.listdir(ref) == []

    def test_recorded_hook_payloads(self, env: Env) -> None:
        self._require("hooks")
        if not self.hook_cases:
            pytest.skip("no recorded hook payloads given")
        for case in self.hook_cases:
            event = env.call("parse-hook", "--hook", case.hook, stdin=case.payload)
            if isinstance(event, dict) and isinstance(case.expected, dict) and "session_ref" in event:
                wire: dict[str, Any] = event  # pyright: ignore[reportUnknownVariableType]
                event = {**wire, "session_ref": native_behind_view(wire["session_ref"], case.expected)}
            assert event == case.expected, f"{case!r}: got {event!r}"
