"""The simulator's on-disk state, kept per repository as the Entire CLI keeps its own.

Every hook is a separate process (a real agent runs ``entire hooks ...`` once per hook), so what one
hook learns (the prompt, the turn's start offset, the transcript path) must be on disk for the next.
Layout under the state directory:

    sessions/<id>.json        session state: agent, transcript path, phase, model, offsets
    tmp/pre-prompt-<id>.json  the turn's start offset, written at TurnStart, removed at TurnEnd
    tmp/pre-task-<id>.json    untracked files when a subagent started
    metadata/<id>/            prompt.txt and full.jsonl, as the CLI stores them
    hook-calls.jsonl          one record per ``entire hooks`` call
    checkpoints.jsonl         one record per saved step (turns, subagent tasks and condensations)
    resumes.jsonl             one record per ``resume`` that called the plugin, with its calls
    violations.jsonl          everything the real CLI would have rejected

A condensation's checkpoint itself is stored in the repository, as the host stores it (``gitrefs``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from entire_core import locks
from entire_core.fsutil import atomic_write


class State:
    """Reads and writes one state directory; ``lock()`` serialises concurrent hooks."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the state directory's lock (agents may fire hooks concurrently)."""
        with locks.exclusive(str(self.root / ".lock"), wait=60):
            yield

    def _read(self, path: Path) -> dict[str, Any] | None:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    def _write(self, path: Path, data: dict[str, Any]) -> None:
        atomic_write(str(path), (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8"))

    def session(self, session_id: str) -> dict[str, Any] | None:
        """The state of a session, or None if the CLI never saw it."""
        return self._read(self.root / "sessions" / f"{session_id}.json")

    def save_session(self, session_id: str, data: dict[str, Any]) -> None:
        """Store a session's state."""
        self._write(self.root / "sessions" / f"{session_id}.json", data)

    def sessions(self) -> list[dict[str, Any]]:
        """Every known session."""
        directory = self.root / "sessions"
        if not directory.is_dir():
            return []
        return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(directory.glob("*.json"))]

    def tmp(self, name: str) -> dict[str, Any] | None:
        """A scratch record such as ``pre-prompt-<id>``."""
        return self._read(self.root / "tmp" / f"{name}.json")

    def save_tmp(self, name: str, data: dict[str, Any]) -> None:
        """Store a scratch record."""
        self._write(self.root / "tmp" / f"{name}.json", data)

    def delete_tmp(self, name: str) -> None:
        """Remove a scratch record."""
        with contextlib.suppress(FileNotFoundError):
            (self.root / "tmp" / f"{name}.json").unlink()

    def metadata(self, session_id: str) -> Path:
        """``metadata/<id>/``, created on demand."""
        path = self.root / "metadata" / session_id
        path.mkdir(parents=True, exist_ok=True)
        return path

    def append(self, log: str, record: dict[str, Any]) -> None:
        """Append one JSON record to a log (``hook-calls``, ``checkpoints``, ``violations``)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / f"{log}.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(record, sort_keys=True) + "\n")

    def records(self, log: str) -> list[dict[str, Any]]:
        """Every record of a log, oldest first."""
        try:
            text = (self.root / f"{log}.jsonl").read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        return [json.loads(line) for line in text.splitlines() if line.strip()]
