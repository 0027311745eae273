"""Repo-relative paths, and the memory of what an install created."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from entire_core import installs
from entire_core.paths import repo_relative


def test_repo_relative(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert repo_relative(str(repo / "src" / "a.py"), str(repo)) == "src/a.py"
    assert repo_relative(str(repo / "src" / "a.py"), str(link)) == "src/a.py"  # the resolved root matches
    assert repo_relative("src/./b.py", str(repo)) == "src/b.py"
    assert repo_relative("b.py", str(repo), cwd=str(repo / "src")) == "src/b.py"
    assert repo_relative("/elsewhere/c.py", str(repo)) == "/elsewhere/c.py"
    assert repo_relative(str(repo), str(repo)) == str(repo)
    assert repo_relative("", str(repo)) == ""


def test_install_records(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    target = str(tmp_path / "repo" / ".x" / "hooks.json")
    assert installs.recall(env, "x", target) == {}
    installs.remember(env, "x", target, created_file=True)
    installs.remember(env, "x", target, created_file=True, created_dir=True)  # the caller merges
    assert installs.recall(env, "x", target) == {"created_file": True, "created_dir": True}
    assert installs.recall(env, "y", target) == {}
    installs.forget(env, "x", target)
    assert installs.recall(env, "x", target) == {}
    assert not (tmp_path / "data" / "entire-agent-x" / "installs.json").exists()
    installs.forget(env, "x", target)  # forgetting twice is fine
    installs.forget(env, "y", target)  # nothing ever recorded: nothing to do, and nothing written
    assert not (tmp_path / "data" / "entire-agent-y").exists()
    relative_home = {"XDG_DATA_HOME": "relative", "HOME": str(tmp_path / "home")}
    installs.remember(relative_home, "x", target, created_file=True)
    assert (tmp_path / "home" / ".local/share/entire-agent-x/installs.json").exists()


def test_a_record_is_trusted_only_while_the_file_is_what_we_wrote(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    target = tmp_path / "repo" / ".x" / "hooks.json"
    target.parent.mkdir(parents=True)
    target.write_bytes(b'{"hooks": {}}\n')
    installs.remember(env, "x", str(target), created_file=True)
    assert installs.recall(env, "x", str(target)) == {"created_file": True}
    target.write_bytes(b"{}")  # the user's own file now
    assert installs.recall(env, "x", str(target)) == {}
    target.write_bytes(b'{"hooks": {}}\n')  # the same bytes again: the record holds again
    assert installs.recall(env, "x", str(target)) == {"created_file": True}
    target.unlink()
    assert installs.recall(env, "x", str(target)) == {}
    assert installs.fingerprint(str(target)) == ""


def test_a_record_made_before_its_write_is_trusted_once_the_write_is_done(tmp_path: Path) -> None:
    """``remember(written=...)`` before the write: killed before it, the earlier record still holds; killed
    after it, the new one does; the record made after the write replaces both."""
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    target = tmp_path / "repo" / ".x" / "hooks.json"
    target.parent.mkdir(parents=True)
    target.write_bytes(b'{"hooks": {}}\n')
    installs.remember(env, "x", str(target), created_file=True)
    new = b'{"hooks": {"Stop": []}}\n'
    installs.remember(env, "x", str(target), written=new, created_file=True, created_hooks=True)
    assert installs.recall(env, "x", str(target)) == {"created_file": True}  # not written yet
    target.write_bytes(new)
    assert installs.recall(env, "x", str(target)) == {"created_file": True, "created_hooks": True}
    target.write_bytes(b"{}")  # neither
    assert installs.recall(env, "x", str(target)) == {}
    target.write_bytes(new)
    installs.remember(env, "x", str(target), created_file=True)  # after the write: one record again
    target.write_bytes(b'{"hooks": {}}\n')
    assert installs.recall(env, "x", str(target)) == {}
    fresh = tmp_path / "repo" / ".y.json"  # no record before: only the write's
    installs.remember(env, "x", str(fresh), written=b"{}", original="", created_file=False)
    assert installs.recall_original(env, "x", str(fresh)) is None
    fresh.write_bytes(b"{}")
    assert installs.recall_original(env, "x", str(fresh)) == ""


def test_repo_relative_follows_a_link_to_the_file(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert repo_relative(str(link / "src" / "b.txt"), str(repo)) == "src/b.txt"


def test_forgetting_while_another_uninstall_removes_the_last_record(tmp_path: Path) -> None:
    # Two uninstalls at once: one takes out the last record, and with it the records file, while the
    # other waits for the file's lock to forget a path that was never recorded. The second must not fail.
    from entire_core.config._lock import locked

    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    installs.remember(env, "x", str(tmp_path / "a" / "hooks.json"), created_file=True)
    records = tmp_path / "data" / "entire-agent-x" / "installs.json"
    failures: list[Exception] = []

    def forget_the_other() -> None:
        try:
            installs.forget(env, "x", str(tmp_path / "b" / "hooks.json"))
        except Exception as exc:  # reported by the assertion below
            failures.append(exc)

    with locked(records):
        other = threading.Thread(target=forget_the_other)
        other.start()
        time.sleep(0.2)  # it is waiting for the lock now
        records.unlink()
    other.join(timeout=30)
    assert failures == []
    assert not records.exists()


def test_a_blank_original_is_recalled_until_replaced_and_the_folder_goes_with_the_last_record(
    tmp_path: Path,
) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    target = tmp_path / "repo" / ".x" / "hooks.json"
    target.parent.mkdir(parents=True)
    target.write_bytes(b'{"hooks": {}}\n')
    installs.remember(env, "x", str(target), original="\n", created_file=False)
    assert installs.recall_original(env, "x", str(target)) == "\n"
    installs.remember(env, "x", str(target), created_file=True)  # no original given: none recorded
    assert installs.recall_original(env, "x", str(target)) is None
    folder = tmp_path / "data" / "entire-agent-x"
    installs.forget(env, "x", str(target))
    assert not folder.exists()  # nothing of ours is left after the last uninstall
    installs.remember(env, "x", str(target), created_file=True)
    (folder / "notes").write_text("someone else's")
    installs.forget(env, "x", str(target))
    assert sorted(p.name for p in folder.iterdir()) == ["notes"]  # a folder that holds more stays


def test_keys_the_agent_writes_itself_do_not_make_a_record_stale(tmp_path: Path) -> None:
    # Qwen Code adds "$version" to its settings whenever it loads them
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    target = tmp_path / "settings.json"
    target.write_text('// mine\n{\n  "hooks": {"Stop": []}\n}\n')
    installs.remember(env, "x", str(target), ignore=("$version",), created_hooks=True)
    target.write_text('// mine\n{\n  "hooks": {"Stop": []},\n  "$version": 4\n}\n')
    assert installs.recall(env, "x", str(target), ("$version",)) == {"created_hooks": True}
    assert installs.recall(env, "x", str(target)) == {}  # without ignore, any byte counts
    target.write_text('// mine\n{\n  "hooks": {"Stop": []},\n  "$version": 5\n}\n')
    assert installs.recall(env, "x", str(target), ("$version",)) == {"created_hooks": True}
    target.write_text('{\n  "hooks": {\n    "Stop": []\n  },\n  "$version": 3\n}')  # 0.15: all written anew
    assert installs.recall(env, "x", str(target), ("$version",)) == {"created_hooks": True}
    target.write_text('// mine\n{\n  "hooks": {"Stop": []},\n  "ui": 1,\n  "$version": 4\n}\n')
    assert installs.recall(env, "x", str(target), ("$version",)) == {}  # the user's edit still counts
    target.write_text("{ not json")
    assert installs.fingerprint(str(target), ("$version",)) == installs.fingerprint(str(target))
