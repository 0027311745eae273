"""The contract kit's standard tests against every installed console script, one process per call.

Set ``ENTIRE_AGENT_SCRIPT_<NAME>`` to run them against a script installed elsewhere (the release
smoke test points them at wheels installed in a fresh virtual environment).
"""

from __future__ import annotations

from agent_scripts import installed_agents
from entire_core.testing.contract import AgentContract

for _agent in installed_agents():
    _name = "TestBlackBox_" + _agent.name.replace("-", "_")
    globals()[_name] = type(_name, (AgentContract,), {"agent_cls": _agent.cls, "script": _agent.script})
