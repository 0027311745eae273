"""``DeliveryContract``: the deliverer's acknowledgement, for every agent whose hooks queue events.

Such an agent (Aider, Cline CLI) lists core's ``delivered`` command (``entire_core.agent.DELIVERED``),
and a deliverer of ours runs each ``entire hooks`` call with its token in ``DELIVERY_ENV`` (Aider's
launcher, Cline's hook scripts). The rule (``entire_core.eventqueue``): an event leaves the queue only
once the host has it, or a retry gives the same answer again. So, through the agent's own ``parse-hook``
(its ``delivery_case``) and core's ``delivered``: the event a delivery took is answered again until the
deliverer acknowledges it; a failed ``entire hooks`` call releases it, to be answered again; an
acknowledged one is never answered again.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from entire_core import eventqueue, liveness
from entire_core.testing.checks import Env
from entire_core.testing.contract_base import ContractBase


class DeliveryContract(ContractBase):
    """The acknowledgement of a delivered event, for agents that list core's ``delivered`` command."""

    def _queues_events(self) -> None:
        from entire_core.agent import DELIVERED

        command = self.agent_cls.commands.get("delivered")
        if command is None:
            pytest.skip(f"{self.agent_cls.name} queues no events (it lists no delivered command)")
        assert command.target == DELIVERED.target, (
            "the delivered command is core's (entire_core.agent.DELIVERED)"
        )

    def _hook(self, env: Env, delivery: str) -> Any:
        case = self.delivery_case
        assert case is not None
        payload = case.payload.replace(b"{repo}", str(env.repo).encode()).replace(
            b"{home}", str(env.sandbox.home).encode()
        )
        env.sandbox.env[eventqueue.DELIVERY_ENV] = delivery
        try:
            return env.call("parse-hook", "--hook", case.hook, stdin=payload)
        finally:
            del env.sandbox.env[eventqueue.DELIVERY_ENV]

    def test_a_delivered_event_leaves_only_once_its_deliverer_acknowledges_it(self, env: Env) -> None:
        self._queues_events()
        case = self.delivery_case
        assert case is not None, "an agent that queues events gives a delivery_case (or skips with a reason)"
        for path, data in case.files.items():
            for key, value in (("{repo}", str(env.repo)), ("{home}", str(env.sandbox.home))):
                path, data = path.replace(key, value), data.replace(key.encode(), value.encode())
            target = env.sandbox.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        mine = liveness.token()  # a process that runs: the deliverer

        def delivered(status: int) -> None:
            env.call_text("delivered", "--delivery", mine, "--status", str(status))

        first = self._hook(env, mine)
        assert first is not None, f"{case!r} answers no event"
        assert self._hook(env, mine) == first, "taken for a delivery, it stays queued until acknowledged"
        delivered(1)  # `entire hooks` failed: the next call answers it again
        assert self._hook(env, mine) == first
        delivered(0)  # the host has it: it leaves, never to be answered again
        after = self._hook(env, mine)
        assert after != first, f"an acknowledged event was answered again: {json.dumps(after)}"
        delivered(0)

    def test_delivered_refuses_what_is_not_a_delivery(self, env: Env) -> None:
        self._queues_events()
        for args in (["--delivery", "not-a-token", "--status", "0"], ["--delivery", liveness.token()]):
            assert env.fails("delivered", *args).code == 2
        env.call_text(
            "delivered", "--delivery", liveness.token(), "--status", "0"
        )  # took nothing: nothing to do
