"""Console entry point of ``entire-agent-openai-codex``."""


def main() -> int:
    """Run one protocol subcommand or human command."""
    from entire_core.cli import run

    from entire_agent_openai_codex.agent import OpenAICodexAgent

    return run(OpenAICodexAgent)


if __name__ == "__main__":
    raise SystemExit(main())
