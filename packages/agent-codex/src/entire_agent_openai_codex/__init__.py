"""Entire CLI external-agent plugin for OpenAI's Codex CLI."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

__version__ = "0.1.0"


def main() -> NoReturn:
    """``entire-agent-openai-codex``: run one protocol subcommand or human command, then exit.

    The console script's target is here rather than in ``__main__``, so a hook loads one module fewer,
    and it ends with ``exit_now``, which skips the interpreter's clean-up. In-process, call ``run``.
    """
    from entire_core.cli import exit_now, run

    from entire_agent_openai_codex.agent import OpenAICodexAgent

    exit_now(run(OpenAICodexAgent))
