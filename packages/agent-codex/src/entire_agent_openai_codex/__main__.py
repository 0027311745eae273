"""``python -m entire_agent_openai_codex``: the same as the ``entire-agent-openai-codex`` console script."""

from entire_agent_openai_codex import main

if __name__ == "__main__":
    main()
