"""The support window is in one place: the README's table and the end-to-end tests read ``versions.WINDOW``."""

from __future__ import annotations

from pathlib import Path

from entire_agent_google_gemini.versions import WINDOW

README = Path(__file__).parents[1] / "README.md"


def test_the_readme_table_is_the_window() -> None:
    text = README.read_text(encoding="utf-8")
    assert WINDOW.markdown_table() in text
    assert " ".join(text.split()).count(f"Supported: {WINDOW.describe()}.") == 1
