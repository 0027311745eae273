"""The event queue: an event leaves only once its answer is out, and a dead answerer's event is answered again."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from entire_core import cli_stdio, eventqueue, liveness
from entire_core.errors import AgentError, UsageError
from entire_core.eventqueue import MARK, Busy, EventQueue
from entire_core.scratch import Scratch


def _token_of(proc: subprocess.Popen[bytes]) -> str:
    return f"{proc.pid}.{liveness._start_of(proc.pid)}"  # pyright: ignore[reportPrivateUsage]


def test_a_taken_event_stays_queued_until_done() -> None:
    events: list[dict[str, Any]] = []
    queue = EventQueue(events)
    assert queue.take() is None and not queue.done()
    queue.put({"n": 1})
    queue.put({"n": 2})
    first = queue.take()
    assert first == {"n": 1, MARK: liveness.token()} and len(queue) == 2
    assert queue.done() and [e["n"] for e in events] == [2]
    assert not queue.done()


def test_an_event_taken_earlier_in_this_process_was_answered() -> None:
    # In-process callers (tests) call again without any answer channel: the earlier answer is out.
    events = [{"n": 1}, {"n": 2}]
    assert EventQueue(events).take() == {"n": 1, MARK: liveness.token()}
    assert EventQueue(events).take() == {"n": 2, MARK: liveness.token()}
    assert [e["n"] for e in events] == [2]


def test_the_event_of_a_dead_answerer_is_answered_again_first() -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    token = _token_of(dead)
    dead.wait()
    events = [{"n": 1, MARK: token}, {"n": 2}]
    assert liveness.gone(token)
    assert EventQueue(events).take() == {"n": 1, MARK: liveness.token()}


def test_a_live_answerer_holds_the_order_and_take_in_order_waits_for_it() -> None:
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        events = [{"n": 1, MARK: _token_of(alive)}, {"n": 2}]
        with pytest.raises(Busy):
            EventQueue(events).take()
        with pytest.raises(AgentError, match="answering the oldest event"):
            eventqueue.take_in_order(lambda: EventQueue(events).take(), 0.05)
        started = time.monotonic()
        taken = eventqueue.take_in_order(lambda: alive.kill() or EventQueue(events).take(), 5)
        assert taken is not None and taken["n"] == 1
        assert time.monotonic() - started < 5
    finally:
        alive.kill()
        alive.wait()


def test_a_reused_process_id_is_no_answerer() -> None:
    pid, _, start = liveness.token().partition(".")
    assert not liveness.gone(liveness.token())
    assert liveness.gone(f"{pid}.{int(start) + 1}")
    assert liveness.gone("not-a-token") and liveness.gone("12.x")


def _state_file(tmp_path: Path, events: list[dict[str, Any]]) -> Path:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"queue": events}))
    return path


def test_the_confirmation_runs_only_once_the_answer_is_written(tmp_path: Path) -> None:
    path = _state_file(tmp_path, [{"n": 1, MARK: liveness.token()}, {"n": 2}])
    saved: list[int] = []

    def confirm() -> None:
        eventqueue.confirm_when_answered(
            str(tmp_path / "lock"),
            lambda: json.loads(path.read_text()),
            lambda state: (saved.append(1), path.write_text(json.dumps(state))),
            "queue",
        )

    with cli_stdio.AnswerChannel():
        confirm()  # and the handler fails after it: no answer is written
    with cli_stdio.AnswerChannel() as answer:  # the next call in this process answers
        assert answer.write(b"") == 0
    assert saved == [] and len(json.loads(path.read_text())["queue"]) == 2
    # One that is written takes it off.
    with cli_stdio.AnswerChannel() as answer:
        confirm()
        assert saved == []
        assert answer.write(b"") == 0
    assert saved == [1] and json.loads(path.read_text())["queue"] == [{"n": 2}]


def test_a_failing_confirmation_keeps_the_answer_and_its_exit_status(tmp_path: Path) -> None:
    def broken() -> dict[str, Any]:
        raise OSError("disk full")

    eventqueue.confirm_when_answered(str(tmp_path / "lock"), broken, lambda state: None, "queue")
    cli_stdio.when_answered(lambda: 1 / 0)
    with cli_stdio.AnswerChannel() as answer:
        assert answer.write(b"") == 0


def test_events_of_mends_a_damaged_state() -> None:
    state: dict[str, Any] = {"queue": "torn"}
    assert eventqueue.events_of(state, "queue") == [] and state == {"queue": []}


def test_a_delivered_event_leaves_only_when_its_deliverer_acknowledges_it() -> None:
    # The deliverer (this process, as notify is to its `entire hooks` calls) names the calls it causes.
    mine = liveness.token()
    events = [{"n": 1}, {"n": 2}]
    assert EventQueue(events).take(mine) == {"n": 1, MARK: mine}
    # Neither acknowledged nor released (its acknowledgement failed): the next call answers it again.
    assert EventQueue(events).take(mine) == {"n": 1, MARK: mine}
    assert EventQueue(events).acknowledge(mine) and [e["n"] for e in events] == [2]
    assert not EventQueue(events).acknowledge(mine)  # the call took nothing (Entire not enabled)


def test_a_failed_delivery_is_answered_again_until_max_tries() -> None:
    mine = liveness.token()
    events = [{"n": 1}, {"n": 2}]
    for tries in range(1, eventqueue.MAX_TRIES):
        assert EventQueue(events).take(mine) == {
            "n": 1,
            MARK: mine,
            **({eventqueue.TRIES: tries - 1} if tries > 1 else {}),
        }
        assert EventQueue(events).release(mine)
        assert events[0] == {"n": 1, eventqueue.TRIES: tries}
    EventQueue(events).take(mine)
    assert EventQueue(events).release(mine) and [e["n"] for e in events] == [2]
    assert not EventQueue(events).release(mine)


def test_another_deliverer_waits_for_a_live_one() -> None:
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        events = [{"n": 1, MARK: _token_of(alive)}]
        with pytest.raises(Busy):
            EventQueue(events).take(liveness.token())
    finally:
        alive.kill()
        alive.wait()
    assert EventQueue(events).take(liveness.token()) == {"n": 1, MARK: liveness.token()}


def test_delivery_is_a_token_of_a_process_that_runs() -> None:
    assert eventqueue.delivery({eventqueue.DELIVERY_ENV: liveness.token()}) == liveness.token()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    token = _token_of(dead)
    dead.wait()
    for value in ("", "x", "12", "a.b", token):
        assert eventqueue.delivery({eventqueue.DELIVERY_ENV: value}) == ""
    assert eventqueue.delivery({}) == ""


def _scratch_with(root: Path, queues: dict[str, list[dict[str, Any]]]) -> Scratch:
    scratch = Scratch(str(root), "sample")  # SampleAgent's
    for key, queue in queues.items():
        scratch.save("session", key, {"queue": queue, "turns": [key]}, durable=True)
    return scratch


def _queue(scratch: Scratch, key: str) -> list[dict[str, Any]]:
    return scratch.load("session", key)["queue"]


def test_settle_finds_the_deliverys_event_in_whichever_state_holds_it(tmp_path: Path) -> None:
    mine, other = liveness.token(), "1.2"
    scratch = _scratch_with(tmp_path, {"a": [{"n": 1, MARK: other}], "b": [{"n": 2, MARK: mine}, {"n": 3}]})
    assert eventqueue.settle(scratch, mine, delivered=False) == 1  # the call failed: answered again
    assert _queue(scratch, "b") == [{"n": 2, eventqueue.TRIES: 1}, {"n": 3}]
    assert scratch.load("session", "b")["turns"] == ["b"]  # the rest of the state as it was
    EventQueue(events := _queue(scratch, "b")).take(mine)
    scratch.save("session", "b", {"queue": events}, durable=True)
    assert eventqueue.settle(scratch, mine, delivered=True) == 1  # the host has it: it leaves
    assert _queue(scratch, "b") == [{"n": 3}]
    assert eventqueue.settle(scratch, mine, delivered=True) == 0  # the call took none
    assert _queue(scratch, "a") == [{"n": 1, MARK: other}]  # another delivery's, untouched
    assert eventqueue.settle(Scratch(str(tmp_path / "nowhere"), "sample"), mine, delivered=True) == 0


def test_the_delivered_command_settles_by_the_exit_status_it_is_given(tmp_path: Path) -> None:
    from entire_core.agent import DELIVERED
    from entire_core.testing.sample_agent import SampleAgent

    mine = liveness.token()
    scratch = _scratch_with(tmp_path, {"a": [{"n": 1, MARK: mine}]})
    agent = SampleAgent(env={"ENTIRE_REPO_ROOT": str(tmp_path)})
    assert eventqueue.delivered(agent, DELIVERED.parse(["--delivery", mine, "--status", "2"])) == 0
    assert _queue(scratch, "a") == [{"n": 1, eventqueue.TRIES: 1}]
    for args, why in ((["--delivery", "x.1", "--status", "0"], "not a process token"),
                      (["--delivery", mine], "--status is required")):  # fmt: skip
        with pytest.raises(UsageError, match=why):
            eventqueue.delivered(agent, DELIVERED.parse(args))
    assert eventqueue.is_token(mine) and not eventqueue.is_token("12") and not eventqueue.is_token(".1")
