"""Round-trip properties of the JSON editor on real-looking fixture files.

The key invariant: adding members/elements and later removing exactly them gives back the original
bytes, and the addition itself only inserts text (so every comment and byte of the original survives).
"""

from __future__ import annotations

import copy
import json
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from entire_core.config.json import edit_json, parse_json_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

DATA = Path(__file__).parent / "data"
FIXTURES = [
    ("comments.jsonc", True),
    ("tabs.json", False),
    ("crlf.json", False),
    ("bom.json", False),
    ("unicode.json", False),
    ("compact.json", False),
    ("codex_hooks.json", False),
    ("gemini_settings.json", True),
]

Path_ = tuple[str | int, ...]

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def containers(value: Any, path: Path_ = ()) -> Iterator[Path_]:
    """Paths of every object and array inside ``value``, itself included."""
    if isinstance(value, dict):
        yield path
        for key, child in value.items():
            yield from containers(child, (*path, key))
    elif isinstance(value, list):
        yield path
        for index, child in enumerate(value):
            yield from containers(child, (*path, index))


def at(value: Any, path: Path_) -> Any:
    for step in path:
        value = value[step]
    return value


def canonical(value: Any) -> str:
    """Order- and type-sensitive text for comparing data (1, 1.0 and true differ)."""
    return json.dumps(value)


def comments_of(text: str) -> list[str]:
    tokens = re.findall(r'"(?:[^"\\]|\\.)*"|//[^\r\n]*|/\*.*?\*/', text, re.S)
    return [token for token in tokens if token.startswith("/")]


def is_subsequence(small: str, big: str) -> bool:
    rest = iter(big)
    return all(char in rest for char in small)


@st.composite
def additions(draw: st.DrawFn, data: Any) -> list[tuple[Path_, str | None, Any]]:
    """New keys in existing objects and new elements at the end of existing arrays."""
    paths = list(containers(data))
    chosen: list[tuple[Path_, str | None, Any]] = []
    for _ in range(draw(st.integers(1, 4))):
        path = draw(st.sampled_from(paths))
        target = at(data, path)
        if isinstance(target, dict):
            taken = set(target) | {key for p, key, _ in chosen if p == path}
            key = draw(st.text(max_size=6).filter(lambda k, taken=taken: k not in taken))
        else:
            key = None
        chosen.append((path, key, draw(json_values)))
    return chosen


def apply(data: Any, changes: list[tuple[Path_, str | None, Any]]) -> None:
    for path, key, value in changes:
        target = at(data, path)
        if key is None:
            target.append(copy.deepcopy(value))
        else:
            target[key] = copy.deepcopy(value)


def undo(data: Any, changes: list[tuple[Path_, str | None, Any]]) -> None:
    for path, key, _ in reversed(changes):
        target = at(data, path)
        if key is None:
            target.pop()
        else:
            del target[key]


def test_fixtures_are_byte_exact() -> None:
    assert b"\r\n" in (DATA / "crlf.json").read_bytes()
    assert (DATA / "bom.json").read_bytes().startswith(b"\xef\xbb\xbf")
    assert not (DATA / "compact.json").read_bytes().endswith(b"\n")
    assert b"\t" in (DATA / "tabs.json").read_bytes()


@pytest.mark.parametrize(("name", "comments"), FIXTURES)
@SETTINGS
@given(data=st.data())
def test_add_then_remove_gives_back_the_original_bytes(
    name: str, comments: bool, data: st.DataObject
) -> None:
    original = (DATA / name).read_bytes()
    original_text = original.decode("utf-8").removeprefix("\ufeff")
    changes = data.draw(additions(parse_json_text(original_text, comments=comments)))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(original)
        with edit_json(path, comments=comments) as doc:
            apply(doc.data, changes)
            intended = copy.deepcopy(doc.data)
        added = path.read_bytes()
        added_text = added.decode("utf-8")
        assert canonical(parse_json_text(added_text, comments=comments)) == canonical(intended)
        assert is_subsequence(original_text, added_text)
        for comment in comments_of(original_text):
            assert comment in added_text
        assert added.startswith(b"\xef\xbb\xbf") == original.startswith(b"\xef\xbb\xbf")
        assert added.endswith(b"\n") == original.endswith(b"\n")
        if b"\r\n" in original:
            assert b"\n" not in added.replace(b"\r\n", b"")

        with edit_json(path, comments=comments) as doc:
            undo(doc.data, changes)
        assert path.read_bytes() == original


@st.composite
def mutations(draw: st.DrawFn, data: Any) -> Any:
    """``data`` after a few arbitrary edits: deletions, replacements, insertions anywhere."""
    data = copy.deepcopy(data)
    for _ in range(draw(st.integers(1, 5))):
        target = at(data, draw(st.sampled_from(list(containers(data)))))
        if isinstance(target, dict):
            keys = list(target)
            action = draw(st.sampled_from(["add", "delete", "replace"] if keys else ["add"]))
            if action == "add":
                target[draw(st.text(max_size=6))] = draw(json_values)
            elif action == "delete":
                del target[draw(st.sampled_from(keys))]
            else:
                target[draw(st.sampled_from(keys))] = draw(json_values)
        else:
            action = draw(st.sampled_from(["insert", "delete", "replace"] if target else ["insert"]))
            if action == "insert":
                target.insert(draw(st.integers(0, len(target))), draw(json_values))
            elif action == "delete":
                del target[draw(st.integers(0, len(target) - 1))]
            else:
                target[draw(st.integers(0, len(target) - 1))] = draw(json_values)
    return data


def sorted_canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


@pytest.mark.parametrize(("name", "comments"), FIXTURES)
@SETTINGS
@given(data=st.data())
def test_any_edit_reads_back_as_the_intended_data(name: str, comments: bool, data: st.DataObject) -> None:
    original = (DATA / name).read_bytes()
    original_text = original.decode("utf-8").removeprefix("\ufeff")
    intended = data.draw(mutations(parse_json_text(original_text, comments=comments)))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(original)
        with edit_json(path, comments=comments) as doc:
            doc.data = copy.deepcopy(intended)
        written = path.read_bytes().decode("utf-8").removeprefix("\ufeff")
    assert sorted_canonical(parse_json_text(written, comments=comments)) == sorted_canonical(intended)
    # Comments outside what was edited survive: at least the ones before the first changed byte.
    unchanged_prefix = next(
        (i for i, (a, b) in enumerate(zip(original_text, written, strict=False)) if a != b), None
    )
    prefix = original_text[:unchanged_prefix]
    for comment in comments_of(prefix):
        assert comment in written


OUR_CODEX_GROUP = {"hooks": [{"type": "command", "command": "entire-agent-codex hook stop"}]}


def test_codex_install_and_uninstall_keep_foreign_hooks(data_file: Callable[[str], Path]) -> None:
    path = data_file("codex_hooks.json")
    original = path.read_bytes()
    with edit_json(path) as doc:
        doc.data["hooks"]["Stop"].append(OUR_CODEX_GROUP)
        doc.data["hooks"]["UserPromptSubmit"] = [OUR_CODEX_GROUP]
    installed = path.read_text()
    assert '"command": "other-tool"' in installed
    assert installed.startswith(original.decode().split("        ]\n      }\n    ]")[0])
    with edit_json(path) as doc:
        doc.data["hooks"]["Stop"].remove(OUR_CODEX_GROUP)
        del doc.data["hooks"]["UserPromptSubmit"]
    assert path.read_bytes() == original


def test_gemini_install_and_uninstall_keep_comments_and_foreign_hooks(
    data_file: Callable[[str], Path],
) -> None:
    path = data_file("gemini_settings.json")
    original = path.read_bytes()
    ours = {
        "name": "entire-after-agent",
        "type": "command",
        "command": "entire-agent-gemini hook after-agent",
    }
    with edit_json(path, comments=True) as doc:
        doc.data["hooks"]["AfterAgent"][0]["hooks"].append(ours)
        doc.data["hooks"]["SessionStart"] = [{"matcher": "*", "hooks": [ours]}]
    installed = path.read_text()
    assert installed.count("//") == original.decode().count("//")
    assert '"command": "other-tool after-agent", // foreign\n              {' not in installed
    assert '"command": "other-tool after-agent" // foreign\n          },\n          {\n' in installed
    with edit_json(path, comments=True) as doc:
        doc.data["hooks"]["AfterAgent"][0]["hooks"].pop()
        del doc.data["hooks"]["SessionStart"]
    assert path.read_bytes() == original


@st.composite
def jsonc_documents(draw: st.DrawFn) -> str:
    """A JSONC text in a random but plausible layout, with comments wherever JSONC allows them."""
    unit = draw(st.sampled_from(["  ", "    ", "\t"]))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    numbers = iter(range(1_000_000))

    def comment(line_end: bool) -> str:
        kind = draw(st.sampled_from(["", "", "block", "line"] if line_end else ["", "", "block"]))
        n = next(numbers)
        return {"": "", "block": f" /* c{n} */", "line": f" // c{n}"}[kind]

    def render(value: Any, depth: int) -> str:
        if isinstance(value, dict):
            opening, closing, items = (
                "{",
                "}",
                [json.dumps(k) + ": " + render(v, depth + 1) for k, v in value.items()],
            )
        elif isinstance(value, list):
            opening, closing, items = "[", "]", [render(v, depth + 1) for v in value]
        else:
            return json.dumps(value, ensure_ascii=draw(st.booleans()))
        if not items:
            return opening + closing
        if not draw(st.booleans()):  # inline
            return (
                opening + ", ".join(comment(False).lstrip() + " " + item for item in items).strip() + closing
            )
        inner = unit * (depth + 1)
        out = [opening]
        for i, item in enumerate(items):
            out.append(comment(True))
            if draw(st.booleans()):
                out.append(f"{newline}{inner}// own line {next(numbers)}")
            out.append(newline + inner + item + ("," if i < len(items) - 1 else ""))
        out.append(comment(True) + newline + unit * depth + closing)
        return "".join(out)

    root = draw(st.dictionaries(st.text(max_size=4), json_values, max_size=4))
    lead = comment(True).lstrip()
    tail = draw(st.sampled_from(["", newline, newline + "// end" + newline]))
    return (lead + newline if lead else "") + render(root, 0) + tail


@SETTINGS
@given(data=st.data())
def test_add_then_remove_is_exact_for_any_layout(data: st.DataObject) -> None:
    original_text = data.draw(jsonc_documents())
    changes = data.draw(additions(parse_json_text(original_text, comments=True)))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "settings.json"
        path.write_bytes(original_text.encode())
        with edit_json(path, comments=True) as doc:
            apply(doc.data, changes)
            intended = copy.deepcopy(doc.data)
        added_text = path.read_bytes().decode()
        assert canonical(parse_json_text(added_text, comments=True)) == canonical(intended)
        assert is_subsequence(original_text, added_text)
        with edit_json(path, comments=True) as doc:
            undo(doc.data, changes)
        assert path.read_bytes().decode() == original_text


@SETTINGS
@given(data=st.data())
def test_any_edit_of_any_layout_reads_back_as_intended(data: st.DataObject) -> None:
    original_text = data.draw(jsonc_documents())
    intended = data.draw(mutations(parse_json_text(original_text, comments=True)))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "settings.json"
        path.write_bytes(original_text.encode())
        with edit_json(path, comments=True) as doc:
            doc.data = copy.deepcopy(intended)
        written = path.read_bytes().decode() if path.exists() else original_text
    assert sorted_canonical(parse_json_text(written, comments=True)) == sorted_canonical(intended)
