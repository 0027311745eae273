"""Paths from transcripts, made what the Entire CLI expects: repo-relative with ``/`` separators."""

from __future__ import annotations

import os


def repo_relative(path: str, repo_root: str, *, cwd: str = "") -> str:
    """``path`` relative to ``repo_root`` when it lies inside it, else ``path`` unchanged.

    A relative ``path`` is taken relative to ``cwd`` (the agent's working directory, when the
    transcript records one) before it is compared. Both the given and the resolved form of the root
    are tried, so ``/var/...`` and ``/private/var/...`` (macOS) match alike. Paths outside the
    repository are returned as they are: the CLI drops them itself.
    """
    if not path:
        return path
    if not os.path.isabs(path):
        if not cwd:
            return os.path.normpath(path).replace(os.sep, "/")
        path = os.path.join(cwd, path)
    path = os.path.normpath(path)
    if not repo_root:
        return path
    roots = dict.fromkeys((os.path.normpath(repo_root), os.path.realpath(repo_root)))
    for candidate in (path, os.path.realpath(path)):  # the file may be reached through a link
        for root in roots:
            try:
                if os.path.commonpath([root, candidate]) == root and candidate != root:
                    return os.path.relpath(candidate, root).replace(os.sep, "/")
            except ValueError:  # another drive on Windows
                continue
    return path
