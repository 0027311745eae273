"""Entire CLI external-agent plugin for OpenAI's Codex CLI."""

from entire_core.cli import console_main

__version__ = "0.1.0"

main = console_main("entire_agent_openai_codex.agent:OpenAICodexAgent")
"""The console script, and ``python -m``: one subcommand, then ``cli.exit_now``."""
