"""Entire CLI external-agent plugin for Qwen Code."""

from entire_core.cli import console_main

__version__ = "0.1.0"

main = console_main("entire_agent_qwen_code.agent:QwenCodeAgent")
"""The console script, and ``python -m``: one subcommand, then ``cli.exit_now``."""
