"""Checkpoints kept in git as Entire CLI v0.10.3 keeps them by default (the ``git-refs`` backend).

One ref per checkpoint, ``refs/entire/checkpoints/<last 2 characters of the id>/<id>``, naming a
commit whose tree holds ``metadata.json`` and, per session ``n``, ``n/metadata.json``, ``n/full.jsonl``,
``n/transcript.jsonl``, ``n/prompt.txt`` and ``n/content_hash.txt``. Stored this way, what the
simulator kept is read back with the same git commands as what the host kept (``tests/host``).
"""

from __future__ import annotations

import os
import subprocess

PREFIX = "refs/entire/checkpoints/"
IDENTITY = {"GIT_AUTHOR_NAME": "entire-sim", "GIT_AUTHOR_EMAIL": "entire-sim@localhost",
            "GIT_COMMITTER_NAME": "entire-sim", "GIT_COMMITTER_EMAIL": "entire-sim@localhost"}  # fmt: skip
"""The checkpoint commits' author: git needs one, and the user's identity may not be configured."""


def ref_of(checkpoint_id: str) -> str:
    """The ref that holds checkpoint ``checkpoint_id``."""
    return f"{PREFIX}{checkpoint_id[-2:]}/{checkpoint_id}"


def _git(repo: str, *args: str, stdin: bytes = b"") -> bytes:
    done = subprocess.run(["git", *args], cwd=repo, input=stdin, capture_output=True, check=True,
                          env={**os.environ, **IDENTITY})  # fmt: skip
    return done.stdout


def _tree(repo: str, files: dict[str, bytes]) -> str:
    """A tree object holding ``files`` (a ``/`` in a name makes a subtree); its id."""
    entries: list[str] = []
    subtrees: dict[str, dict[str, bytes]] = {}
    for name, data in sorted(files.items()):
        directory, slash, rest = name.partition("/")
        if slash:
            subtrees.setdefault(directory, {})[rest] = data
            continue
        blob = _git(repo, "hash-object", "-w", "--stdin", stdin=data).decode().strip()
        entries.append(f"100644 blob {blob}\t{name}")
    entries += [f"040000 tree {_tree(repo, sub)}\t{name}" for name, sub in subtrees.items()]
    return _git(repo, "mktree", stdin="".join(e + "\n" for e in entries).encode()).decode().strip()


def write(repo: str, checkpoint_id: str, files: dict[str, bytes]) -> str:
    """Store ``files`` (paths inside the checkpoint) as checkpoint ``checkpoint_id``; its ref."""
    tree = _tree(repo, files)
    commit = _git(repo, "commit-tree", tree, "-m", f"Checkpoint: {checkpoint_id}").decode().strip()
    ref = ref_of(checkpoint_id)
    _git(repo, "update-ref", ref, commit)
    return ref


def files(repo: str, checkpoint_id: str) -> dict[str, bytes]:
    """Every file of checkpoint ``checkpoint_id`` (paths inside it), to be changed and written again."""
    names = _git(repo, "ls-tree", "-r", "-z", "--name-only", ref_of(checkpoint_id)).decode().split("\0")
    return {name: _git(repo, "show", f"{ref_of(checkpoint_id)}:{name}") for name in names if name}


def read(repo: str, checkpoint_id: str, path: str) -> bytes | None:
    """The bytes of ``path`` in checkpoint ``checkpoint_id``, or None where it holds no such file."""
    done = subprocess.run(["git", "show", f"{ref_of(checkpoint_id)}:{path}"], cwd=repo, capture_output=True,
                          check=False)  # fmt: skip
    return done.stdout if done.returncode == 0 else None
