"""The contract kit: standard tests every agent package runs by subclassing ``AgentContract``.

    class TestCodexContract(AgentContract):
        agent_cls = CodexAgent
        transcript_cases = [TranscriptCase(...)]
        hook_cases = [HookCase(...)]

Every call goes through the real dispatcher (``entire_core.cli.run``) in a sandbox with its own repo
root and home, and every JSON answer is validated against the pydantic wire models in strict mode,
so the fast pydantic-free paths can never drift from the wire definition. Set ``script`` to the path
of an installed console script to run the same tests black-box, one process per call.

A subclass may skip a standard test only by naming it in ``skip_reasons`` with a reason; overriding a
standard test method is an error (``test_no_overridden_standard_tests``). Requires pytest.

The kit's data is in ``cases`` (``TranscriptCase``, ``HookCase``, ``UsageCase``, hostile ids, tricky config files),
calling and checking answers in ``checks`` (``Env``), and the support window's tests in ``window``
(``SupportWindowContract``).
"""

from __future__ import annotations

import base64
import itertools
import json
import os
from pathlib import Path
from typing import Any, ClassVar

import pytest

from entire_core import views
from entire_core.agent import Agent
from entire_core.testing import host
from entire_core.testing.cases import (
    BUILTIN_NAMES,
    BUILTIN_TYPES,
    HOSTILE_IDS,
    JSON_ORIGINALS,
    ORIGINALS,
    HookCase,
    TranscriptCase,
    UsageCase,
)
from entire_core.testing.checks import (
    Env,
    assert_one_line_error,
    check_doctor_report,
    error_format_problem,
    native_behind_view,
)
from entire_core.testing.runner import InProcessRunner, Sandbox, ScriptRunner


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class AgentContract:
    """Standard tests for one agent class. Subclass it in a ``test_*.py`` module."""

    agent_cls: ClassVar[type[Agent]]
    script: ClassVar[str | None] = None
    skip_reasons: ClassVar[dict[str, str]] = {}
    transcript_cases: ClassVar[list[TranscriptCase]] = []
    hook_cases: ClassVar[list[HookCase]] = []
    extra_env: ClassVar[dict[str, str]] = {}
    hook_config: ClassVar[str | None] = None
    """The agent's own config file our hooks go into, relative to the repository (``.codex/hooks.json``)."""
    hook_config_syntax: ClassVar[str] = "json"
    """``json``: the file is JSON(C) with our groups under ``hooks``, so core's ``JSON_ORIGINALS`` apply;
    anything else: core's ``ORIGINALS`` (no file, an empty one) and the agent's own ``hook_config_originals``."""
    hook_config_originals: ClassVar[dict[str, bytes | None]] = {}
    """The agent's own tricky originals, added to core's."""
    hook_config_refused: ClassVar[frozenset[str]] = frozenset(["comment only"])
    """The originals (by name) that install must refuse, one line on stderr and the file untouched; every
    other one it must take and give back. Core's JSON(C) editor refuses a file holding only a comment,
    as JSON.parse after stripping comments does: there is no value to add our hooks to."""

    def prepare_repo(self, sandbox: Sandbox) -> None:
        """Hook for agents: set up the repository and home before each test (e.g. a config dir)."""

    @pytest.fixture(autouse=True)
    def _honour_skips(self, request: pytest.FixtureRequest) -> None:
        name = request.node.originalname
        reason = self.skip_reasons.get(str(name))
        if reason is not None:
            pytest.skip(reason)

    @pytest.fixture
    def env(self, tmp_path: Path) -> Env:
        return self._fresh_env(tmp_path)

    def _has(self, capability: str) -> bool:
        return self.agent_cls.has(capability)

    def _hook_names(self) -> tuple[str, ...]:
        from entire_core.agent import HookSupport

        return self.agent_cls.hook_names if issubclass(self.agent_cls, HookSupport) else ()

    def _require(self, capability: str) -> None:
        if not self._has(capability):
            pytest.skip(f"{self.agent_cls.name} does not declare {capability}")

    # -- the kit guards itself -------------------------------------------------------------------------

    def test_no_overridden_standard_tests(self) -> None:
        standard = {n for n in vars(AgentContract) if n.startswith("test_")}
        for klass in type(self).__mro__:
            if klass is AgentContract:
                break
            overridden = standard & set(vars(klass))
            assert not overridden, (
                f"{klass.__name__} overrides standard tests {sorted(overridden)}; use skip_reasons"
            )
        unknown = set(self.skip_reasons) - standard
        assert not unknown, f"skip_reasons names unknown tests: {sorted(unknown)}"
        assert all(r.strip() for r in self.skip_reasons.values()), "every skip needs a reason"

    # -- info -----------------------------------------------------------------------------------------------

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

    # -- sessions -----------------------------------------------------------------------------------------

    def test_get_session_id(self, env: Env) -> None:
        payload = {
            "hook_type": "agent-spawn",
            "session_id": "test-session-abc",
            "session_ref": "",
            "timestamp": "",
        }
        assert env.call("get-session-id", stdin=json.dumps(payload).encode())["session_id"]
        payload["session_id"] = ""
        env.call("get-session-id", stdin=json.dumps(payload).encode())

    def test_session_dir_and_file(self, env: Env) -> None:
        session_dir = env.call("get-session-dir", "--repo-path", str(env.repo))["session_dir"]
        assert session_dir
        session_file = env.call(
            "resolve-session-file", "--session-dir", session_dir, "--session-id", "abc-123"
        )["session_file"]
        assert "abc-123" in session_file

    @pytest.mark.parametrize("hostile", HOSTILE_IDS)
    def test_hostile_session_ids_are_refused(self, env: Env, hostile: str) -> None:
        if "\0" in hostile and isinstance(env.runner, ScriptRunner):
            pytest.skip("a NUL byte cannot be passed in argv")
        before = env.sandbox.snapshot()
        env.fails("resolve-session-file", "--session-dir", str(env.repo), "--session-id", hostile)
        env.fails("format-resume-command", "--session-id", hostile)
        session = {"session_id": hostile, "agent_name": self.agent_cls.name, "repo_path": str(env.repo),
                   "session_ref": "", "native_data": _b64(b"x")}  # fmt: skip
        env.fails("write-session", stdin=json.dumps(session).encode())
        hook_input = {"hook_type": "agent-spawn", "session_id": hostile, "session_ref": "", "timestamp": ""}
        env.fails("read-session", stdin=json.dumps(hook_input).encode())
        assert env.sandbox.snapshot() == before

    def test_write_then_read_session(self, env: Env) -> None:
        session_dir = env.call("get-session-dir", "--repo-path", str(env.repo))["session_dir"]
        ref = env.call("resolve-session-file", "--session-dir", session_dir, "--session-id", "roundtrip-1")[
            "session_file"
        ]
        data = self.sample_session_bytes()
        # Exactly what the newest CLI sends on resume: null lists and Go's zero time.
        session = {"session_id": "roundtrip-1", "agent_name": self.agent_cls.name, "repo_path": str(env.repo),
                   "session_ref": ref, "start_time": "0001-01-01T00:00:00Z", "native_data": _b64(data),
                   "modified_files": None, "new_files": None, "deleted_files": None}  # fmt: skip
        env.call("write-session", stdin=json.dumps(session).encode())
        assert Path(ref).read_bytes() == data
        hook_input = {
            "hook_type": "agent-spawn",
            "session_id": "roundtrip-1",
            "session_ref": ref,
            "timestamp": "",
        }
        read = env.call("read-session", stdin=json.dumps(hook_input).encode())
        assert read["session_id"] == "roundtrip-1"
        assert read["agent_name"] == self.agent_cls.name
        assert read["repo_path"] == str(env.repo)
        assert read["session_ref"] == ref
        assert base64.b64decode(read["native_data"]) == data
        assert read["modified_files"] == [] and read["new_files"] == [] and read["deleted_files"] == []

    def sample_session_bytes(self) -> bytes:
        """Transcript bytes used by the session round trip; agents may return a real transcript."""
        return b'{"test": true}\r\n\xff\xfe not utf-8 \n'

    def usage_case(self) -> UsageCase | None:
        """Hook for agents with a token calculator: model calls with cache hits (and cache writes and
        reasoning, where the backend reports them) as the agent records them, and their prompt size and
        output. Every such agent gives one, or skips ``test_usage_counts_each_prompt_token_once`` with a reason."""
        return None

    def test_write_session_outside_session_dir_is_refused(self, env: Env) -> None:
        outside = env.sandbox.root / "elsewhere" / "x.json"
        session = {"session_id": "s-1", "agent_name": self.agent_cls.name, "repo_path": str(env.repo),
                   "session_ref": str(outside), "native_data": _b64(b"x")}  # fmt: skip
        env.fails("write-session", stdin=json.dumps(session).encode())
        session["session_ref"] = str(env.repo / ".." / "x.json")
        env.fails("write-session", stdin=json.dumps(session).encode())
        assert not outside.exists() and not (env.sandbox.root / "x.json").exists()

    @pytest.mark.parametrize(
        ("subcommand", "stdin"),
        [
            ("get-session-id", b'{"session_id":'),
            ("read-session", b'{"session_id":'),
            ("write-session", b'{"session_id":'),
            ("write-session", b'{"session_id": 5}'),
            ("write-session", b'{"session_id": "s", "native_data": "-__-"}'),
            ("write-session", b"[]"),
            ("reassemble-transcript", b'{"chunks":'),
            ("reassemble-transcript", b'{"chunks": ["not base64!"]}'),
            ("reassemble-transcript", b'{"chunks": "abc"}'),
            ("read-session", b""),
        ],
    )
    def test_bad_json_input_fails_cleanly(self, env: Env, subcommand: str, stdin: bytes) -> None:
        before = env.sandbox.snapshot()
        env.fails(subcommand, stdin=stdin)
        assert env.sandbox.snapshot() == before

    def test_format_resume_command(self, env: Env) -> None:
        import shlex

        command = env.call("format-resume-command", "--session-id", "test-session-123")["command"]
        assert "test-session-123" in command
        words = shlex.split(command)  # one POSIX command line, no shell syntax
        assert words and all(w and not set(w) & set(";&|<>$`'\"\\()\n") for w in words), command
        env.fails("format-resume-command")
        env.fails("format-resume-command", "--session-id", "../../etc")

    # -- transcripts ---------------------------------------------------------------------------------------

    def test_read_transcript_is_byte_exact(self, env: Env) -> None:
        data = b'{"a": 1}\r\n{"b": "\xc3\xa9"}\n\xff\xfe\x00 no final newline'
        path = env.repo / "t.jsonl"
        path.write_bytes(data)
        assert env.call("read-transcript", "--session-ref", str(path)) == data

    def test_read_transcript_over_the_cli_limit_fails(self, env: Env) -> None:
        path = env.repo / "big.jsonl"
        path.write_bytes(b'{"x": "' + b"a" * (10 * 1024 * 1024) + b'"}\n')
        assert b"10" in env.fails("read-transcript", "--session-ref", str(path)).stderr
        env.fails("read-transcript", "--session-ref", str(env.repo / "missing.jsonl"))

    @pytest.mark.parametrize(
        "content",
        [b"", b"x", b"line\n" * 200, b"a\r\nb\r\n", b"no newline at end", b"\n\n\n", bytes(range(256)) * 9],
    )
    def test_chunk_and_reassemble(self, env: Env, content: bytes) -> None:
        for max_size in (1, 7, 512, 1 << 20):
            chunks: list[str] = (
                env.call("chunk-transcript", "--max-size", str(max_size), stdin=content)["chunks"] or []
            )
            decoded = [base64.b64decode(c, validate=True) for c in chunks]
            assert all(len(c) <= max_size for c in decoded)
            if len(content) > max_size:
                assert len(decoded) >= 2
            elif content:
                assert len(decoded) == 1
            joined = env.call("reassemble-transcript", stdin=json.dumps({"chunks": chunks}).encode())
            assert joined == content

    def test_chunk_rejects_bad_sizes(self, env: Env) -> None:
        for size in ("0", "-5", "abc", "1.5", ""):
            env.fails("chunk-transcript", "--max-size", size, stdin=b"test")

    def test_reassemble_accepts_null_and_empty(self, env: Env) -> None:
        assert env.call("reassemble-transcript", stdin=b'{"chunks": null}') == b""
        assert env.call("reassemble-transcript", stdin=b'{"chunks": []}') == b""

    def test_base64_is_standard_alphabet(self, env: Env) -> None:
        chunks = env.call("chunk-transcript", "--max-size", "100", stdin=b"\xfb\xff\xfe\x3e\x3f")["chunks"]
        assert chunks == ["+//+Pj8="]

    # -- doctor ---------------------------------------------------------------------------------------------

    def test_doctor_report(self, env: Env) -> None:
        assert "doctor" in self.agent_cls.commands, "every agent has a doctor on entire_core.doctor"
        fresh = env.raw("doctor")
        check_doctor_report(fresh, self.agent_cls.name)
        if self._has("hooks"):
            assert fresh.code == 1, f"doctor passes in a repository without Entire's hooks: {fresh!r}"
            env.call("install-hooks")
            check_doctor_report(env.raw("doctor"), self.agent_cls.name)

    def test_doctor_outside_a_git_repository_says_git_init(self, tmp_path: Path) -> None:
        """The hooks do nothing outside a git repository, and `entire enable` fails there: the fix is git init."""
        from entire_core.chain import git_common_dir

        env = self._fresh_env(tmp_path, git=False)
        if git_common_dir(str(env.sandbox.repo)) is not None:
            pytest.skip("the test's directory is inside a git repository")
        result = env.raw("doctor")
        assert result.code == 1, f"doctor passes outside a git repository: {result!r}"
        fixes = [
            line.split("fix: ", 1)[1] for line in result.text.splitlines() if line.startswith("      fix: ")
        ]
        assert "`git init`" in fixes, result.text
        assert not any("entire enable" in fix for fix in fixes), (
            f"a fix that fails outside git: {result.text}"
        )

    def test_doctor_names_hooks_of_a_plugin_that_was_uninstalled_first(self, env: Env) -> None:
        """Hooks of a plugin no longer on PATH (uninstalled before its hooks): every doctor names them, with
        the way back (the plugin back, its ``uninstall-hooks``, the plugin out)."""
        assert "doctor" in self.agent_cls.commands, "every agent has a doctor on entire_core.doctor"
        config = env.sandbox.repo / ".another-agent" / "hooks.json"
        config.parent.mkdir()
        config.write_text('{"hooks": {"Stop": [{"command": "entire hooks gone-plugin stop"}]}}')
        result = env.raw("doctor")
        check_doctor_report(result, self.agent_cls.name)
        assert result.code == 1, result.text
        lines = result.text.splitlines()
        at = next(
            (i for i, line in enumerate(lines) if "holds hooks of entire-agent-gone-plugin" in line), None
        )
        assert at is not None and lines[at].startswith("FAIL  .another-agent/hooks.json holds hooks"), (
            result.text
        )
        assert "`entire-agent-gone-plugin uninstall-hooks`" in lines[at + 1], result.text

    def test_doctor_refuses_unknown_flags_and_arguments(self, env: Env) -> None:
        for args in (["--no-such-flag"], ["--no-such-flag=1"], ["extra"]):
            result = env.fails("doctor", *args)
            assert result.code == 2, f"doctor {args}: {result!r}"

    # -- hooks ----------------------------------------------------------------------------------------------

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
        """As `entire enable` refuses there: one line naming the program and `git init`, and nothing written."""
        from entire_core.chain import git_common_dir

        self._require("hooks")
        env = self._fresh_env(tmp_path, git=False)
        if git_common_dir(str(env.sandbox.repo)) is not None:
            pytest.skip("the test's directory is inside a git repository")
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

    def _fresh_env(self, root: Path, *, git: bool = True) -> Env:
        """A sandbox whose repository is a git repository (``git=False``: a plain folder) and an ``Env`` on it."""
        sandbox = Sandbox(root, extra_env=dict(self.extra_env))
        if git:
            sandbox.git_init()
        self.prepare_repo(sandbox)
        runner = (
            ScriptRunner(self.script, sandbox) if self.script else InProcessRunner(self.agent_cls, sandbox)
        )
        return Env(sandbox, runner, self.agent_cls.name, tuple(self.agent_cls.commands))

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
                   "session_ref": ref, "native_data": _b64(b"x")}  # fmt: skip
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

    # -- views ----------------------------------------------------------------------------------------------

    def _view_format(self, env: Env) -> Any:
        agent = self.agent_cls(env=env.sandbox.env, cwd=str(env.repo))
        fmt = agent.view_format()
        if fmt is None:
            pytest.skip(f"{self.agent_cls.name} keeps no transcript views")
        return agent, fmt

    def test_views_live_outside_the_repository(self, env: Env) -> None:
        agent, _ = self._view_format(env)
        directory = env.call("get-session-dir", "--repo-path", str(env.repo))["session_dir"]
        assert not Path(directory).resolve().is_relative_to(env.repo.resolve())
        assert directory == views.views_dir(agent.env, agent.name, str(env.repo))
        file = env.call("resolve-session-file", "--session-dir", directory, "--session-id", "s-1")[
            "session_file"
        ]
        assert os.path.dirname(file) == directory and "s-1" in os.path.basename(file)

    def test_view_snapshots_and_cuts_keep_the_format(self, env: Env) -> None:
        """On every recorded transcript: a snapshot starts with the file's first line and is made of
        records, a header keeps the line count and names the body's start, and a shortened record is
        shorter and still a record."""
        _, fmt = self._view_format(env)
        cases = self._view_cases(fmt)
        for case in cases:
            data = case.path.read_bytes()
            first = data.split(b"\n", 1)[0].removesuffix(b"\r")
            middle = data.find(b"\n", len(data) // 2) + 1 or len(data)
            header = views.snapshot_of(fmt, str(case.path), middle, 1 << 20)
            assert header[0].removesuffix(b"\r") == first, case
            if fmt.json_records:
                assert all(json.loads(line) is not None for line in header), case
            for line in data.splitlines():
                if len(line) > 2 * views.MIN_KEEP + 512:
                    short = fmt.shorten(line, views.MIN_KEEP + 256)
                    assert short is None or len(short) < len(line), case
                    if short is not None and fmt.json_records:
                        json.loads(short)

    def test_views_compact_as_the_cli_does_with_positions_it_counts(self, env: Env) -> None:
        """On every recorded transcript, grown turn by turn through a view small enough to be re-based:
        the position we answer is the CLI's own line count of the view; a line the CLI counted keeps
        its record; and the CLI's compactor (``entire_core.testing.compactor``) reads, from each
        turn's start, that turn's prompts as our own parser does, and the last reply."""
        from entire_core.testing import compactor
        from entire_core.types import EventType

        _, fmt = self._view_format(env)
        self._require("transcript_analyzer")
        cases = self._view_cases(fmt)
        checked = 0
        for number, case in enumerate(cases):
            data = case.path.read_bytes()
            if not fmt.wrap and compactor.detect(data) != "codex":
                pytest.skip(
                    f"{self.agent_cls.name}: the CLI cannot compact this format and the view does not wrap it"
                )
            budget = max(views.MIN_BUDGET, len(data) // 3)
            sandbox, owner, run, native = self._view_sandbox(env, f"compact-{number}", budget, case)
            lines = data.split(b"\n")[:-1]
            step = max(1, len(lines) // 6)
            counted: dict[int, bytes] = {}
            session = f"c-{number}"
            stored = (0, 0)
            for at in range(0, len(lines), step):
                view = views.attach(owner, session, str(native), EventType.TURN_START)
                start = run.call("get-transcript-position", "--path", view)["position"]
                assert start == compactor.host_line_count(Path(view).read_bytes()), case
                with native.open("ab") as f:
                    f.write(b"".join(line + b"\n" for line in lines[at : at + step]))
                views.attach(owner, session, str(native), EventType.TURN_END)
                run.call("prepare-transcript", "--session-ref", view)
                seen = run.raw("read-transcript", "--session-ref", view).stdout
                # Bounded: the lines by the budget, the padding after them only up to a byte past the last commit.
                assert len(seen.rstrip(b" ")) <= max(budget, views.HARD_LIMIT), case
                assert len(seen) == len(seen.rstrip(b" ")) or len(seen) == stored[1] + 1, case
                # A commit after every turn: the CLI finds the next turn's work only if the view it
                # copies at TurnEnd is larger in bytes than the one it condensed (``View.turn_ended``).
                assert len(seen) > stored[1] or compactor.host_line_count(seen) <= stored[0], case
                stored = host.condensed(sandbox.repo, session, view, seen)
                assert run.call("calculate-tokens", "--offset", str(start), stdin=seen) == run.call(
                    "calculate-tokens", "--offset", str(start), stdin=seen.rstrip(b" ")
                ), case  # the padding after the last line is no record
                now = seen.split(b"\n")
                body = views.head_lines_of(seen)
                for line_number, line in counted.items():
                    if line_number >= body:
                        assert now[line_number] == line, f"{case}: line {line_number} moved"
                counted.update({i: now[i] for i in range(max(body, 1), len(now) - 1)})
                # The turn as the CLI compacts it from the start it stored, and as we read it.
                entries = compactor.compact(seen, start)
                prompts = run.call("extract-prompts", "--session-ref", view, "--offset", str(start))[
                    "prompts"
                ]
                compacted = [e["text"] for e in entries if e["type"] == "user"]
                assert [p.strip() for p in prompts] == [t.strip() for t in compacted], (case, start)
                checked += len(prompts)
                summary = run.call("extract-summary", "--session-ref", view)["summary"]
                replies = [
                    e["text"] for e in compactor.compact(seen, body) if e["type"] == "assistant" and e["text"]
                ]
                if summary and replies:
                    assert replies[-1].strip() == summary.strip(), case
        assert checked, "no prompt was read from any view: the check checked nothing"

    def _view_cases(self, fmt: Any) -> list[TranscriptCase]:
        """The recorded transcripts the view format ``fmt`` accepts (the test skips without one)."""
        cases = [c for c in self.transcript_cases if fmt.accepts(str(c.path))]
        if not cases:
            pytest.skip("no recorded transcripts the view format accepts")
        return cases

    def _view_sandbox(
        self, env: Env, name: str, budget: int, case: TranscriptCase
    ) -> tuple[Sandbox, Any, Env, Path]:
        """A sandbox of its own with the view budget ``budget``: the agent there, a runner, and an empty
        native file named as ``case``'s, to grow turn by turn."""
        sandbox = Sandbox(env.sandbox.root / name, extra_env={views.BUDGET_ENV: str(budget)})
        owner = self.agent_cls(env=sandbox.env, cwd=str(sandbox.repo))
        run = Env(sandbox, InProcessRunner(self.agent_cls, sandbox))
        native = sandbox.root / ("native-" + case.path.name)
        native.write_bytes(b"")
        return sandbox, owner, run, native

    def test_views_count_tokens_from_a_start_a_re_base_cut_away(self, env: Env) -> None:
        """A session committed only at its end, through a view re-based many times: the CLI counts its
        tokens from the start it stored (line 0), long cut away, and gets the whole session's usage."""
        from entire_core.types import EventType

        _, fmt = self._view_format(env)
        self._require("token_calculator")
        cases = self._view_cases(fmt)
        checked = 0
        for number, case in enumerate(cases):
            data = case.path.read_bytes()
            budget = max(views.MIN_BUDGET, len(data) // 4)
            sandbox, owner, run, native = self._view_sandbox(env, f"tokens-{number}", budget, case)
            lines = data.split(b"\n")[:-1]
            session = f"t-{number}"
            view = ""
            bounds = _turn_bounds(fmt, lines)
            for at, stop in itertools.pairwise(bounds):
                view = views.attach(owner, session, str(native), EventType.TURN_START)
                if at == 0:
                    host.condensed(sandbox.repo, session, view, b"")  # the CLI's state before any commit
                with native.open("ab") as f:
                    f.write(b"".join(line + b"\n" for line in lines[at:stop]))
                views.attach(owner, session, str(native), EventType.TURN_END)
            seen = run.raw("read-transcript", "--session-ref", view).stdout
            whole = run.call("calculate-tokens", "--offset", "0", stdin=native.read_bytes())
            if views.head_lines_of(seen) == 0 or not any(
                v for k, v in whole.items() if k != "subagent_tokens"
            ):
                continue  # never re-based, or no usage to count
            counted = run.call("calculate-tokens", "--offset", "0", stdin=seen)
            assert counted == whole, (case, counted, whole)
            checked += 1
        if not checked:
            pytest.skip("no recorded transcript with usage was re-based")

    # -- analyzer -------------------------------------------------------------------------------------------

    def test_analyzer_on_odd_files(self, env: Env) -> None:
        self._require("transcript_analyzer")
        assert env.call("get-transcript-position", "--path", str(env.repo / "missing.json"))["position"] == 0
        odd = env.repo / "odd.json"
        odd.write_bytes(b"{}")
        assert env.call("get-transcript-position", "--path", str(odd))["position"] >= 0
        files = env.call("extract-modified-files", "--path", str(odd), "--offset", "999")
        assert not files["files"]
        assert not env.call("extract-prompts", "--session-ref", str(odd), "--offset", "999")["prompts"]
        env.call("extract-prompts", "--session-ref", str(odd), "--offset", "0")
        env.call("extract-summary", "--session-ref", str(odd))
        env.fails("extract-modified-files", "--path", str(odd), "--offset", "-1")

    def test_recorded_transcripts(self, env: Env) -> None:
        self._require("transcript_analyzer")
        if not self.transcript_cases:
            pytest.skip("no recorded transcripts given")
        for case in self.transcript_cases:
            self._check_case(env, case)

    def _check_case(self, env: Env, case: TranscriptCase) -> None:
        path, offset = str(case.path), str(case.offset)
        position = env.call("get-transcript-position", "--path", path)["position"]
        if case.position is not None:
            assert position == case.position, case
        answer = env.call("extract-modified-files", "--path", path, "--offset", offset)
        if case.modified_files is not None:
            assert sorted(answer["files"] or []) == sorted(case.modified_files), case
        again = env.call(
            "extract-modified-files", "--path", path, "--offset", str(answer["current_position"])
        )
        assert not again["files"], f"{case}: reading from current_position found files again"
        if case.prompts is not None:
            assert (
                env.call("extract-prompts", "--session-ref", path, "--offset", offset)["prompts"]
                == case.prompts
            )
        if case.summary is not None:
            summary = env.call("extract-summary", "--session-ref", path)
            assert summary == {"summary": case.summary, "has_summary": bool(case.summary)}, case
        data = case.path.read_bytes()
        if case.tokens is not None and self._has("token_calculator"):
            assert env.call("calculate-tokens", "--offset", offset, stdin=data) == case.tokens, case
        if self._has("subagent_aware_extractor"):
            flags = ("--offset", offset, "--subagents-dir", case.subagents_dir)
            if case.all_modified_files is not None:
                files: list[str] = env.call("extract-all-modified-files", *flags, stdin=data)["files"] or []
                assert sorted(files) == sorted(case.all_modified_files), case
            if case.total_tokens is not None:
                assert env.call("calculate-total-tokens", *flags, stdin=data) == case.total_tokens, case
        if self._has("compact_transcript"):
            compact = env.call("compact-transcript", "--session-ref", path)
            lines = base64.b64decode(compact["transcript"]).decode("utf-8").splitlines()
            assert lines and all(isinstance(json.loads(line), dict) for line in lines), case

    def test_preparer(self, env: Env) -> None:
        self._require("transcript_preparer")
        if not self.transcript_cases:
            pytest.skip("no recorded transcripts given")
        env.call("prepare-transcript", "--session-ref", str(self.transcript_cases[0].path))

    def test_usage_counts_each_prompt_token_once(self, env: Env) -> None:
        """Entire's units (``entire_core.types.TokenUsage``): on the agent's own call with cache hits,
        input + cache_read + cache_creation is the prompt size the backend reported, each cache figure
        is counted apart, and output holds every generated token once, reasoning included."""
        self._require("token_calculator")
        case = self.usage_case()
        assert case is not None, (
            f"{type(self).__name__}: give usage_case() (a call with cache hits as {self.agent_cls.name} "
            "records it), or name this test in skip_reasons with the reason"
        )
        assert case.cache_read_tokens > 0, f"{case!r}: the call must read from the cache"
        assert 0 <= case.reasoning_tokens <= case.output_tokens, f"{case!r}: reasoning is part of the output"
        flags = ("--offset", str(case.offset))
        answers = [env.call("calculate-tokens", *flags, stdin=case.transcript)]
        if self._has("subagent_aware_extractor"):
            answers.append(
                env.call("calculate-total-tokens", *flags, "--subagents-dir", "", stdin=case.transcript)
            )
        for usage in answers:
            counted = usage["input_tokens"] + usage["cache_read_tokens"] + usage["cache_creation_tokens"]
            assert counted == case.prompt_tokens, f"{case!r}: {usage} holds {counted} prompt tokens"
            assert (usage["cache_read_tokens"], usage["cache_creation_tokens"]) == (
                case.cache_read_tokens,
                case.cache_creation_tokens,
            ), f"{case!r}: {usage}"
            assert usage["output_tokens"] == case.output_tokens, f"{case!r}: {usage}"
            assert usage["api_call_count"] == case.api_calls, f"{case!r}: {usage}"

    def test_token_calculator_on_odd_input(self, env: Env) -> None:
        self._require("token_calculator")
        for stdin in (b"{}", b"", b"garbage\n", b"\xff\n"):
            usage = env.call("calculate-tokens", "--offset", "0", stdin=stdin)
            assert all(v >= 0 for k, v in usage.items() if k != "subagent_tokens")

    def test_subagent_extractor_on_odd_input(self, env: Env) -> None:
        self._require("subagent_aware_extractor")
        subagents = env.repo / "subagents"
        subagents.mkdir()
        for directory in (str(subagents), ""):
            flags = ("--offset", "0", "--subagents-dir", directory)
            env.call("extract-all-modified-files", *flags, stdin=b"{}")
            env.call("calculate-total-tokens", *flags, stdin=b"{}")

    def test_hook_response_writer(self, env: Env) -> None:
        self._require("hook_response_writer")
        out = env.call("write-hook-response", "--message", "compliance test response\nsecond line")
        assert out

    def test_capability_not_declared_fails_cleanly(self, env: Env) -> None:
        from entire_core.cli import SUBCOMMANDS

        missing = [n for n, s in SUBCOMMANDS.items() if s.capability and not self._has(s.capability)]
        if not missing:
            pytest.skip("the agent declares every capability")
        for name in missing:
            env.fails(name)


def _turn_bounds(fmt: Any, lines: list[bytes]) -> list[int]:
    """Where turns start in a transcript's ``lines``, and its end: at the user's typed records for a
    wrapped JSON format (a re-base cuts at a turn's start, and such formats may rewrite a record
    later in its turn), else every eighth of the lines."""
    starts: list[int] = []
    if fmt.wrap and fmt.json_records:
        for number, line in enumerate(lines):
            try:
                mapped = fmt.record(json.loads(line))
            except ValueError:
                continue
            if mapped and mapped[0] == "user" and any(b.get("type") == "text" for b in mapped[1]):
                starts.append(number)
    if len(starts) < 2:
        starts = list(range(0, len(lines), max(1, len(lines) // 8)))
    return sorted({0, *starts, len(lines)})
