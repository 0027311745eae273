"""The bounded view, differentially: what the CLI gets through the view equals today's analyzer on the raw rollout.

Every session is replayed turn by turn as the Entire CLI drives the plugin (parse-hook, position,
prepare, read, prompts, files, tokens, summary), while the rollout grows as Codex writes it. The
oracle is ``transcript`` on the raw native file at the same moment, from the turn's native start.
Sessions: the bundled real rollouts, grown turn by turn, and synthetic ones built from their records
(``entire_sim.synth``: many turns, resumes, compactions, inline images, a 20 MB tool output).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from codex_fixtures import ROLLOUT1, ROLLOUT2
from entire_agent_openai_codex import messages, tokens
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_core import offsets, views
from entire_core.testing.runner import InProcessRunner, Result, Sandbox
from entire_sim import synth


class Driver:
    """The CLI's side: one sandbox, the plugin in process, a rollout that grows."""

    def __init__(self, root: Path, native: Path, session_id: str, budget: int, env: dict[str, str]) -> None:
        self.sandbox = Sandbox(root, extra_env={views.BUDGET_ENV: str(budget), **env})
        self.run = InProcessRunner(OpenAICodexAgent, self.sandbox)
        self.agent = OpenAICodexAgent(env=self.sandbox.env, cwd=str(self.sandbox.repo))
        self.native = native
        self.session_id = session_id
        self.budget = budget
        self.reads: list[int] = []
        self.rebased = False
        self.positions: list[int] = []

    def call(self, *args: str, stdin: bytes = b"") -> Result:
        result = self.run(*args, stdin=stdin)
        assert result.code == 0, result
        return result

    def hook(self, hook: str, payload: bytes) -> str:
        event = self.call("parse-hook", "--hook", hook, stdin=payload).json()
        return "" if event is None else str(event.get("session_ref") or "")

    def payload(self, **fields: object) -> bytes:
        return json.dumps(
            {"session_id": self.session_id, "transcript_path": str(self.native), **fields}
        ).encode()

    def turn_start(self, payload: bytes) -> tuple[str, int, int]:
        """TurnStart: the view and its position; the native position the oracle starts from."""
        view = self.hook("user-prompt-submit", payload)
        assert view and view != str(self.native) and not view.startswith(str(self.sandbox.repo))
        position = self.call("get-transcript-position", "--path", view).json()["position"]
        return view, position, offsets.count_lines(str(self.native))[0]

    def turn_end(self, payload: bytes, view: str, position: int, native_start: int) -> dict[str, Any]:
        """TurnEnd's calls through the view, and the oracle's answers on the raw rollout."""
        assert self.hook("stop", payload) == view
        self.call("prepare-transcript", "--session-ref", view)
        data = self.call("read-transcript", "--session-ref", view).stdout
        assert len(data) <= self.budget
        self.reads.append(len(data))
        self.rebased |= views.MARKER_PREFIX in data
        # Positions are lines as the CLI counts them: the turn's first line is still the one after the
        # position taken at its start, however often the view was re-based since.
        assert views.host_lines(data) >= position
        offset = str(position)
        seen = {
            "prompts": self.call("extract-prompts", "--session-ref", view, "--offset", offset).json()[
                "prompts"
            ],
            "files": self.call("extract-modified-files", "--path", view, "--offset", offset).json()["files"],
            "all_files": self.call(
                "extract-all-modified-files", "--offset", offset, "--subagents-dir", "", stdin=data
            ).json()["files"],
            "tokens": self.call("calculate-tokens", "--offset", offset, stdin=data).json(),
            "summary": self.call("extract-summary", "--session-ref", view).json()["summary"],
        }
        end = self.call("get-transcript-position", "--path", view).json()["position"]
        assert end >= position
        self.positions += [position, end]
        raw = self.native.read_bytes()
        lines, _ = offsets.lines_from(str(self.native), native_start)
        native_files, _ = self.agent.extract_modified_files(str(self.native), native_start)
        oracle = {
            "prompts": messages.user_prompts(lines),
            "files": native_files,
            "all_files": native_files,
            "tokens": tokens.token_usage(raw, offsets.line_start(raw, native_start)).to_wire(),
            "summary": messages.summary(str(self.native)) or "",
        }
        return {"seen": seen, "oracle": oracle}


def _turns_of(rollout: Path) -> list[list[bytes]]:
    """The rollout's lines, cut after each ``task_complete`` (what one turn writes)."""
    turns: list[list[bytes]] = [[]]
    for line in rollout.read_bytes().splitlines():
        turns[-1].append(line)
        if b'"task_complete"' in line:
            turns.append([])
    return [t for t in turns if t]


REAL = [ROLLOUT1, ROLLOUT2]  # a subagent's rollout is not a session of its own (its hooks are dropped)


@pytest.mark.parametrize("rollout", REAL, ids=lambda p: p.name[-20:])
@pytest.mark.parametrize("budget", [views.DEFAULT_BUDGET, 64 * 1024])
def test_real_rollouts_through_the_view_equal_the_raw_analysis(
    tmp_path: Path, rollout: Path, budget: int
) -> None:
    meta = json.loads(rollout.read_bytes().split(b"\n", 1)[0])["payload"]
    native = tmp_path / "codex" / "sessions" / rollout.name
    native.parent.mkdir(parents=True)
    native.touch()
    driver = Driver(tmp_path, native, meta["id"], budget, {"CODEX_HOME": str(tmp_path / "codex")})
    for lines in _turns_of(rollout):
        view, position, native_start = driver.turn_start(driver.payload(prompt="p"))
        with native.open("ab") as f:
            f.write(b"".join(line + b"\n" for line in lines))
        result = driver.turn_end(driver.payload(), view, position, native_start)
        assert result["seen"] == result["oracle"]
    if budget == views.DEFAULT_BUDGET:
        assert Path(view).read_bytes() == native.read_bytes()  # small sessions are viewed as they are
    assert driver.positions == sorted(driver.positions)


@pytest.mark.parametrize(("size", "budget", "big"), [(6 << 20, 256 << 10, 0), (26 << 20, 2 << 20, 20 << 20)],
                         ids=["many-turns", "20MB-output"])  # fmt: skip
def test_synthetic_sessions_through_the_view_equal_the_raw_analysis(
    tmp_path: Path, size: int, budget: int, big: int
) -> None:
    repo = tmp_path / "repo"
    session = synth.codex_session(tmp_path / "gen", repo, size, big_output=big, image_every=3)
    driver = Driver(tmp_path, session.native, session.id, budget, session.env)
    turns = 0
    pending: tuple[str, int, int] | None = None
    for step in session.steps():
        if step.hook == "user-prompt-submit":
            pending = driver.turn_start(step.payload)
        elif step.hook == "stop":
            assert pending is not None
            result = driver.turn_end(step.payload, *pending)
            assert result["seen"] == result["oracle"], f"turn {step.turn}"
            assert sorted(result["seen"]["files"]) == session.expected[step.turn]["files"]
            turns += 1
        else:
            driver.hook(step.hook, step.payload)
    assert turns > 10 and driver.rebased
    assert max(driver.reads) <= budget
    assert driver.positions == sorted(driver.positions)
    assert session.native.stat().st_size > 4 * budget


def test_snapshot_restates_the_history_codex_resumes_from(tmp_path: Path) -> None:
    """A re-based view is a rollout whose compacted record holds every prompt before its body.

    No compactions here: Codex's own would replace the history, and the view must follow Codex.
    """
    repo = tmp_path / "repo"
    session = synth.codex_session(tmp_path / "gen", repo, 2 << 20, big_output=0, compact_every=10_000)
    driver = Driver(tmp_path, session.native, session.id, 96 << 10, session.env)
    view = ""
    for step in session.steps():
        ref = driver.hook(step.hook, step.payload)
        view = ref or view
    data = Path(view).read_bytes()
    frame = views.frame_of(data)
    lines = data.split(b"\n")
    header, body = lines[: frame.body], b"\n".join(lines[frame.body :]).decode()
    assert json.loads(header[0])["type"] == "session_meta" and frame.body > 2
    # One view line per rollout line: the view is as many lines long as the rollout.
    assert views.host_lines(data) == session.native.read_bytes().count(b"\n")
    compacted = json.loads(header[-1])
    assert compacted["type"] == "compacted" and "Entire's view" in compacted["payload"]["message"]
    history = json.dumps(compacted["payload"]["replacement_history"])
    restated = [p for p in session.prompts if p not in body]
    assert len(restated) > 10 and all(json.dumps(p)[1:-1] in history for p in restated)
    head_bytes = sum(len(line) + 1 for line in header)
    assert head_bytes <= (96 << 10) // views.SNAPSHOT_SHARE + len(header[0]) + 8192 + frame.body
