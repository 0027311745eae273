"""Paths as the Entire CLI and the agents see them: repo-relative file paths, the user's home."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping


def home_dir(env: Mapping[str, str]) -> str:
    """The user's home directory as ``env`` gives it, the way the agents and the Entire CLI find it.

    On Windows, Go (``os.UserHomeDir``), Node (``os.homedir``) and Rust (``dirs::home_dir``) go by
    ``USERPROFILE`` and ignore ``HOME``, which Git Bash and MSYS set, sometimes to another directory;
    elsewhere ``HOME`` comes first.
    """
    names = ("USERPROFILE", "HOME") if sys.platform == "win32" else ("HOME", "USERPROFILE")
    return next((env[name] for name in names if env.get(name)), "") or os.path.expanduser("~")


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


def repo_files(files: Iterable[str], repo_root: str, *, cwd: str = "") -> list[str]:
    """``files`` made repo-relative (``repo_relative``), without empties and duplicates, in first-seen order.

    What every ``extract-modified-files`` answers: the CLI compares these strings, so one file named
    twice (absolute and relative, or through a link) must appear once.
    """
    relative = (repo_relative(f, repo_root, cwd=cwd) for f in files if f)
    return list(dict.fromkeys(r for r in relative if r))


def xdg_home(env: Mapping[str, str], variable: str, *fallback: str) -> str:
    """``$<variable>`` when absolute, else ``%LOCALAPPDATA%`` on Windows, else ``~/<fallback...>``.

    Where our per-user files go (``XDG_DATA_HOME``: install records; ``XDG_STATE_HOME``: views), so
    that nothing of ours shows up in a repository's ``git status``.
    """
    base = env.get(variable, "")
    if not base or not os.path.isabs(base):
        base = env.get("LOCALAPPDATA", "") if sys.platform == "win32" else ""
    if not base or not os.path.isabs(base):
        base = os.path.join(home_dir(env), *fallback)
    return base


def state_dir(env: Mapping[str, str], agent_name: str) -> str:
    """The plugin's state directory: ``$XDG_STATE_HOME/entire-agent-<name>`` (``%LOCALAPPDATA%`` on Windows).

    What a plugin keeps for itself between calls outside any repository (views, locks) lives here.
    """
    return os.path.join(xdg_home(env, "XDG_STATE_HOME", ".local", "state"), f"entire-agent-{agent_name}")
