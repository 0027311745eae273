"""Cline's hook payloads -> Entire lifecycle events, each session's in order, each exactly once.

Cline runs these hooks detached (``hooks``): two of one session may run at once and finish in any
order, even after ``cline`` has exited. So a payload is not answered as it comes. Under the session's
lock (``entire_core.locks``) it adds what it means to the session's queue (``entire_core.eventqueue``),
and the call answers the queue's oldest event, whatever hook it was started by (it leaves the queue
once our hook script saw the host take it: ``entire_core.eventqueue``):

- a turn's start (``TaskStart``, ``TaskResume``) queues the turn's start; a start while another turn
  is open ends that one first;
- a turn's end (``TaskComplete``, ``TaskCancel``, ``TaskError``) queues the turn's start first when its
  own hook has not come yet (it then brings nothing), then the end.

Turns are told apart by the payload's ``timestamp`` (set by Cline as it dispatches the hook), not by
``taskId``: a one-shot run has a new ``conv_…`` id per turn, but a resumed TUI keeps one for every turn.

So a turn's end never overtakes its start, and a hook that comes late finds its event already queued.
Each turn has two hooks and two events, so each hook delivers one and none waits for a later session:
no ``SessionStart`` is sent (the host starts a session at its first turn), and Cline fires no
session end.
A subagent's hooks (``parent_agent_id`` set) queue nothing of their own: they only deliver the queue.
The session is ``sessionContext.rootSessionId`` (the parent's inside a subagent); the payload names no
file and no prompt, so the transcript is the session's journal (``journal``), brought up to exactly the
event's place in Cline's messages as it is answered (``_answer``), however late that is.
"""

from __future__ import annotations

from entire_core.jsonvalues import array, integer, obj, text
from entire_core.types import Event, EventType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.agent import Agent

STARTS = frozenset(["task-start", "task-resume"])
ENDS = frozenset(["task-complete", "task-cancel", "task-error"])
KIND = "session"
WAIT_SECONDS = 3.0
"""How long an answer waits for Cline to write the messages its event is about."""
KEEP_TURNS = 8
"""The newest turns' times kept in the state, to know a late hook's turn."""


def parse(agent: Agent, hook: str, payload: object) -> Event | None:
    """The session's oldest undelivered event after adding ``payload``'s, or None."""
    from entire_core import eventqueue, locks, validate
    from entire_core.scratch import Scratch

    p = obj(payload)
    session = text(obj(p.get("sessionContext")).get("rootSessionId"))
    if hook not in STARTS | ENDS or not validate.is_session_id(session):
        return None
    own = not text(p.get("parent_agent_id"))
    scratch = Scratch(agent.repo_root, agent.name)
    lock = scratch.file(KIND, session) + ".lock"
    stamp = _time(text(p.get("timestamp")))
    delivery = eventqueue.delivery(agent.env)  # our hook script acknowledges the event (eventqueue.settle)

    def answer() -> Event | None:
        with locks.exclusive(lock):
            state = scratch.load(KIND, session, durable=True)
            queue = eventqueue.EventQueue(eventqueue.events_of(state, "queue"))
            if own:
                _note(state, queue, hook, stamp, text(obj(p.get("turn")).get("outputText")))
            item = queue.take(delivery)
            event = _answer(agent, session, item, state) if item is not None else None
            scratch.save(KIND, session, state, durable=True)
        return event

    event = eventqueue.take_in_order(answer, locks.WAIT_SECONDS)
    if event is not None and not delivery:  # else it leaves once the host has it
        eventqueue.confirm_when_answered(
            lock, lambda: scratch.load(KIND, session), lambda s: scratch.save(KIND, session, s), "queue"
        )
    return event


def _note(state: dict[str, Any], queue: Any, hook: str, stamp: str, reply: str) -> None:
    """Queue what a hook of the session's own agent at time ``stamp`` means (``queue``: an ``EventQueue``).

    The session's turns are kept as their start and end times: a hook whose time falls in a turn
    already known is that turn's, and queues nothing more.
    """
    turns = [dict(obj(t)) for t in array(state.get("turns"))]
    last = turns[-1] if turns else None

    def begin() -> None:
        queue.put({"type": EventType.TURN_START, "time": stamp})
        turns.append({"start": stamp, "end": ""})

    def finish(text_of_reply: str) -> None:
        queue.put({"type": EventType.TURN_END, "time": stamp, "reply": text_of_reply})
        turns[-1]["end"] = stamp

    ended = last is None or (bool(last["end"]) and stamp > text(last["end"]))
    if hook in STARTS:
        if last is not None and not last["end"] and stamp > text(last["start"]):
            finish("")  # the open turn's end is late: this start ends it
            begin()
        elif ended:
            begin()
    elif last is not None and not last["end"] and stamp >= text(last["start"]):
        finish(reply)
    elif ended:
        begin()  # the turn's start is late: its end starts it
        finish(reply)
    state["turns"] = turns[-KEEP_TURNS:]


def _answer(agent: Agent, session: str, item: dict[str, Any], state: dict[str, Any]) -> Event:
    """The event of a queued ``item``, the journal brought up to exactly its place: a turn starts just
    before its prompt (the first after the ``seen`` prompts of the turns before; Cline writes it after the
    turn's first model call, so the start waits for it, but a new session's is in its manifest at once),
    and ends at its own reply (``_end``), even where Cline has written the next turn by then."""
    from entire_core.offsets import read_all

    from entire_agent_cline_cli import journal, paths
    from entire_agent_cline_cli.transcript import document, prompt_of, reply_of

    kind = integer(item.get("type"))
    starting = kind == EventType.TURN_START
    sessions = paths.sessions_dir(agent.env, agent.home())
    messages_file = paths.messages_file(sessions, session)
    seen = integer(item.setdefault("seen", integer(state.get("prompts"))))  # the same, answered again
    reply = text(item.get("reply")).strip()
    manifest = document(read_all(paths.manifest_file(sessions, session))) if starting and not seen else {}
    first_prompt = text(manifest.get("prompt")).strip()

    def start(items: list[dict[str, Any]]) -> int:
        said = [i for i, m in enumerate(items) if prompt_of(m)]
        return said[seen] if len(said) > seen else len(items)

    def ready(items: list[dict[str, Any]]) -> bool:
        if starting:
            return start(items) < len(items) or bool(first_prompt and not any(map(prompt_of, items)))
        return not reply or any(reply_of(m) == reply for m in items[start(items) :])

    data, items = _wait(messages_file, ready)
    ref = journal.path(agent.repo_root, agent.name, session)
    first = start(items)
    end = first if starting else _end(items, first, reply, text(item.get("time")))
    journal.sync(messages_file, ref, end, data)
    state["open"] = starting
    if starting:
        prompt = prompt_of(items[first]) if first < len(items) else first_prompt
        return Event(kind, session, session_ref=ref, prompt=prompt, timestamp=text(item.get("time")))
    state["prompts"] = sum(1 for m in items[:end] if prompt_of(m))
    models = [text(obj(m.get("modelInfo")).get("id")) for m in items[:end] if m.get("modelInfo")]
    return Event(
        kind, session, session_ref=ref, model=models[-1] if models else "", timestamp=text(item.get("time"))
    )


def _end(items: list[dict[str, Any]], first: int, reply: str, stamp: str) -> int:
    """Where the turn whose prompt is ``items[first]`` ends: after its ``reply``, else before the next
    prompt or the first message written after ``stamp`` (its end's time)."""
    import time

    from entire_agent_cline_cli.transcript import prompt_of, reply_of

    def at(
        ms: int,
    ) -> str:  # a message's time (``ts``, ms since the epoch) as the payload's, which compares as text
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"

    later = range(first + 1, len(items))
    return next((i + 1 for i in later if reply and reply_of(items[i]) == reply), 0) or next(
        (i for i in later if prompt_of(items[i]) or at(integer(items[i].get("ts"))) > stamp), len(items)
    )


def _wait(messages_file: str, ready: Any) -> tuple[bytes, list[dict[str, Any]]]:
    """The bytes and messages of ``messages_file`` once ``ready(messages)``, or after ``WAIT_SECONDS``."""
    import time

    from entire_core.jsonvalues import objects
    from entire_core.offsets import read_all

    from entire_agent_cline_cli.transcript import document

    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        data = read_all(messages_file)
        items = objects(document(data).get("messages"))
        if ready(items) or time.monotonic() > deadline:
            return data, items
        time.sleep(0.05)


def _time(stamp: str) -> str:
    """The payload's time as Cline writes it (``toISOString``: UTC, milliseconds), which compares as text;
    now, in that form, for anything else."""
    import time

    digits = stamp[:4] + stamp[5:7] + stamp[8:10] + stamp[11:13] + stamp[14:16] + stamp[17:19] + stamp[20:23]
    if len(stamp) == 24 and stamp[4::3][:2] == "--" and stamp[10] + stamp[-1] == "TZ" and digits.isdigit():
        return stamp
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}Z"
