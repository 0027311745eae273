"""The support window: the contract kit's standard tests over ``versions.WINDOW``."""

from __future__ import annotations

from pathlib import Path

from entire_agent_qwen_code.agent import QwenCodeAgent
from entire_agent_qwen_code.versions import WINDOW
from entire_core.testing.window import SupportWindowContract


class TestQwenCodeWindow(SupportWindowContract):
    window = WINDOW
    agent_cls = QwenCodeAgent
    package_dir = Path(__file__).parents[1]
    binary = "qwen"
    version_line = "{version}"
    hooks_installed = 7
