"""The JSON editor's text output, case by case: what a minimal edit looks like."""

from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from entire_core.config._json_edit import common_subsequence
from entire_core.config.json import edit_json, parse_json_text
from entire_core.errors import ConfigError
from hypothesis import given, settings
from hypothesis import strategies as st


def edit(tmp_path: Path, original: str, change: Callable[[Any], object], *, comments: bool = True) -> str:
    """Write ``original``, apply ``change`` to its data through edit_json, return the new text."""
    path = tmp_path / "settings.json"
    path.write_bytes(original.encode())
    with edit_json(path, comments=comments) as doc:
        change(doc.data)
    return path.read_bytes().decode()


def round_trip(
    tmp_path: Path, original: str, add: Callable[[Any], object], remove: Callable[[Any], object]
) -> str:
    """Apply ``add`` then, in a second session, ``remove``; check the original comes back; return the added text."""
    added = edit(tmp_path, original, add)
    assert edit(tmp_path, added, remove) == original
    return added


def test_empty_object_gets_normal_layout_and_comes_back(tmp_path: Path) -> None:
    added = round_trip(tmp_path, "{}\n", lambda d: d.update(a=1, b=[True]), lambda d: d.clear())
    assert added == '{\n  "a": 1,\n  "b": [\n    true\n  ]\n}\n'


def test_new_member_goes_after_the_trailing_comment_of_the_last_one(tmp_path: Path) -> None:
    original = '{\n  "a": 1 // one\n}\n'
    added = round_trip(tmp_path, original, lambda d: d.update(b=2), lambda d: d.pop("b"))
    assert added == '{\n  "a": 1, // one\n  "b": 2\n}\n'


def test_new_member_keeps_trailing_spaces_and_a_closing_brace_on_the_same_line(tmp_path: Path) -> None:
    round_trip(tmp_path, '{\n  "a": 1   \n}', lambda d: d.update(b=2), lambda d: d.pop("b"))
    added = round_trip(tmp_path, '{\n  "a": 1}', lambda d: d.update(b=2), lambda d: d.pop("b"))
    assert added == '{\n  "a": 1,\n  "b": 2}'


def test_nested_new_container_uses_the_file_indent_and_newlines(tmp_path: Path) -> None:
    original = '{\r\n\t"a": {\r\n\t\t"b": 1\r\n\t}\r\n}\r\n'
    added = round_trip(tmp_path, original, lambda d: d["a"].update(c={"d": [1]}), lambda d: d["a"].pop("c"))
    assert (
        added
        == '{\r\n\t"a": {\r\n\t\t"b": 1,\r\n\t\t"c": {\r\n\t\t\t"d": [\r\n\t\t\t\t1\r\n\t\t\t]\r\n\t\t}\r\n\t}\r\n}\r\n'
    )


def test_indent_unit_is_detected_from_the_file(tmp_path: Path) -> None:
    added = edit(tmp_path, '{\n    "a": {}\n}\n', lambda d: d["a"].update(b={"c": 1}))
    assert added == '{\n    "a": {\n        "b": {\n            "c": 1\n        }\n    }\n}\n'


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        # Uneven nesting: the outermost example wins, not the deeper one.
        (
            '{\n  "a": {\n        "b": 1\n  }\n}\n',
            '{\n  "a": {\n        "b": 1\n  },\n  "c": {\n    "d": 1\n  }\n}\n',
        ),
        # Members at their object's own indent teach nothing: the unit comes from the nested ones.
        (
            '{\n"a": {\n    "b": 1\n}\n}\n',
            '{\n"a": {\n    "b": 1\n},\n"c": {\n    "d": 1\n}\n}\n',
        ),
    ],
    ids=["outermost-wins", "flush-members"],
)
def test_indent_unit_comes_from_the_outermost_indented_member(
    tmp_path: Path, original: str, expected: str
) -> None:
    assert edit(tmp_path, original, lambda d: d.update(c={"d": 1})) == expected


def test_compact_file_stays_compact(tmp_path: Path) -> None:
    original = '{"a":1,"b":[1,2],"e":{}}'
    added = round_trip(
        tmp_path,
        original,
        lambda d: (d.update(c={"x": [1]}), d["b"].append(3), d["e"].update(k=None)),
        lambda d: (d.pop("c"), d["b"].pop(), d["e"].clear()),
    )
    assert added == '{"a":1,"b":[1,2,3],"e":{"k":null},"c":{"x":[1]}}'


def test_inline_separators_come_from_any_pair_of_neighbours(tmp_path: Path) -> None:
    # The separator after each comma, in a container of any length, is the file's style.
    assert edit(tmp_path, '{"a":[1,2,3]}', lambda d: d["a"].append(4)) == '{"a":[1,2,3,4]}'
    assert edit(tmp_path, "[1,  2,  3]", lambda d: d.append(4)) == "[1,  2,  3,  4]"


def test_members_after_a_first_one_on_the_brace_line_go_on_their_own_lines(tmp_path: Path) -> None:
    # Whether new entries get lines of their own is read before the last entry, not the first.
    original = '{"a": 1,\n "b": 2}'
    assert edit(tmp_path, original, lambda d: d.update(c=3)) == '{"a": 1,\n "b": 2,\n "c": 3}'


def test_unchanged_numbers_keep_their_spelling(tmp_path: Path) -> None:
    original = '{"ratio": 1.50, "big": 1E2, "n": 1}'
    assert edit(tmp_path, original, lambda d: d.update(n=2)) == '{"ratio": 1.50, "big": 1E2, "n": 2}'


def test_changed_scalar_is_replaced_in_place(tmp_path: Path) -> None:
    original = '{\n  "a": "old", // keep me\n  "b": 1\n}\n'
    assert edit(tmp_path, original, lambda d: d.update(a="né")) == '{\n  "a": "né", // keep me\n  "b": 1\n}\n'


def test_new_keys_and_values_keep_their_unicode(tmp_path: Path) -> None:
    assert edit(tmp_path, '{"a": 1}', lambda d: d.update({"né": "ü"})) == '{"a": 1, "né": "ü"}'
    pretty = edit(tmp_path, '{\n  "a": 1\n}\n', lambda d: d.update({"é": {"ü": 1}}))
    assert pretty == '{\n  "a": 1,\n  "é": {\n    "ü": 1\n  }\n}\n'


def test_type_changes_count_as_changes(tmp_path: Path) -> None:
    original = '{"a": 1, "b": 1.0, "c": true}'
    assert edit(tmp_path, original, lambda d: d.update(a=1.0, b=True, c=1)) == '{"a": 1.0, "b": true, "c": 1}'


def test_scalar_replaced_by_container_is_laid_out_at_its_depth(tmp_path: Path) -> None:
    original = '{\n  "a": {\n    "b": null\n  }\n}\n'
    changed = edit(tmp_path, original, lambda d: d["a"].update(b={"c": [1, 2]}))
    assert changed == '{\n  "a": {\n    "b": {\n      "c": [\n        1,\n        2\n      ]\n    }\n  }\n}\n'


def test_removing_members_keeps_comments_around_them(tmp_path: Path) -> None:
    original = '{\n  // about a\n  "a": 1, // after a\n  "b": 2,\n  "c": 3 // after c\n}\n'
    assert edit(tmp_path, original, lambda d: d.pop("a")) == (
        '{\n  // about a\n  // after a\n  "b": 2,\n  "c": 3 // after c\n}\n'
    )
    assert edit(tmp_path, original, lambda d: d.pop("b")) == (
        '{\n  // about a\n  "a": 1, // after a\n  "c": 3 // after c\n}\n'
    )
    assert edit(tmp_path, original, lambda d: d.pop("c")) == (
        '{\n  // about a\n  "a": 1, // after a\n  "b": 2 // after c\n}\n'
    )


def test_a_comment_inside_a_removed_value_goes_with_it(tmp_path: Path) -> None:
    original = '{\n  "a": {\n    // inside\n    "x": 1\n  },\n  "b": 2\n}\n'
    assert edit(tmp_path, original, lambda d: d.pop("a")) == '{\n  "b": 2\n}\n'


def test_a_comment_right_after_the_opening_brace_stays(tmp_path: Path) -> None:
    assert edit(tmp_path, '{/* only */"a": 1}', lambda d: d.clear()) == "{/* only */}"
    assert (
        edit(tmp_path, '{// mine\n  "a": 1\n}', lambda d: (d.clear(), d.update(b=2)))
        == '{// mine\n  "b": 2\n}'
    )


def test_a_comment_right_after_a_closing_brace_is_not_inside_that_object(tmp_path: Path) -> None:
    original = '{"a": {"x": 1}/* about a */}'
    changed = edit(tmp_path, original, lambda d: (d["a"].clear(), d["a"].update(y=2)))
    assert changed == '{"a": {"y": 2}/* about a */}'


def test_removing_everything_keeps_remaining_comments_and_new_members_follow_them(tmp_path: Path) -> None:
    original = '{\n  // only comments stay\n  "a": 1}'
    assert edit(tmp_path, original, lambda d: d.clear()) == "{\n  // only comments stay\n}"
    replaced = edit(tmp_path, original, lambda d: (d.clear(), d.update(z=0)))
    assert replaced == '{\n  // only comments stay\n  "z": 0\n}'
    two = '{\n  // only comments stay\n  "a": 1,\n  "b": 2}'
    assert (
        edit(tmp_path, two, lambda d: (d.clear(), d.update(z=0))) == '{\n  // only comments stay\n  "z": 0}'
    )


def test_all_members_replaced_without_comments_re_lays_the_object_in_its_style(tmp_path: Path) -> None:
    assert edit(tmp_path, '{"a": 1}', lambda d: (d.clear(), d.update(b=2))) == '{"b": 2}'
    assert edit(tmp_path, '{\n  "a": 1\n}', lambda d: (d.clear(), d.update(b=2))) == '{\n  "b": 2\n}'
    assert edit(tmp_path, '{\n  "a": 1\n}', lambda d: d.clear()) == "{}"


def test_removing_a_trailing_member_and_adding_one_reuses_the_comma(tmp_path: Path) -> None:
    original = '{\n  "a": 1, // one\n  "b": 2\n}\n'
    assert (
        edit(tmp_path, original, lambda d: (d.pop("b"), d.update(c=3)))
        == '{\n  "a": 1, // one\n  "c": 3\n}\n'
    )
    inline = '{"a": 1, "b": 2}'
    assert edit(tmp_path, inline, lambda d: (d.pop("b"), d.update(c=3))) == '{"a": 1, "c": 3}'


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_removing_a_last_element_never_joins_a_line_comment_to_what_follows(
    tmp_path: Path, newline: str
) -> None:
    # The element goes, its line break stays: the comment after `1` must not swallow `/* two */`.
    original = "[\n  1, // one\n  2 /* two */\n]\n".replace("\n", newline)
    expected = "[\n  1 // one\n /* two */\n]\n".replace("\n", newline)
    assert edit(tmp_path, original, lambda d: d.pop()) == expected


def test_array_elements_are_matched_in_order(tmp_path: Path) -> None:
    original = '[\n  "a", // first\n  "b",\n  "c"\n]\n'
    assert (
        edit(tmp_path, original, lambda d: d.insert(1, "x"))
        == '[\n  "a", // first\n  "x",\n  "b",\n  "c"\n]\n'
    )
    assert edit(tmp_path, original, lambda d: d.remove("b")) == '[\n  "a", // first\n  "c"\n]\n'
    assert (
        edit(tmp_path, original, lambda d: d.insert(0, "x"))
        == '[\n  "x",\n  "a", // first\n  "b",\n  "c"\n]\n'
    )
    assert edit(tmp_path, "[1, 2, 3]", lambda d: d.insert(2, 9)) == "[1, 2, 9, 3]"
    assert edit(tmp_path, "[1, 2, 3]", lambda d: d.__setitem__(1, 7)) == "[1, 7, 3]"


def test_changed_element_is_edited_in_place_not_rewritten(tmp_path: Path) -> None:
    original = '[\n  {"name": "x", "on": true}, // keep\n  {"name": "y"}\n]\n'
    changed = edit(tmp_path, original, lambda d: d[0].update(on=False))
    assert changed == '[\n  {"name": "x", "on": false}, // keep\n  {"name": "y"}\n]\n'


def test_an_element_inserted_between_two_on_one_line_stays_on_that_line(tmp_path: Path) -> None:
    assert edit(tmp_path, "[\n  1, 2,\n  3\n]", lambda d: d.insert(1, 9)) == "[\n  1, 9, 2,\n  3\n]"


def test_a_changed_element_is_edited_in_place_even_with_an_equal_twin_after_it(tmp_path: Path) -> None:
    twins = '[\n  "x", // first\n  "x" // second\n]\n'
    assert (
        edit(tmp_path, twins, lambda d: d.__setitem__(0, "y")) == '[\n  "y", // first\n  "x" // second\n]\n'
    )
    pair = '[\n  "x", // first\n  "y" // second\n]\n'
    assert edit(tmp_path, pair, lambda d: d.__setitem__(0, "y")) == '[\n  "y", // first\n  "y" // second\n]\n'


def test_an_element_moved_to_the_end_leaves_the_others_as_they_were(tmp_path: Path) -> None:
    # What an install that re-adds its own group at the end does: the user's group keeps its text.
    original = '[\n  {"ours": 1},\n  {"theirs": 2} // mine\n]\n'
    moved = edit(tmp_path, original, lambda d: d.append(d.pop(0)))
    assert moved == '[\n  {"theirs": 2}, // mine\n  {\n    "ours": 1\n  }\n]\n'


def test_an_element_is_recognised_whatever_the_order_of_its_keys(tmp_path: Path) -> None:
    original = '[{"a": 1, /* kept */ "b": 2}, 9]'
    changed = edit(tmp_path, original, lambda d: d.__setitem__(slice(None), [0, {"b": 2, "a": 1}]))
    assert changed == '[0, {"a": 1, /* kept */ "b": 2}]'


def lcs_length(a: list[str], b: list[str]) -> int:
    """The length of a longest common subsequence, by the textbook recursion."""

    @functools.cache
    def length(i: int, k: int) -> int:
        if i == len(a) or k == len(b):
            return 0
        if a[i] == b[k]:
            return 1 + length(i + 1, k + 1)
        return max(length(i + 1, k), length(i, k + 1))

    return length(0, 0)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from("xyz"), max_size=7), st.lists(st.sampled_from("xyz"), max_size=7))
def test_array_diffs_keep_a_longest_common_subsequence(a: list[str], b: list[str]) -> None:
    # Every element kept is one fewer rewritten: the pairs must be matches, in order, and as many as can be.
    pairs = common_subsequence(a, b)
    assert all(a[i] == b[k] for i, k in pairs)
    assert all(i < j and k < m for (i, k), (j, m) in itertools.pairwise(pairs))
    assert len(pairs) == lcs_length(a, b)


def test_root_can_be_replaced(tmp_path: Path) -> None:
    assert edit(tmp_path, '// c\n{"a": 1}\n', lambda d: None) == '// c\n{"a": 1}\n'
    path = tmp_path / "settings.json"
    with edit_json(path, comments=True) as doc:
        doc.data = [1]
    assert path.read_text() == "// c\n[\n  1\n]\n"


def test_new_file_is_plain_pretty_json(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    with edit_json(path) as doc:
        assert doc.data == {}
        assert not doc.existed
        doc.data["hooks"] = {"é": [1]}
    assert (
        path.read_text(encoding="utf-8")
        == json.dumps({"hooks": {"é": [1]}}, indent=2, ensure_ascii=False) + "\n"
    )


def test_empty_file_reads_as_empty_object(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("\n")
    with edit_json(path) as doc:
        assert doc.data == {}
        assert doc.existed
        doc.data["a"] = 1
    assert path.read_text() == '{\n  "a": 1\n}\n'


def test_bom_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}')
    with edit_json(path) as doc:
        doc.data["b"] = 2
    assert path.read_bytes() == b'\xef\xbb\xbf{"a": 1, "b": 2}'


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (float("nan"), "Out of range float"),
        ({1, 2}, "not JSON serializable"),
        ((1, 2), "values JSON cannot represent"),
        ({1: "int key"}, "values JSON cannot represent"),
        ("\ud800", "surrogates not allowed"),
    ],
)
@pytest.mark.parametrize("original", ['{"a": 1}', '{\n  "a": 1\n}\n'], ids=["inline", "pretty"])
def test_data_json_cannot_hold_is_refused(tmp_path: Path, value: object, message: str, original: str) -> None:
    path = tmp_path / "settings.json"
    path.write_text(original)
    with pytest.raises(ConfigError, match=message), edit_json(path) as doc:
        doc.data["b"] = value
    assert path.read_text() == original


@pytest.mark.parametrize(
    ("text", "comments", "message"),
    [
        ('{"a": 1,}', True, "line 1, column 8: trailing comma"),
        ("[1, 2,\n]", True, "line 1, column 6: trailing comma"),
        ('{"a": 1, "a": 2}', True, 'line 1, column 10: duplicate key "a"'),
        ('{"a": 1} // c', False, "line 1, column 10: comments are not allowed"),
        ('{"a": 1 /* c', True, "line 1, column 9: unterminated comment"),
        ('{\n  "a": "x\n"}', True, "line 2, column 10: Invalid control character$"),
        ('{"a": "x', True, "line 1, column 7: Unterminated string$"),
        ('{"a" 1}', True, "line 1, column 6: expected ':'"),
        ('{"a": 1 "b": 2}', True, "line 1, column 9: expected ',' or '}'"),
        ("{a: 1}", True, "line 1, column 2: expected a string key"),
        ('{"a": NaN}', True, "expected a value"),
        ('{"a": 01}', True, "expected ',' or '}'"),
        ('{"a": 1} {}', True, "unexpected text after the JSON value"),
        ('{"a": ', True, "unexpected end of file"),
        ("", True, "unexpected end of file"),
        ("1" * 5000, True, "number too long"),
        ("[" * 100_000, True, "nested too deeply"),
    ],
)
def test_parse_errors(text: str, comments: bool, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_json_text(text, comments=comments)


@pytest.mark.parametrize(
    "text",
    ['{"a": [1, -2.5e-3, 0, true, false, null, "\\u00e9\\n"], "b": {}}', "[]", "3", '"x"', "  null  "],
)
def test_parse_agrees_with_the_json_module(text: str) -> None:
    assert json.dumps(parse_json_text(text, comments=False)) == json.dumps(json.loads(text))


def test_parse_accepts_comments_and_a_bom() -> None:
    assert parse_json_text('\ufeff// c\n{"a": /* b */ 1 // d\n}', comments=True) == {"a": 1}
    assert parse_json_text('{"url": "http://x/*y*/"}', comments=True) == {"url": "http://x/*y*/"}


def test_parse_error_in_a_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "hooks.json"
    path.write_text('{\n  "hooks": [1,]\n}\n')
    expected = r"^cannot parse .*hooks\.json: line 2, column 14: trailing comma$"
    with pytest.raises(ConfigError, match=expected), edit_json(path):
        pass  # pragma: no cover
