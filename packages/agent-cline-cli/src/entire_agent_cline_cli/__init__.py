"""Entire CLI external-agent plugin for Cline CLI."""

from entire_core.cli import console_main

__version__ = "0.1.0"

main = console_main("entire_agent_cline_cli.agent:ClineCliAgent")
"""The console script, and ``python -m``: one subcommand, then ``cli.exit_now``."""
