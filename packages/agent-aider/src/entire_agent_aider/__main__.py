"""``python -m entire_agent_aider``: the same as the ``entire-agent-aider`` console script."""

from entire_agent_aider import main

if __name__ == "__main__":
    main()
