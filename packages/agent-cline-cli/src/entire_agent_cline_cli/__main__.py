"""``python -m entire_agent_cline_cli``: the same as the ``entire-agent-cline-cli`` console script."""

from entire_agent_cline_cli import main

if __name__ == "__main__":
    main()
