"""The TOML editor: tomlkit round-trips, plus our fixes for line breaks and left-over blank lines."""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path
from typing import Any

import pytest
import tomlkit
from entire_core.config.toml import edit_toml, parse_toml_text
from entire_core.errors import ConfigError
from hypothesis import given, settings
from hypothesis import strategies as st

DATA = Path(__file__).parent / "data"
FIXTURE = (DATA / "codex_config.toml").read_text()
STATE_KEY = "/x/y:stop:0:0"
HASH = "sha256:" + "ab" * 32


def add_trust(doc: Any, key: str = STATE_KEY, trusted_hash: str = HASH) -> None:
    hooks = doc.data.setdefault("hooks", tomlkit.table(is_super_table=True))
    state = hooks.setdefault("state", tomlkit.table(is_super_table=True))
    entry = tomlkit.table()
    entry["trusted_hash"] = trusted_hash
    state[key] = entry


def remove_trust(doc: Any, key: str = STATE_KEY) -> None:
    state = doc.data["hooks"]["state"]
    del state[key]
    if not state:
        del doc.data["hooks"]["state"]
    if not doc.data["hooks"]:
        del doc.data["hooks"]


def without_hooks(text: str) -> str:
    return text.split("\n# Hooks Codex already trusts.")[0]


def hooks_in_the_middle(text: str) -> str:
    head, hooks = text.split("\n# Hooks Codex already trusts.\n")
    before, servers = head.split("[mcp_servers.docs]\n")
    return before + hooks + "\n[mcp_servers.docs]\n" + servers


VARIANTS = {
    "hooks at the end": FIXTURE,
    "hooks in the middle": hooks_in_the_middle(FIXTURE),
    "no hooks yet": without_hooks(FIXTURE),
    "no hooks, comment last": without_hooks(FIXTURE) + "# last words\n",
    "crlf": FIXTURE.replace("\n", "\r\n"),
    "crlf, no hooks yet": without_hooks(FIXTURE).replace("\n", "\r\n"),
}


@pytest.mark.parametrize("original", VARIANTS.values(), ids=VARIANTS.keys())
@pytest.mark.parametrize("bom", [False, True])
def test_adding_a_trusted_hash_changes_nothing_else_and_removing_it_restores_the_bytes(
    tmp_path: Path, original: str, bom: bool
) -> None:
    path = tmp_path / "config.toml"
    raw = original.encode()
    path.write_bytes(b"\xef\xbb\xbf" + raw if bom else raw)
    with edit_toml(path) as doc:
        add_trust(doc)
    added = path.read_bytes()
    assert added.startswith(b"\xef\xbb\xbf") == bom
    text = added.decode().removeprefix("\ufeff")
    assert tomllib.loads(text)["hooks"]["state"][STATE_KEY] == {"trusted_hash": HASH}
    removed_lines = [
        line
        for line in difflib.ndiff(original.splitlines(True), text.splitlines(True))
        if line.startswith("- ")
    ]
    assert removed_lines == []
    if "\r\n" in original:
        assert "\n" not in text.replace("\r\n", "")

    with edit_toml(path) as doc:
        remove_trust(doc)
    assert path.read_bytes() == (b"\xef\xbb\xbf" + raw if bom else raw)


keys = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1, max_size=12)


@settings(max_examples=50, deadline=None)
@given(
    entries=st.lists(st.tuples(keys, st.text(max_size=20)), min_size=1, max_size=3, unique_by=lambda e: e[0])
)
def test_trust_entries_round_trip_for_any_key(entries: list[tuple[str, str]]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "config.toml"
        path.write_text(FIXTURE)
        with edit_toml(path) as doc:
            for key, value in entries:
                add_trust(doc, key, value)
        state = tomllib.loads(path.read_text())["hooks"]["state"]
        assert all(state[key] == {"trusted_hash": value} for key, value in entries)
        with edit_toml(path) as doc:
            for key, _ in entries:
                remove_trust(doc, key)
        assert path.read_text() == FIXTURE


def test_known_limitation_a_blank_line_ending_the_file_is_not_restored(tmp_path: Path) -> None:
    # tomlkit writes "a = 1\n\n[t]..." both for "a = 1\n" and for "a = 1\n\n"; we restore the common one.
    path = tmp_path / "config.toml"
    path.write_text("a = 1\n\n")
    with edit_toml(path) as doc:
        add_trust(doc)
    with edit_toml(path) as doc:
        remove_trust(doc)
    assert path.read_text() == "a = 1\n"


def test_new_file(tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "config.toml"
    with edit_toml(path) as doc:
        assert not doc.existed
        doc.data["features"] = {"codex_hooks": True}
    assert path.read_text() == "[features]\ncodex_hooks = true\n"


def test_setting_an_existing_value_to_itself_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(FIXTURE)
    mtime = path.stat().st_mtime_ns
    with edit_toml(path) as doc:
        doc.data["features"]["web_search"] = True
    assert path.stat().st_mtime_ns == mtime


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('model = "o3"\nmodel = "o4"\n', "line 2"),
        ("[features]\nweb_search = \n", "line 2"),
        ('a = 1\nb = "unterminated\n', "line 2"),
    ],
)
def test_parse_error_names_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=rf"^cannot parse .*config\.toml: .*{message}"), edit_toml(path):
        pass  # pragma: no cover
    assert path.read_text() == text


def test_a_value_that_does_not_read_back_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("a = 1\n")
    with pytest.raises(ConfigError, match="does not read back"), edit_toml(path) as doc:
        doc.data["b"] = float("nan")  # nan != nan: we cannot prove the file says what was meant
    assert path.read_text() == "a = 1\n"


def test_parse_toml_text() -> None:
    assert parse_toml_text('\ufeffa = 1\n[b]\nc = "d"\n') == {"a": 1, "b": {"c": "d"}}
    with pytest.raises(ConfigError, match="line 1"):
        parse_toml_text("a = \n")
