"""``AnalyzerContract``: the contract kit's standard tests of the optional capabilities.

The transcript analyzer on recorded transcripts and odd files, the preparer, tokens in Entire's units,
the subagent-aware extractor, the hook response writer, and a capability not declared.
"""

from __future__ import annotations

import base64
import json

import pytest

from entire_core.testing.cases import TranscriptCase
from entire_core.testing.checks import Env
from entire_core.testing.contract_base import ContractBase


class AnalyzerContract(ContractBase):
    """Standard tests of the transcript analyzer, token calculator and the other optional capabilities."""

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
