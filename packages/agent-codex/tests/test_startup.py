"""Hooks and the TurnEnd sequence stay free of pydantic, tomlkit, YAML and lock libraries, on real payloads."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from codex_fixtures import HOOKS, ROLLOUT1, ROLLOUT2, S2, TURN1_END, hook_of
from entire_core.testing.pytest_plugin import Imports, heavy

SCRIPT = Path(sys.executable).parent / "entire-agent-openai-codex"
R1, R2 = str(ROLLOUT1), str(ROLLOUT2)
SUBAGENTS = str(ROLLOUT2.parent / S2 / "subagents")

TURN_END = [
    (["prepare-transcript", "--session-ref", R1], b""),
    (["read-transcript", "--session-ref", R1], b""),
    (["extract-prompts", "--session-ref", R1, "--offset", str(TURN1_END)], b""),
    (["extract-modified-files", "--path", R1, "--offset", str(TURN1_END)], b""),
    (["extract-all-modified-files", "--offset", "0", "--subagents-dir", SUBAGENTS], ROLLOUT2.read_bytes()),
    (["calculate-total-tokens", "--offset", "0", "--subagents-dir", SUBAGENTS], ROLLOUT2.read_bytes()),
    (["calculate-tokens", "--offset", str(TURN1_END)], ROLLOUT1.read_bytes()),
    (["get-transcript-position", "--path", R2], b""),
]
HOOK_CALLS = [
    (["parse-hook", "--hook", hook_of(p)], p.read_bytes()) for p in sorted(HOOKS.glob("[0-3]*_*.json"))
]


@pytest.mark.parametrize(
    ("args", "stdin"), TURN_END + HOOK_CALLS, ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_nothing_heavy_is_imported(imports: Imports, args: list[str], stdin: bytes) -> None:
    modules = imports(SCRIPT, *args, stdin=stdin)
    assert "entire_agent_openai_codex.agent" in modules
    assert heavy(modules) == set()


def test_an_ephemeral_sessions_hooks_stay_off_json_and_datetime(imports: Imports) -> None:
    """A session without a rollout (``codex exec --ephemeral``) gets a stand-in written by the hooks themselves."""
    import json

    for hook, name in (("user-prompt-submit", "02_s1_UserPromptSubmit.json"), ("stop", "07_s1_Stop.json")):
        payload = json.loads((HOOKS / name).read_bytes()) | {"transcript_path": None}
        modules = imports(SCRIPT, "parse-hook", "--hook", hook, stdin=json.dumps(payload).encode())
        assert "entire_agent_openai_codex.state" in modules, hook  # the stand-in was written
        assert modules & {"json", "re", "datetime"} == set(), hook
