"""Where a repository's git directories are, found by git's own rules without running git.

Git looks for ``.git`` from a directory upwards. A ``.git`` directory holding ``HEAD`` is the git
directory (one without is passed over). A ``.git`` file (a linked worktree, a submodule) holds
``gitdir: <path>``, relative to the file's own directory, naming a directory that holds ``HEAD``; git
refuses any other content there. A git directory with a ``commondir`` file (a linked worktree's) shares
the repository's common directory, which that file names relative to the git directory. The Entire CLI
keeps its session state there (``entire-sessions``), and the doctor looks for it there.
"""

from __future__ import annotations

import os

_PREFIX = b"gitdir: "


def common_dir(start: str) -> str | None:
    """The git common directory of the repository holding ``start``; None outside every repository
    (or where git would refuse the ``.git`` file it finds)."""
    here = os.path.abspath(start)
    while True:
        dot_git = os.path.join(here, ".git")
        if _is_git_dir(dot_git):
            return dot_git
        if os.path.isfile(dot_git):
            gitdir = _pointed_to(dot_git)
            return None if gitdir is None else _common_of(gitdir)
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _pointed_to(gitfile: str) -> str | None:
    """The git directory a ``.git`` file names, when it names one."""
    text = _read(gitfile)
    if text is None or not text.startswith(_PREFIX):
        return None
    path = os.fsdecode(text[len(_PREFIX) :])
    gitdir = os.path.normpath(os.path.join(os.path.dirname(gitfile), path))
    return gitdir if _is_git_dir(gitdir) else None


def _is_git_dir(path: str) -> bool:
    """What git checks first of a git directory: it holds ``HEAD``."""
    return os.path.exists(os.path.join(path, "HEAD"))


def _common_of(gitdir: str) -> str:
    """The common directory of ``gitdir``: the one its ``commondir`` file names, else itself."""
    text = _read(os.path.join(gitdir, "commondir"))
    if not text:
        return gitdir
    return os.path.normpath(os.path.join(gitdir, os.fsdecode(text)))


def _read(path: str) -> bytes | None:
    """A small file's bytes without the line ends that close it (git's own trim); None when unreadable."""
    try:
        with open(path, "rb") as f:
            return f.read().rstrip(b"\r\n")
    except OSError:
        return None
