"""Entire CLI external-agent plugin for OpenAI's Codex CLI."""

__version__ = "0.1.0"
