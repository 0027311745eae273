"""The contract kit's standard tests against every installed console script, one process per call.

Set ``ENTIRE_AGENT_SCRIPT_<NAME>`` to run them against a script installed elsewhere (the release
smoke test points them at wheels installed in a fresh virtual environment).
"""

from __future__ import annotations

from agent_scripts import installed_agents
from entire_core.testing.contract import AgentContract

SKIPS = {
    "test_usage_counts_each_prompt_token_once": "each agent's usage case is its package's: its own contract "
    "tests run it in-process and black-box; this suite has no agent's data",
    "test_a_delivered_event_leaves_only_once_its_deliverer_acknowledges_it": "each deliverer's case (a hook "
    "payload and the agent's files) is its package's: its own contract tests run it; this suite has "
    "no agent's data",
}

for _agent in installed_agents():
    _name = "TestBlackBox_" + _agent.name.replace("-", "_")
    globals()[_name] = type(
        _name, (AgentContract,), {"agent_cls": _agent.cls, "script": _agent.script, "skip_reasons": SKIPS}
    )
