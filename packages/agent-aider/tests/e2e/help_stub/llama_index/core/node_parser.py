"""``MarkdownNodeParser``, which ``aider.help.get_index`` splits Aider's docs with."""

from __future__ import annotations

from typing import Any


class MarkdownNodeParser:
    def get_nodes_from_documents(self, documents: list[Any]) -> list[Any]:
        return []
