"""The view of a session's slice, against today's analyzer on the raw slice (the differential oracle).

The history grows the way Aider wrote it, and parse-hook is called the way the notification command
(or the launcher) calls it; at each event the test does what the Entire CLI does: a position at
TurnStart, then at TurnEnd the prompts, files, tokens and summary after it, and ``read-transcript``.
Through the view, with a small budget, these must equal what the analyzer finds on the raw slice
``history[start:upto]`` that the event stands for, and every transcript must fit the budget.
"""

from __future__ import annotations

import os
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from entire_agent_aider import events, transcript
from entire_agent_aider import view as aider_view
from entire_agent_aider.agent import AiderAgent
from entire_core import commands as command
from entire_core import views
from entire_core.agent import MAX_TRANSCRIPT_BYTES
from entire_core.cli_flags import Flags
from entire_core.testing import compactor
from entire_core.types import EventType

DATA = Path(__file__).parent / "data"
SHARED = Path(__file__).resolve().parents[4] / "shared" / "fixtures" / "aider"
"""The team's captures, beside the checkout (``../shared``) here and in CI."""
BUDGET = 65536
TIME = "2026-11-30T03:05:00Z"


def flags(**values: str | int) -> Flags:
    names = {"path": "", "session-ref": "", "offset": 0, "subagents-dir": ""}
    names.update({key.replace("_", "-"): value for key, value in values.items()})
    return Flags(names, set(values))  # pyright: ignore[reportArgumentType]


@pytest.fixture
def utc() -> Iterator[None]:
    saved = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if saved is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = saved
    time.tzset()


class Run:
    """One repository whose history grows; parse-hook drained at each step, the CLI's calls checked."""

    def __init__(self, root: Path, budget: int = BUDGET) -> None:
        self.root = root
        self.history = root / ".aider.chat.history.md"
        env = {
            "ENTIRE_REPO_ROOT": str(root),
            "HOME": str(root / "home"),
            "XDG_STATE_HOME": str(root / "state"),
            views.BUDGET_ENV: str(budget),
        }
        self.agent = AiderAgent(env=env, cwd=str(root))
        self.budget = budget
        self.turn_start: dict[str, tuple[int, int]] = {}
        """Per session: the view position and the raw offset at its TurnStart."""
        self.checked: list[dict[str, Any]] = []
        self.largest = 0
        self.rebased = 0
        self.over = 0
        """Events whose view held a single turn larger than the budget (kept whole, as core does)."""

    def write(self, data: bytes) -> None:
        with open(self.history, "ab") as f:
            f.write(data)

    def drain(self, hook: str = "turn-end", **payload: Any) -> None:
        body = {"source": "notification", "history_file": str(self.history), "time": TIME, **payload}
        seen: list[tuple[str, int, int, int]] = []
        real = aider_view.attach

        def spy(agent: Any, session_id: str, history: str, kind: int, *, start: int, upto: int) -> str:
            seen.append((session_id, kind, start, upto))
            return real(agent, session_id, history, kind, start=start, upto=upto)

        aider_view.attach = spy  # pyright: ignore[reportAttributeAccessIssue]
        try:
            while (event := events.parse_hook(self.agent, hook, body)) is not None:
                session_id, kind, start, upto = seen[-1]
                self.on_event(event.session_ref, session_id, kind, start, upto)
                body = {**body, "exited": False}
        finally:
            aider_view.attach = real  # pyright: ignore[reportAttributeAccessIssue]

    def slice(self, start: int, upto: int) -> bytes:
        """The history's bytes an event stands for."""
        with open(self.history, "rb") as f:
            f.seek(start)
            return f.read(upto - start)

    def on_event(self, ref: str, session_id: str, kind: int, start: int, upto: int) -> None:
        agent = self.agent
        data = command.read_transcript(agent, flags(session_ref=ref), b"")
        head = views.head_lines_of(data)
        if len(data) > self.budget:
            # Core keeps one turn whole up to the CLI's limit: over the budget, the view is its
            # snapshot and the current turn, nothing older.
            turn_start = self.turn_start.get(session_id, (0, 0))[1]
            lead = int(data.startswith(views.LEAD + b"\n"))  # a first TurnStart's view held nothing
            body = aider_view.view_lines(data)[max(head, lead) :]
            assert len(body) <= len(self.slice(start, upto).split(b"\n")) - 1 - turn_start, (
                f"read-transcript gave {len(data)} bytes"
            )
            self.over += 1
        assert len(data) <= MAX_TRANSCRIPT_BYTES
        self.largest = max(self.largest, len(data))
        if head:
            self.rebased += 1
        if kind == EventType.TURN_START:
            position = command.get_transcript_position(agent, flags(path=ref), b"")["position"]
            assert isinstance(position, int)
            self.turn_start[session_id] = (position, self.slice(start, upto).count(b"\n"))
            return
        if kind != EventType.TURN_END or session_id not in self.turn_start:
            return
        position, raw_offset = self.turn_start.pop(session_id)
        raw = self.slice(start, upto)
        raw_path = self.root / "raw-slice.md"
        raw_path.write_bytes(raw)
        expected = {
            "prompts": agent.extract_prompts(str(raw_path), raw_offset),
            "files": agent.extract_modified_files(str(raw_path), raw_offset)[0],
            "tokens": agent.calculate_tokens(raw, raw_offset).to_wire(),
            "summary": agent.extract_summary(str(raw_path)) or "",
        }
        got = {
            "prompts": command.extract_prompts(agent, flags(session_ref=ref, offset=position), b"")[
                "prompts"
            ],
            "files": command.extract_modified_files(agent, flags(path=ref, offset=position), b"")["files"],
            "tokens": command.calculate_tokens(agent, flags(offset=position), data),
            "summary": command.extract_summary(agent, flags(session_ref=ref), b"")["summary"],
        }
        assert got == expected, f"turn of {session_id} ending at {upto}"
        # What the CLI's compactor makes of the view from the turn's start: the turn's prompts, its reply.
        entries = compactor.compact(data, position)
        users = [e["text"] for e in entries if e["type"] == "user"]
        replies = [e["text"] for e in entries if e["type"] == "assistant"]
        assert users == expected["prompts"], f"transcript of {session_id} ending at {upto}"
        if expected["prompts"]:
            assert replies and replies[-1] == expected["summary"]
        # The next turn's TurnStart is at or after this TurnEnd: positions never go back.
        end = command.get_transcript_position(agent, flags(path=ref), b"")["position"]
        assert isinstance(end, int) and end >= position
        self.checked.append(expected)


def grow_by_turns(run: Run, data: bytes, launcher: str = "") -> None:
    """Append ``data`` a turn at a time, with a notification after each (and the launcher's calls)."""
    history = transcript.parse(data)
    cuts = sorted({t.end for t in history.turns()} | {s.start for s in history.sessions} | {len(data)})
    extra: dict[str, Any] = {"source": "launcher", "session": launcher} if launcher else {}
    written = 0
    if launcher:
        run.drain("session-start", **extra, start_offset=0)
    for cut in cuts:
        if cut <= written:
            continue
        run.write(data[written:cut])
        written = cut
        run.drain(**extra)
    if launcher:
        run.drain(**extra, exited=True)


# -- synthetic histories from the real blocks ------------------------------------------------------------


def real_history() -> bytes:
    return (DATA / "aider.chat.history.md").read_bytes()


def blocks(data: bytes) -> tuple[list[bytes], list[bytes]]:
    """The real sessions' openings (header and start-up lines) and their model turns, as Aider wrote them."""
    history = transcript.parse(data)
    openings: list[bytes] = []
    turns: list[bytes] = []
    for session in history.sessions:
        if session.header is None or not session.turns:
            continue
        openings.append(data[session.start : session.turns[0].offset])
        bounds = [t.offset for t in session.turns] + [session.end]
        for turn, begin, end in zip(session.turns, bounds, bounds[1:], strict=False):
            block = data[begin:end]
            if turn.is_llm and b"> Tokens:" in block:
                turns.append(block if block.endswith(b"\n\n") else block + b"\n")
    return openings, turns


def synthetic(sessions: int, turns_each: int, *, big_turn: int = -1, big: int = 0) -> bytes:
    openings, turns = blocks(real_history())
    out = bytearray()
    number = 0
    for s in range(sessions):
        opening = openings[s % len(openings)]
        stamp = f"2026-12-{1 + s // 24:02d} {s % 24:02d}:00:00".encode()
        at = opening.index(b"started at ") + len(b"started at ")
        out += opening[:at] + stamp + opening[at + len(stamp) :]
        for _ in range(turns_each):
            block = turns[number % len(turns)]
            block = block.replace(b"#### ", f"#### [{number}] ".encode(), 1)
            if number == big_turn:
                tokens = block.index(b"> Tokens:")
                block = block[:tokens] + b"> " + b"x" * big + b"  \n\n" + block[tokens:]
            out += block
            number += 1
    return bytes(out)


# -- the tests -----------------------------------------------------------------------------------------


def test_the_real_history_through_views_equals_the_raw_slices(tmp_path: Path) -> None:
    run = Run(tmp_path)
    grow_by_turns(run, real_history())
    assert len(run.checked) >= 8
    assert run.rebased == 0  # small sessions: the view is the slice


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared Aider captures are not here")
def test_the_shared_capture_through_views(tmp_path: Path) -> None:
    run = Run(tmp_path, 4096)  # the smallest budget: the capture's sessions re-base
    grow_by_turns(run, (SHARED / "aider.chat.history.md").read_bytes())
    assert len(run.checked) >= 8
    assert run.rebased > 0


def test_exact_tokens_from_the_analytics_log_survive_a_rebase(tmp_path: Path, utc: None) -> None:
    log = tmp_path / "analytics.jsonl"
    log.write_bytes((DATA / "analytics.jsonl").read_bytes())
    data = real_history().replace(b"/srv/aider-live/out/analytics.jsonl", str(log).encode())
    run = Run(tmp_path, 4096)
    grow_by_turns(run, data)
    assert run.rebased > 0
    # Every turn equalled the raw slice's exact figures (the architect's: the markdown says 289 and 1.6k).
    assert any(c["tokens"]["input_tokens"] == 289 + 1627 for c in run.checked)


def test_many_turns_in_several_sessions_stay_within_the_budget(tmp_path: Path) -> None:
    budget = 16384
    run = Run(tmp_path, budget)
    data = synthetic(3, 60)
    assert len(data) > 4 * budget
    grow_by_turns(run, data)
    assert len(run.checked) == 180
    assert run.rebased > 50
    assert run.largest <= budget


def test_a_launched_session_with_a_20_mb_tool_output(tmp_path: Path) -> None:
    run = Run(tmp_path)
    data = synthetic(1, 12, big_turn=7, big=20 << 20)
    grow_by_turns(run, data, launcher="aider-run-big")
    assert len(run.checked) == 12
    assert run.largest <= BUDGET
    view = Path(run.agent.get_session_dir(str(tmp_path))) / "aider-run-big.md"
    assert views.MARKER.split("{")[0].encode() in view.read_bytes() or run.rebased > 0


# -- the format on its own -------------------------------------------------------------------------------


def test_long_lines_keep_their_role() -> None:
    fmt = aider_view.AiderView()
    tool = b"> " + b"y" * 50000 + b"  "
    short = fmt.shorten(tool, 4096)
    assert short is not None and len(short) < 4096 + 200
    assert short.startswith(b"> yyy") and short.endswith(b"y  ") and b"\n" not in short
    assert b"[entire: " in short
    reply = ("é" * 30000).encode()
    cut = fmt.shorten(reply, 4096)
    assert cut is not None and len(cut) < 4096 + 200 and cut.decode().startswith("éé")
    for kept in (b"#### " + b"p" * 50000 + b"  ", b"> Applied edit to " + b"a" * 9000 + b"  "):
        assert fmt.shorten(kept, 4096) is None
    parsed = transcript.parse(b"\n#### q  \n\nanswer\n\n" + short + b"\n> Tokens: 5 sent, 1 received.  \n")
    assert parsed.turns()[0].reply == "answer" and len(parsed.turns()[0].tokens) == 1


def test_the_snapshot_restates_every_prompt_and_ends_with_the_tag(tmp_path: Path) -> None:
    data = synthetic(1, 40)
    path = tmp_path / "h.md"
    path.write_bytes(data)
    first = data.split(b"\n", 1)[0]
    tag = f"entire-view:v1:0:{zlib.crc32(first):08x}"  # the tag views v1 gave a header of this file
    assert aider_view.snapshot_tag(str(path)) == tag
    header = aider_view.AiderView(str(path), 0).snapshot(str(path), len(data), 16384)
    assert header[:2] == [b"", b""] and header[2].startswith(b"# aider chat started at ")  # a blank before it
    assert tag.encode() in header[-1] and header[-1].startswith(b"> ") and header[-1].endswith(b"  ")
    assert sum(len(r) + 1 for r in header) <= 16384
    text = b"\n".join(header).decode()
    for number in range(40):
        assert f"#### [{number}] " in text
    head = b"".join(r + b"\n" for r in header)
    # As core lays a header out (views v2): the first line, the marker, the snapshot's records.
    laid_out = (
        header[0] + b"\n" + views.marker(len(header) + 1) + b"\n" + b"".join(r + b"\n" for r in header[1:])
    )
    assert views.head_lines_of(laid_out + b"\n#### next  \n") == len(header) + 1
    calls = sum(len(t.tokens) for t in transcript.parse(data).turns())
    assert aider_view.earlier_calls(aider_view.view_lines(laid_out), len(header) + 1) == calls
    # Our parser finds the restated prompts where Aider's --restore-chat-history finds them.
    prompts = transcript.prompts(transcript.parse(head))
    assert [p.split("]")[0] for p in prompts] == [f"[{n}" for n in range(40)]


def aider_restores(history: bytes) -> list[tuple[str, str]]:
    """(role, text) of the messages ``aider --restore-chat-history`` makes of a history file.

    Aider 0.86's ``split_chat_history_markdown``: ``# `` lines skipped, ``> `` lines are tool output
    (dropped), ``#### `` lines are the user's, everything else the assistant's.
    """
    messages: list[tuple[str, str]] = []
    role, lines = "", []
    for line in history.decode().splitlines(keepends=True):
        if line.startswith("# "):
            continue
        kind = "tool" if line.startswith("> ") else "user" if line.startswith("#### ") else "assistant"
        if kind != role:
            if role != "tool" and "".join(lines).strip():
                messages.append((role, "".join(lines)))
            role, lines = kind, []
        lines.append(line[5:] if kind == "user" else line)
    if role != "tool" and "".join(lines).strip():
        messages.append((role, "".join(lines)))
    return messages


def test_write_session_restores_a_rebased_view_for_the_resume_command(tmp_path: Path) -> None:
    import base64
    import json
    import shlex

    from entire_agent_aider import state
    from entire_core.protocol import AgentSession
    from entire_core.scratch import Scratch

    run = Run(tmp_path, 16384)  # room in the header for every prompt, wrapped
    grow_by_turns(run, synthetic(1, 30), launcher="aider-run-r")
    view = Path(run.agent.get_session_dir(str(tmp_path))) / "aider-run-r.md"
    stored = view.read_bytes()
    assert b"> entire-view:v1:" in stored and len(stored) <= 16384
    view.unlink()  # restored on another machine, say
    data = {"session_id": "aider-run-r", "agent_name": "aider", "repo_path": str(tmp_path),
            "session_ref": str(view), "start_time": "0001-01-01T00:00:00Z",
            "native_data": base64.b64encode(stored).decode()}  # fmt: skip
    run.agent.write_session(AgentSession.model_validate_json(json.dumps(data)))
    restored = Path(state.session_ref(Scratch(str(tmp_path), run.agent.name), "aider-run-r"))
    assert view.read_bytes() == stored
    # Aider's own markdown: each wrapped line unwrapped, the header's padding and marker left out.
    assert restored.read_bytes() == views.native_bytes(stored, wrapped=True)
    assert b'{"type"' not in restored.read_bytes()
    argv = shlex.split(run.agent.format_resume_command("aider-run-r"))
    assert argv[:4] == ["entire-agent-aider", "run", "--", "--chat-history-file"]
    assert argv[5:] == ["--restore-chat-history"] and tmp_path / argv[4] == restored
    # What the resumed Aider gets: every prompt of the session as a user message, in order.
    users = [text for role, text in aider_restores(restored.read_bytes()) if role == "user"]
    assert [u.split("]")[0] for u in users] == [f"[{n}" for n in range(30)]
    # The CLI reads the restored view within its frame: positions go on, nothing before them.
    after = command.get_transcript_position(run.agent, flags(path=str(view)), b"")["position"]
    assert (
        command.extract_prompts(run.agent, flags(session_ref=str(view), offset=after), b"")["prompts"] == []
    )
