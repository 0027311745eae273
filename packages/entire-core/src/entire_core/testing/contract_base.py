"""``ContractBase``: the contract kit's settings, hooks and fixtures, shared by its sections.

An agent's test class sets the class attributes (``agent_cls``, its recorded cases, ``skip_reasons``)
and may override the hooks (``prepare_repo``, ``sample_session_bytes``, ``usage_case``); each section
of standard tests (``contract_info``, ``contract_sessions``, ...) is a mixin on this class, and
``AgentContract`` (``contract``) combines them.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import ClassVar

import pytest

from entire_core.agent import Agent
from entire_core.testing.cases import DeliveryCase, HookCase, TranscriptCase, UsageCase
from entire_core.testing.checks import Env
from entire_core.testing.runner import InProcessRunner, Sandbox, ScriptRunner


def b64(data: bytes) -> str:
    """``data`` in standard base64, as the wire carries bytes (``native_data``, chunks)."""
    return base64.b64encode(data).decode("ascii")


class ContractBase:
    """What an agent's test class sets, and the fixtures and helpers every section of the kit shares."""

    agent_cls: ClassVar[type[Agent]]
    script: ClassVar[str | None] = None
    skip_reasons: ClassVar[dict[str, str]] = {}
    transcript_cases: ClassVar[list[TranscriptCase]] = []
    hook_cases: ClassVar[list[HookCase]] = []
    delivery_case: ClassVar[DeliveryCase | None] = None
    """For an agent whose hooks queue events (it lists core's ``delivered``): a call that answers one."""
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

    def sample_session_bytes(self) -> bytes:
        """Transcript bytes used by the session round trip; agents may return a real transcript."""
        return b'{"test": true}\r\n\xff\xfe not utf-8 \n'

    def usage_case(self) -> UsageCase | None:
        """Hook for agents with a token calculator: model calls with cache hits (and cache writes and
        reasoning, where the backend reports them) as the agent records them, and their prompt size and
        output. Every such agent gives one, or skips ``test_usage_counts_each_prompt_token_once`` with a reason."""
        return None

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
