"""The names ``aider.help.get_index`` and ``Help`` import from ``llama_index.core``."""

from __future__ import annotations

from typing import Any


class Settings:
    embed_model: Any = None


class Document:
    def __init__(self, text: str = "", metadata: dict[str, Any] | None = None) -> None:
        self.text = text
        self.metadata = metadata or {}


class _Node:
    text = "Use /add <file> to add files to the chat, and /drop <file> to remove them."
    metadata = {"url": "https://aider.chat/docs/usage/commands.html"}


class _Retriever:
    def retrieve(self, question: str) -> list[_Node]:
        return [_Node()]


class _Storage:
    def persist(self, persist_dir: object) -> None:
        pass  # nothing to keep: get_index builds this stand-in again next time


class VectorStoreIndex:
    def __init__(self, nodes: list[Any], show_progress: bool = False) -> None:
        self.storage_context = _Storage()

    def as_retriever(self, similarity_top_k: int = 20) -> _Retriever:
        return _Retriever()


class StorageContext:
    @staticmethod
    def from_defaults(persist_dir: object = None) -> StorageContext:
        raise OSError("no stored index")  # get_index then builds one


def load_index_from_storage(storage_context: object) -> VectorStoreIndex:
    raise OSError("no stored index")
