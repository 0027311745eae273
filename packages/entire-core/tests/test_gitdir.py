"""The git common directory found by git's own rules, held against ``git rev-parse`` where git makes the layout."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from entire_core import gitdir
from entire_core.testing.pytest_plugin import init_repository

GIT_ENV = {"PATH": os.environ["PATH"], "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}


def git_common_dir(cwd: Path) -> str:
    """What git itself answers (``--path-format=absolute``, git 2.31 and later)."""
    out = subprocess.run(["git", "rev-parse", "--path-format=absolute", "--git-common-dir"], cwd=cwd,
                         env=GIT_ENV, check=True, capture_output=True, text=True)  # fmt: skip
    return out.stdout.strip()


def a_git_dir(path: Path) -> Path:
    """A directory git takes for a git directory: it holds ``HEAD``."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "HEAD").write_text("ref: refs/heads/main\n")
    return path


def test_a_repository_and_its_subdirectories_have_its_git_directory(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    init_repository(repo)
    (repo / "a" / "b").mkdir(parents=True)
    for start in (repo, repo / "a", repo / "a" / "b"):
        assert gitdir.common_dir(str(start)) == str(repo / ".git") == git_common_dir(start)
    assert gitdir.common_dir(str(tmp_path)) is None


def test_a_linked_worktree_has_the_common_directory_of_its_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    init_repository(repo)
    subprocess.run(["git", "worktree", "add", "-q", str(tmp_path / "wt")], cwd=repo, env=GIT_ENV, check=True)
    (tmp_path / "wt" / "sub").mkdir()
    for start in (tmp_path / "wt", tmp_path / "wt" / "sub"):
        assert gitdir.common_dir(str(start)) == str(repo / ".git") == git_common_dir(start)


def test_a_gitfile_names_its_git_directory_relative_to_its_own_directory(tmp_path: Path) -> None:
    # A submodule's: ``gitdir: ../.git/modules/sub``, a git directory of its own (no commondir).
    modules = a_git_dir(tmp_path / "super" / ".git" / "modules" / "sub")
    sub = tmp_path / "super" / "sub"
    (sub / "deep").mkdir(parents=True)
    (sub / ".git").write_text("gitdir: ../.git/modules/sub\n")
    assert gitdir.common_dir(str(sub)) == str(modules)
    assert gitdir.common_dir(str(sub / "deep")) == str(modules)  # relative to the file, not to the start


def test_a_gitfile_may_name_its_git_directory_by_an_absolute_path(tmp_path: Path) -> None:
    target = a_git_dir(tmp_path / "elsewhere" / "git")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / ".git").write_bytes(b"gitdir: " + bytes(target) + b"\r\n")  # git trims CR and LF
    assert gitdir.common_dir(str(tmp_path / "work")) == str(target)


def test_commondir_is_relative_to_the_git_directory_or_absolute(tmp_path: Path) -> None:
    common = a_git_dir(tmp_path / "repo" / ".git")
    linked = a_git_dir(common / "worktrees" / "wt")
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text(f"gitdir: {linked}\n")
    (linked / "commondir").write_text("../..\n")
    assert gitdir.common_dir(str(tmp_path / "wt")) == str(common)
    (linked / "commondir").write_text(str(tmp_path / "shared"))  # absolute, no newline
    assert gitdir.common_dir(str(tmp_path / "wt")) == str(tmp_path / "shared")


def test_what_git_refuses_is_no_repository(tmp_path: Path) -> None:
    outer = a_git_dir(tmp_path / ".git")
    work = tmp_path / "work"
    work.mkdir()
    # A .git directory without HEAD is passed over: the repository above holds the start.
    (work / ".git").mkdir()
    assert gitdir.common_dir(str(work)) == str(outer)
    os.rmdir(work / ".git")
    # A .git file git refuses ends the search (git stops there with an error): no repository.
    a_git_dir(tmp_path / "target")
    for content in (
        b"gitdir:../target\n",
        b"not a gitfile\n",
        b"",
        b"gitdir: ../missing\n",
        b"gitdir: ../work\n",
    ):
        (work / ".git").write_bytes(content)
        assert gitdir.common_dir(str(work)) is None, content
    (work / ".git").write_bytes(b"gitdir: ../target\n")
    assert gitdir.common_dir(str(work)) == str(tmp_path / "target")
    os.chmod(work / ".git", 0)
    try:
        if not os.access(work / ".git", os.R_OK):  # (root reads it anyway)
            assert gitdir.common_dir(str(work)) is None
    finally:
        os.chmod(work / ".git", 0o600)


def test_a_gitfile_that_fails_to_read_is_no_repository(tmp_path: Path) -> None:
    # A file that opens but fails as it is read (root reads a file of mode 0, so this is the read error
    # every user meets): /proc/self/mem at offset 0, an address never mapped, answers EIO.
    if not os.path.isfile("/proc/self/mem"):
        return
    a_git_dir(tmp_path / ".git")  # the repository above: a refused .git file ends the search before it
    work = tmp_path / "work"
    work.mkdir()
    (work / ".git").symlink_to("/proc/self/mem")
    assert gitdir.common_dir(str(work)) is None
