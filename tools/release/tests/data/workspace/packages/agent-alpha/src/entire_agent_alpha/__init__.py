"""Fake agent alpha."""

__version__ = "0.1.0"
