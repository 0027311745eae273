"""Core's one way for scratch state, hook-payload text and repo-relative file lists."""

from __future__ import annotations

import hashlib
import json
import os

import pytest
from entire_core.hookinput import first_text, transcript_ref
from entire_core.offsets import LinePositions
from entire_core.paths import repo_files
from entire_core.scratch import Scratch, path_key, write_hint


def test_scratch_lives_in_the_agents_ignored_tmp_dir_and_round_trips(tmp_path):
    store = Scratch(str(tmp_path), "sample")
    assert store.directory == os.path.join(str(tmp_path), ".entire", "tmp", "entire-agent-sample")
    assert store.load("turn", "k") == {}
    store.save("turn", "k", {"turn_id": "t1", "n": 2})
    assert store.load("turn", "k") == {"turn_id": "t1", "n": 2}
    assert os.path.dirname(store.file("turn", "k")) == store.directory
    store.remove("turn", "k")
    assert store.load("turn", "k") == {}
    store.remove("turn", "k")  # forgetting twice is fine


def test_a_scratch_area_that_cannot_be_written_costs_hints_never_the_call(tmp_path):
    """Core decides once: hints are written best effort, only durable state fails when it cannot be written."""
    blocked = tmp_path / ".entire" / "tmp"  # a file where the scratch directory should be
    blocked.parent.mkdir()
    blocked.write_text("not a directory")
    store = Scratch(str(tmp_path), "sample")
    assert store.save("hint", "k", {"a": 1}) is False
    assert store.load("hint", "k") == {}
    store.remove("hint", "k")  # NotADirectoryError, not only "nothing there": still no error
    with pytest.raises(OSError):
        store.save("queue", "k", {"a": 1}, durable=True)
    assert write_hint(str(blocked / "x.json"), b"{}") is False
    chat = tmp_path / "chat.jsonl"
    chat.write_bytes(b"a\nb\n")
    positions = LinePositions(str(blocked / "positions.json"))
    positions.remember(str(chat), 2, 4)  # a cache that cannot be kept: a slower read later, no error
    assert positions.byte_of(str(chat), 2) is None
    blocked.unlink()
    assert store.save("hint", "k", {"a": 1}) is True
    assert store.load("hint", "k") == {"a": 1}
    store.remove("hint", "k")
    assert store.load("hint", "k") == {}
    assert store.save("queue", "k", {"b": 2}, durable=True) is True
    assert store.load("queue", "k") == {"b": 2}


def test_scratch_keys_are_hashed_to_safe_distinct_names(tmp_path):
    store = Scratch(str(tmp_path), "sample")
    hostile = "../../etc/passwd"
    name = os.path.basename(store.file("state", hostile))
    assert name.startswith("state-") and name.endswith(".json") and "/" not in name and ".." not in name
    assert store.file("state", "a") != store.file("state", "b")
    assert store.file("state", "a") != store.file("other", "a")
    assert store.file("state", "a") == Scratch(str(tmp_path), "sample").file("state", "a")


def test_scratch_names_and_contents_are_those_of_earlier_versions(tmp_path):
    # State written before stays readable: same hashed file name, same compact JSON.
    store = Scratch(str(tmp_path), "sample")
    digest = hashlib.sha256(b"/some/history.md").hexdigest()[:24]
    assert store.file("state", "/some/history.md") == os.path.join(store.directory, f"state-{digest}.json")
    value = {"v": 1, "path": "/caf\u00e9/\udcff", "queue": [{"n": 2, "ok": True, "none": None}]}
    store.save("state", "k", value)
    with open(store.file("state", "k"), "rb") as f:
        assert json.loads(f.read()) == value
    with open(store.file("state", "k"), "w") as f:
        f.write(json.dumps(value, separators=(",", ":")))
    assert store.load("state", "k") == value


def test_scratch_state_may_hold_floats(tmp_path):
    store = Scratch(str(tmp_path), "sample")
    store.save("turn", "k", {"ratio": 0.5, "n": 1})
    assert store.load("turn", "k") == {"ratio": 0.5, "n": 1}


def test_damaged_scratch_state_reads_as_empty(tmp_path):
    store = Scratch(str(tmp_path), "sample")
    store.save("turn", "k", {"a": 1})
    with open(store.file("turn", "k"), "w") as f:
        f.write("{not json")
    assert store.load("turn", "k") == {}
    with open(store.file("turn", "k"), "w") as f:
        f.write("[1, 2]")
    assert store.load("turn", "k") == {}


def test_path_key_is_one_key_for_one_file_reached_through_a_link(tmp_path):
    target = tmp_path / "rollout.jsonl"
    target.write_text("")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert path_key(str(link)) == path_key(str(target))
    assert path_key(str(tmp_path / "x" / ".." / "rollout.jsonl")) == path_key(str(target))


def test_first_text_skips_missing_empty_and_non_string_values():
    payload = {"a": "", "b": None, "c": 3, "d": "yes", "e": "later"}
    assert first_text(payload, "a", "b", "c", "d", "e") == "yes"
    assert first_text(payload, "missing", "a") == ""
    assert first_text({}, "a") == ""


def test_transcript_ref_prefers_the_agents_key_over_the_protocols():
    assert transcript_ref({"transcript_path": "/t/a.jsonl", "session_ref": "/t/b"}) == "/t/a.jsonl"
    assert transcript_ref({"transcript_path": None, "session_ref": "/t/b"}) == "/t/b"
    assert transcript_ref({"transcript_path": ""}) == ""


def test_repo_files_are_relative_deduplicated_and_in_order(tmp_path):
    root = str(tmp_path)
    files = [os.path.join(root, "src", "a.py"), "src/a.py", "", os.path.join(root, "b.py"), "/elsewhere/c.py"]
    assert repo_files(files, root) == ["src/a.py", "b.py", "/elsewhere/c.py"]
    assert repo_files(["a.py", "./a.py"], root, cwd=os.path.join(root, "sub")) == ["sub/a.py"]


def test_durable_state_that_cannot_be_read_fails_the_call_instead_of_reading_as_empty(tmp_path):
    # A folder where the file is stands for any file that is there but cannot be read (mode 000 as
    # another user, an I/O error): the same OSError, and root reads it too.
    scratch = Scratch(str(tmp_path), "demo")
    os.makedirs(scratch.file("session", "s1"))
    assert scratch.load("session", "s1") == {}  # a hint: a later call can do without it
    with pytest.raises(IsADirectoryError):  # more than a hint: no empty state may be saved over it
        scratch.load("session", "s1", durable=True)
    os.rmdir(scratch.file("session", "s1"))
    scratch.save("session", "s1", {"queue": [{"n": 1}]}, durable=True)
    assert scratch.load("session", "s1", durable=True) == {"queue": [{"n": 1}]}
    assert scratch.load("session", "missing", durable=True) == {}


def test_states_are_the_areas_state_files_of_every_kind(tmp_path):
    scratch = Scratch(str(tmp_path), "demo")
    assert scratch.states() == []
    scratch.save("session", "s1", {})
    scratch.save("state", "/some/history.md", {})
    for name in ("journal-s1.jsonl", "restored.md", "state-0123abcd.json", "x-" + "g" * 24 + ".json"):
        with open(scratch.path(name), "w") as f:
            f.write("{}")
    assert scratch.states() == sorted(
        [scratch.file("session", "s1"), scratch.file("state", "/some/history.md")]
    )
