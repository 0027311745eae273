"""Typed views of loose JSON give the expected type or an empty value, never an exception."""

from __future__ import annotations

from entire_core import jsonvalues


def test_views() -> None:
    assert jsonvalues.obj({"a": 1}) == {"a": 1} and jsonvalues.obj([1]) == {} and jsonvalues.obj(None) == {}
    assert jsonvalues.array([1]) == [1] and jsonvalues.array({"a": 1}) == []
    assert jsonvalues.text("x") == "x" and jsonvalues.text(5) == ""
    assert [jsonvalues.integer(v) for v in (5, True, 2.0, 2.5, "3", None)] == [5, 0, 2, 0, 0, 0]


def test_array_members() -> None:
    assert jsonvalues.objects([{"a": 1}, 2, {}, "x", {"b": 2}]) == [{"a": 1}, {"b": 2}]
    assert jsonvalues.strings(["a", 1, None, "b"]) == ["a", "b"] and jsonvalues.strings("ab") == []
