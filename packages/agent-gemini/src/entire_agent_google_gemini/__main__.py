"""Console entry point: ``entire-agent-google-gemini <subcommand>``."""


def main() -> int:
    """Run one protocol subcommand (or a human command) for Gemini CLI."""
    from entire_core.cli import run

    from entire_agent_google_gemini.agent import GeminiAgent

    return run(GeminiAgent)


if __name__ == "__main__":
    raise SystemExit(main())
