"""Shared core of the Entire CLI external-agent plugins.

Kept import-free on purpose: every hook imports this package, and hooks fire on every prompt.
"""

__version__ = "0.1.0"

PROTOCOL_VERSION = 1

MAX_TRANSCRIPT_BYTES = 10 * 1024 * 1024
"""The CLI caps a plugin's stdout at 10 MiB; a bigger transcript must fail clearly, not be cut."""


def program_name(agent_name: str) -> str:
    """The console script of the agent registered as ``agent_name``: ``entire-agent-<name>``."""
    return f"entire-agent-{agent_name}"
