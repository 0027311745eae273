"""Entire CLI external-agent plugin for Google Gemini CLI."""

__version__ = "0.1.0"


def main() -> int:
    """``entire-agent-google-gemini``: run one protocol subcommand or human command.

    The console script's target is here rather than in ``__main__``: a hook then loads one module fewer.
    """
    from entire_core.cli import run

    from entire_agent_google_gemini.agent import GeminiAgent

    return run(GeminiAgent)
