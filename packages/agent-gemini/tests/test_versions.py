"""The support window: the contract kit's standard tests over ``versions.WINDOW`` (its doctor lines: test_textgen_doctor.py)."""

from __future__ import annotations

from pathlib import Path

from entire_agent_google_gemini.agent import GeminiAgent
from entire_agent_google_gemini.versions import WINDOW
from entire_core.testing.window import SupportWindowContract


class TestGeminiWindow(SupportWindowContract):
    window = WINDOW
    agent_cls = GeminiAgent
    package_dir = Path(__file__).parents[1]
    binary = "gemini"
    version_line = "{version}"
    hooks_installed = 7
