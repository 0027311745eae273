"""``python -m entire_agent_qwen_code``: the same as the ``entire-agent-qwen-code`` console script."""

from entire_agent_qwen_code import main

if __name__ == "__main__":
    main()
