"""``DoctorContract``: the contract kit's standard tests of every agent's ``doctor``."""

from __future__ import annotations

from pathlib import Path

import pytest

from entire_core.testing.checks import Env, check_doctor_report
from entire_core.testing.contract_base import ContractBase


class DoctorContract(ContractBase):
    """Standard tests of ``doctor``: its report, outside git, hooks left by a plugin that is gone, its flags."""

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
