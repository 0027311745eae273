"""The captured Cline sessions (``data/v<version>``): what each real run recorded, and its journal.

Each version's capture is one ``cline --json <prompt>`` run per prompt in ``PROMPTS`` (the scripted
server of ``e2e/model_server.py``, offline), with a hook file per event that saved its payload
(``hooks/NN-<Event>.json``), and Cline's data directory's ``sessions`` folder. ``journals/`` holds the
journal our plugin makes of each session (``test_journal`` checks they are what ``journal.sync`` makes).
"""

from __future__ import annotations

import json
from pathlib import Path

DATA = Path(__file__).parent / "data"
VERSIONS = ("3.0.64", "3.0.65")
PROMPTS = ["write hello please", "edit hello now", "delete old.txt", "use a subagent please", "just say hi"]
TOOL = {
    "input_tokens": 60,
    "cache_creation_tokens": 0,
    "cache_read_tokens": 40,
    "output_tokens": 10,
    "api_call_count": 1,
}
TEXT = {
    "input_tokens": 40,
    "cache_creation_tokens": 0,
    "cache_read_tokens": 60,
    "output_tokens": 40,
    "api_call_count": 1,
}
"""One scripted call answering with a tool call (100 in, 40 of them cached, 10 out), and one answering with
text (100 in, 60 cached, 40 out of which 30 reasoning): Entire's input is the prompt less the cache."""


def calls(tools: int, texts: int) -> dict[str, int]:
    """The usage of ``tools`` tool-calling and ``texts`` text-answering scripted calls."""
    return {k: TOOL[k] * tools + TEXT[k] * texts for k in TOOL}


class Capture:
    """One version's capture."""

    def __init__(self, version: str) -> None:
        self.version = version
        self.root = DATA / f"v{version}"
        self.sessions = self.root / "sessions"
        self.hooks = sorted((self.root / "hooks").glob("*.json"))
        self.repo = f"/tmp/cap/w{version}/repo"
        by_prompt = {}
        for folder in self.sessions.iterdir():
            manifest = json.loads((folder / f"{folder.name}.json").read_text())
            by_prompt[manifest["prompt"]] = folder.name
        self.session_of = by_prompt
        """Prompt -> the session its run made."""

    def messages(self, session: str) -> Path:
        return self.sessions / session / f"{session}.messages.json"

    def journal(self, session: str) -> Path:
        return self.root / "journals" / f"journal-{session}.jsonl"


CAPTURES = [Capture(v) for v in VERSIONS]
