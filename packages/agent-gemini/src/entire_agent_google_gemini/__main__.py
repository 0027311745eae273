"""``python -m entire_agent_google_gemini``: the same as the ``entire-agent-google-gemini`` console script."""

from entire_agent_google_gemini import main

if __name__ == "__main__":
    main()
