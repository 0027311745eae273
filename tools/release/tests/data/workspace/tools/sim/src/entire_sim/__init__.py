"""Fake simulator: no version of its own."""
