"""The Entire CLI's side of the external-agent protocol: discovery, hooks, lifecycle, resume, demo.

The real Entire CLI cannot run on our machines; this package drives ``entire-agent-*`` executables
the way the newest CLI does (PROTOCOL.md), decodes their answers with Go's rules, and records every
violation, so our plugins are tested the way Entire uses them.
"""

from entire_sim.simulator import Simulator

__all__ = ["Simulator"]
