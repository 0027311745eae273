"""Shared core of the Entire CLI external-agent plugins.

Kept import-free on purpose: every hook imports this package, and hooks fire on every prompt.
"""

__version__ = "0.1.0"

PROTOCOL_VERSION = 1
