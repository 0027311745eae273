"""Our hook payloads turned into lifecycle events, one event per ``parse-hook`` call.

Aider has no hooks: our payloads come from ``entire-agent-aider notify`` (run by Aider's
``notifications-command``) and from the launcher (``entire-agent-aider run``), see
``entire_agent_aider.notify``. A payload names the history file, the trigger and the time; the
events themselves are recovered from the history file by ``entire_agent_aider.lifecycle``.
"""

from __future__ import annotations

import os

from entire_core.types import Event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags


def parse_hook(agent: Agent, hook: str, payload: object) -> Event | None:
    """The next lifecycle event our payload implies, or None (also for payloads that are not ours).

    The event's ``session_ref`` is the session's view (``entire_agent_aider.view``): its slice of the
    history file up to where the event stands, bounded in size.
    """
    from entire_core import eventqueue, jsonvalues, locks
    from entire_core.hookinput import first_text
    from entire_core.scratch import Scratch

    from entire_agent_aider import state as store
    from entire_agent_aider import view
    from entire_agent_aider.lifecycle import Machine, Trigger

    repo_root = agent.repo_root
    fields = jsonvalues.obj(payload)
    history = _history_file(first_text(fields, "history_file"), repo_root)
    session = _session(first_text(fields, "session"))
    launcher = fields.get("source") == "launcher"
    start = fields.get("start_offset")
    claim_start = start if launcher and hook == "session-start" and session and _is_count(start) else None
    exited = launcher and fields.get("exited") is True and bool(session)
    turn_over = launcher and fields.get("turn_over") is True and bool(session)
    if claim_start is None and not exited and not os.path.isfile(history):
        return None
    trigger = Trigger(
        time=_time(first_text(fields, "time")),
        notification=fields.get("source") == "notification",
        session=session,
        claim_start=claim_start,
        exited=exited,
        turn_over=turn_over,
        launcher=launcher,
    )
    scratch = Scratch(repo_root, agent.name)
    lock = store.state_path(scratch, history) + ".lock"
    delivery = eventqueue.delivery(agent.env)  # our deliverer acknowledges the event (eventqueue.settle)

    def answer() -> Event | None:
        with locks.exclusive(lock):
            state = store.load(scratch, history)
            machine = Machine(history, state, trigger)
            new_claim = claim_start is not None and machine.add_claim(session, claim_start)
            machine.scan()
            if new_claim:
                machine.claim_started(session, claim_start or 0)
            item = machine.take(delivery)
            event = None
            if item is not None:
                kind, session_id = int(item["type"]), str(item["session"])
                start, upto = int(item["start"]), int(item["upto"])
                ref = view.attach(agent, session_id, history, kind, start=start, upto=upto)
                event = Event(
                    kind,
                    session_id,
                    session_ref=ref,
                    prompt=str(item.get("prompt") or ""),
                    model=str(item.get("model") or ""),
                    timestamp=str(item.get("time") or ""),
                )
            store.save(scratch, history, state)
        return event

    event = eventqueue.take_in_order(answer, locks.WAIT_SECONDS)
    if event is not None and not delivery:  # it leaves the queue once the answer is on stdout
        eventqueue.confirm_when_answered(
            lock,
            lambda: store.load(scratch, history),
            lambda state: store.save(scratch, history, state, sync_directory=False),
            "queue",
        )
    return event


def sync(agent: Agent, flags: Flags) -> int:
    """``sync --history FILE --session ID`` (run by the launcher's Aider before it commits).

    Brings the launched session's view up to everything complete in the history file: Entire reads
    the view at the commit, after asking for its position and its files. Events and the lifecycle
    state are left alone; the next event's view starts from there.
    """
    from entire_core import jsonvalues, locks, offsets
    from entire_core.scratch import Scratch

    from entire_agent_aider import state as store
    from entire_agent_aider import view

    history = _history_file(flags.str_("history"), agent.repo_root)
    session = _session(flags.str_("session"))
    if not session or not os.path.isfile(history):
        return 0
    scratch = Scratch(agent.repo_root, agent.name)
    with locks.exclusive(store.state_path(scratch, history) + ".lock"):
        current = jsonvalues.obj(store.load(scratch, history).get("current"))
        if current.get("id") == session:
            start = jsonvalues.integer(current.get("start"))
            view.attach(
                agent, session, history, 0, start=start, upto=max(start, offsets.complete_end(history))
            )
    return 0


def _history_file(value: str, repo_root: str) -> str:
    from entire_core import validate

    if os.path.isabs(value) and "\0" not in value and not validate.has_parent_reference(value):
        return value
    from entire_agent_aider.paths import default_history  # only when the payload names no history

    return default_history(repo_root)


def _session(value: str) -> str:
    # Our own payload's launcher session id: one that is not a valid id is no claim at all.
    from entire_core import validate

    return value if value and validate.is_session_id(value) else ""


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _time(value: str) -> str:
    from entire_core.types import normalize_timestamp

    return normalize_timestamp(value) or now()


def now() -> str:
    """The current time as RFC 3339 UTC."""
    from datetime import UTC, datetime

    from entire_core.types import rfc3339

    return rfc3339(datetime.now(UTC))
