"""``HuggingFaceEmbedding``: importing this module is Aider's test that its help extra is installed."""

from __future__ import annotations


class HuggingFaceEmbedding:
    def __init__(self, model_name: str = "") -> None:
        self.model_name = model_name
