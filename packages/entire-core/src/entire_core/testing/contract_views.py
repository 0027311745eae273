"""``ViewsContract``: the contract kit's standard tests of bounded transcript views (``entire_core.views``).

They skip for an agent whose ``view_format()`` is None; otherwise each runs the recorded transcripts
through views small enough to be re-based, as the Entire CLI reads them.
"""

from __future__ import annotations

import itertools
import json
import os
from pathlib import Path
from typing import Any

import pytest

from entire_core import views
from entire_core.testing import host
from entire_core.testing.cases import TranscriptCase
from entire_core.testing.checks import Env
from entire_core.testing.contract_base import ContractBase
from entire_core.testing.runner import InProcessRunner, Sandbox


class ViewsContract(ContractBase):
    """Standard tests of an agent's transcript views: where they live, their snapshots, what the CLI reads of them."""

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
