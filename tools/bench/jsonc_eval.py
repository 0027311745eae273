"""Measure maintained JSONC editors against ``entire_core.config.json`` on our own property cases.

The candidates live in a scratch venv, never in the project's lock:

    python3 -m venv /tmp/jsonc-eval
    /tmp/jsonc-eval/bin/pip install jsonc-edit==0.2.1 json-five==1.1.2 hypothesis==6.170.17 pytest==9.2.0
    /tmp/jsonc-eval/bin/pip install --no-deps -e packages/entire-core
    HOME=/tmp/jsonc-eval-home /tmp/jsonc-eval/bin/python tools/bench/jsonc_eval.py properties [--examples 40]
    HOME=/tmp/jsonc-eval-home /tmp/jsonc-eval/bin/python tools/bench/jsonc_eval.py timing [--runs 21]

(``HOME`` is a scratch directory because jsonc-edit installs the npm package jsonc-parser into
``~/.jsonc-edit`` on first use and runs it in a Node.js daemon.)

``properties`` draws the cases with the strategies of ``tests/config/test_json_properties.py``
(derandomized, so every run and every library sees the same cases), adds the parse-error table of
``test_json_edits.py`` and its hand-written round trips, and runs them through one small adapter per
library. Every adapter gets the file's text without its BOM and the data the caller wants; the BOM,
locking and the atomic write stay in our file layer whichever editor is used. What an edit wrote is
read back with our strict JSONC parser, because Gemini CLI and Codex read strict JSON(C).

``timing`` runs ``python -c "import X"`` and an import plus one edit of the Gemini fixture,
interleaved with ``python -c "import json"`` from the same interpreter, and reports median ratios.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import functools
import importlib
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TESTS = REPO / "packages" / "entire-core" / "tests" / "config"

Path_ = tuple[str | int, ...]
Change = tuple[Path_, str | None, Any]


class Unsupported(Exception):
    """The library's API cannot express this edit."""


# ---------------------------------------------------------------------------------------------------
# Cases


class Case(NamedTuple):
    """One edit to check: ``changes`` added then undone, or ``intended`` written over ``text``."""

    source: str
    text: str
    comments: bool
    changes: list[Change] | None = None
    intended: Any = None


@functools.cache
def load_properties() -> ModuleType:
    """The property test module, for its fixtures and strategies."""
    spec = importlib.util.spec_from_file_location("json_properties", TESTS / "test_json_properties.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def drawn_cases(examples: int) -> list[Case]:
    """The cases our property tests draw, for the fixtures and for random layouts."""
    from entire_core.config.json import parse_json_text
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    props = load_properties()
    cases: list[Case] = []
    fixed = settings(
        max_examples=examples,
        database=None,
        derandomize=True,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )

    def collect(source: str, text_of: Callable[[st.DataObject], str], comments: bool) -> None:
        @fixed
        @given(data=st.data())
        def draw(data: st.DataObject) -> None:
            text = text_of(data)
            parsed = parse_json_text(text, comments=comments)
            cases.append(Case(source, text, comments, changes=data.draw(props.additions(parsed))))
            cases.append(Case(source, text, comments, intended=data.draw(props.mutations(parsed))))

        draw()

    for name, comments in props.FIXTURES:
        text = (TESTS / "data" / name).read_bytes().decode("utf-8").removeprefix("\ufeff")
        collect(name, lambda _data, text=text: text, comments)
    collect("random layout", lambda data: data.draw(props.jsonc_documents()), True)
    return cases


HAND_ROUND_TRIPS: list[tuple[str, list[Change]]] = [  # the round_trip() cases of test_json_edits.py
    ("{}\n", [((), "a", 1), ((), "b", [True])]),
    ('{\n  "a": 1 // one\n}\n', [((), "b", 2)]),
    ('{\n  "a": 1   \n}', [((), "b", 2)]),
    ('{\n  "a": 1}', [((), "b", 2)]),
    ('{\r\n\t"a": {\r\n\t\t"b": 1\r\n\t}\r\n}\r\n', [(("a",), "c", {"d": [1]})]),
    ('{"a":1,"b":[1,2],"e":{}}', [((), "c", {"x": [1]}), (("b",), None, 3), (("e",), "k", None)]),
]

UNPARSEABLE: list[tuple[str, bool]] = [  # the inputs test_parse_errors expects to be refused
    ('{"a": 1,}', True),
    ("[1, 2,\n]", True),
    ('{"a": 1, "a": 2}', True),
    ('{"a": 1} // c', False),
    ('{"a": 1 /* c', True),
    ('{\n  "a": "x\n"}', True),
    ('{"a": "x', True),
    ('{"a" 1}', True),
    ('{"a": 1 "b": 2}', True),
    ("{a: 1}", True),
    ('{"a": NaN}', True),
    ('{"a": 01}', True),
    ('{"a": 1} {}', True),
    ('{"a": ', True),
    ("", True),
    ("1" * 5000, True),
    ("[" * 100_000, True),
]


# ---------------------------------------------------------------------------------------------------
# Adapters


class Adapter:
    """A library behind the two calls the editor needs."""

    name = ""

    def parse(self, text: str, comments: bool) -> Any:
        raise NotImplementedError

    def rewrite(self, text: str, new: Any, comments: bool) -> str:
        raise NotImplementedError


class Ours(Adapter):
    name = "entire_core"

    def parse(self, text: str, comments: bool) -> Any:
        from entire_core.config.json import parse_json_text

        return parse_json_text(text, comments=comments)

    def rewrite(self, text: str, new: Any, comments: bool) -> str:
        from entire_core.config.json import edit_json

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "settings.json"
            path.write_bytes(text.encode())
            with edit_json(path, comments=comments) as doc:
                doc.data = copy.deepcopy(new)
            return path.read_bytes().decode()


class JsoncEdit(Adapter):
    """jsonc-edit: ``edit(text, path, value, options)`` per change, run by jsonc-parser in Node.js."""

    name = "jsonc-edit"

    def __init__(self) -> None:
        self.lib: Any = importlib.import_module("jsonc_edit")

    def parse(self, text: str, comments: bool) -> Any:
        value = self.lib.get_value(text, [])
        if value is self.lib.MISSING:
            raise ValueError("no value")
        return value

    def rewrite(self, text: str, new: Any, comments: bool) -> str:
        style = {"formattingOptions": formatting_options(text)}
        for kind, path, value in operations(self.parse(text, comments), new):
            if kind == "remove":
                # The daemon takes JSON, which has no `undefined`: jsonc-parser removes only on undefined.
                raise Unsupported("cannot remove a member or element (None sets null)")
            options = {**style, "isArrayInsertion": kind == "insert"}
            text = self.lib.edit(text, list(path), value, options)
        return text


def formatting_options(text: str) -> dict[str, Any]:
    """jsonc-parser's formatting options that match the file, so new lines look like the old ones."""
    indents = [line[: len(line) - len(line.lstrip(" \t"))] for line in text.splitlines()]
    unit = next((indent for indent in indents if indent), "  ")
    return {
        "insertSpaces": not unit.startswith("\t"),
        "tabSize": len(unit) if not unit.startswith("\t") else 4,
        "eol": "\r\n" if "\r\n" in text else "\n",
    }


class JsonFive(Adapter):
    """json-five: load a round-trip model, apply each change to the model, dump it."""

    name = "json-five"

    def __init__(self) -> None:
        self.json5: Any = importlib.import_module("json5")
        self.loader: Any = importlib.import_module("json5.loader")
        self.dumper: Any = importlib.import_module("json5.dumper")
        self.model: Any = importlib.import_module("json5.model")

    def parse(self, text: str, comments: bool) -> Any:
        return self.json5.loads(text)

    def rewrite(self, text: str, new: Any, comments: bool) -> str:
        root = self.loader.loads(text, loader=self.loader.ModelLoader())
        for kind, path, value in operations(self.parse(text, comments), new):
            if not path:
                root.value = self.keep_space(root.value, self.modelize(value))
                continue
            parent = root.value
            for step in path[:-1]:
                parent = parent.values[self.index(parent, step)]
            getattr(self, kind)(parent, path[-1], value)
        return self.dumper.dumps(root, dumper=self.dumper.ModelDumper())

    def index(self, node: Any, step: str | int) -> int:
        if isinstance(step, int):
            return step
        return next(i for i, key in enumerate(node.keys) if getattr(key, "characters", key) == step)

    def set(self, parent: Any, step: str | int, value: Any) -> None:
        if isinstance(step, str) and all(getattr(k, "characters", k) != step for k in parent.keys):
            self.append(parent, self.modelize(step), self.modelize(value))
            return
        i = self.index(parent, step)
        parent.values[i] = self.keep_space(parent.values[i], self.modelize(value))

    def insert(self, parent: Any, step: str | int, value: Any) -> None:
        assert isinstance(step, int)
        if step == len(parent.values):
            self.append(parent, None, self.modelize(value))
            return
        node = self.modelize(value)
        node.wsc_before = [w for w in parent.values[step].wsc_before if isinstance(w, str)][-1:]
        parent.values.insert(step, node)

    def remove(self, parent: Any, step: str | int, _value: Any) -> None:
        i = self.index(parent, step)
        gone = parent.values.pop(i)
        if isinstance(step, str):
            parent.keys.pop(i)
        if i == len(parent.values) and parent.values:  # the closing bracket's line break comes back
            parent.values[-1].wsc_after = gone.wsc_after

    def append(self, parent: Any, key: Any, node: Any) -> None:
        """Lay a new last entry out like the current last one and move the closing whitespace to it."""
        if parent.values:
            last_key = parent.keys[-1] if key is not None else parent.values[-1]
            first = key if key is not None else node
            first.wsc_before = [w for w in last_key.wsc_before if isinstance(w, str)][-1:]
            if key is not None:
                node.wsc_before = [w for w in parent.values[-1].wsc_before if isinstance(w, str)][:1]
            node.wsc_after, parent.values[-1].wsc_after = parent.values[-1].wsc_after, []
        if key is not None:
            parent.keys.append(key)
        parent.values.append(node)

    def keep_space(self, old: Any, new: Any) -> Any:
        new.wsc_before, new.wsc_after = old.wsc_before, old.wsc_after
        return new

    def modelize(self, value: Any) -> Any:
        """The library's model of ``value``, with JSON (not Python ``repr``) string spellings."""
        m = self.model
        if isinstance(value, dict):
            pairs = [m.KeyValuePair(self.modelize(k), self.modelize(v)) for k, v in value.items()]
            return m.JSONObject(*pairs)
        if isinstance(value, list):
            return m.JSONArray(*(self.modelize(v) for v in value))
        if isinstance(value, str):
            return m.DoubleQuotedString(value, raw_value=json.dumps(value, ensure_ascii=False))
        if isinstance(value, bool) or value is None:
            return m.BooleanLiteral(value) if value is not None else m.NullLiteral()
        return m.Integer(str(value)) if isinstance(value, int) else m.Float(repr(value))


def operations(old: Any, new: Any, path: Path_ = ()) -> list[tuple[str, Path_, Any]]:
    """The changes from ``old`` to ``new`` as path edits, each valid after the ones before it.

    Kinds: ``set`` (replace a value or add a member), ``insert`` (an array element before an index)
    and ``remove``. Arrays are matched on a longest common subsequence, as our editor matches them.
    """
    if same(old, new):
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        ops = [("remove", (*path, key), None) for key in old if key not in new]
        for key in old:
            if key in new:
                ops += operations(old[key], new[key], (*path, key))
        return ops + [("set", (*path, key), value) for key, value in new.items() if key not in old]
    if isinstance(old, list) and isinstance(new, list):
        matcher = difflib.SequenceMatcher(
            None, [canonical(v) for v in old], [canonical(v) for v in new], False
        )
        ops = []
        for tag, i1, i2, j1, j2 in reversed(matcher.get_opcodes()):  # from the end: indices stay valid
            if tag == "equal":
                continue
            paired = min(i2 - i1, j2 - j1)
            ops += [("remove", (*path, i), None) for i in reversed(range(i1 + paired, i2))]
            ops += [
                ("insert", (*path, i1 + paired + n), new[j]) for n, j in enumerate(range(j1 + paired, j2))
            ]
            for n in range(paired):
                ops += operations(old[i1 + n], new[j1 + n], (*path, i1 + n))
        return ops
    return [("set", path, new)]


def same(a: Any, b: Any) -> bool:
    return canonical(a) == canonical(b)


def canonical(value: Any) -> str:
    """Type-sensitive text for comparing data (1, 1.0 and true differ)."""
    return json.dumps(value, sort_keys=True)


# ---------------------------------------------------------------------------------------------------
# Checks


class Tally:
    """Pass counts per property and the most common failure reasons."""

    def __init__(self) -> None:
        self.passed: Counter[str] = Counter()
        self.total: Counter[str] = Counter()
        self.reasons: Counter[tuple[str, str]] = Counter()

    def check(self, prop: str, ok: bool, reason: str = "wrong output") -> bool:
        self.total[prop] += 1
        self.passed[prop] += ok
        if not ok:
            self.reasons[prop, reason] += 1
        return ok


def run_case(adapter: Adapter, case: Case, tally: Tally) -> None:
    props = load_properties()
    from entire_core.config.json import parse_json_text

    strict = lambda text: parse_json_text(text, comments=case.comments)  # noqa: E731
    original = case.text
    old = strict(original)
    if case.changes is not None:
        intended = copy.deepcopy(old)
        props.apply(intended, case.changes)
        checks = ["add: reads back as intended", "add: only inserts", "add: comments kept"]
        checks += ["add: newline style kept", "add then remove: original bytes"]
    else:
        intended, checks = case.intended, ["edit: reads back as intended", "edit: comments before it kept"]
    try:
        written = adapter.rewrite(original, intended, case.comments)
    except Exception as exc:
        reason = f"unsupported: {exc}" if isinstance(exc, Unsupported) else f"raised {type(exc).__name__}"
        for prop in checks:
            tally.check(prop, False, reason)
        return
    try:
        read_back = strict(written)
    except Exception:
        read_back = ...
    if case.changes is None:
        tally.check(checks[0], read_back is not ... and same(read_back, intended), "reads back differently")
        first_change = next(
            (i for i, (a, b) in enumerate(zip(original, written, strict=False)) if a != b), None
        )
        kept = all(c in written for c in props.comments_of(original[:first_change]))
        tally.check(checks[1], kept, "lost a comment")
        return
    ordered = read_back is not ... and canonical_ordered(read_back) == canonical_ordered(intended)
    tally.check(checks[0], ordered, "reads back differently")
    tally.check(checks[1], props.is_subsequence(original, written), "changed original text")
    tally.check(checks[2], all(c in written for c in props.comments_of(original)), "lost a comment")
    crlf_ok = "\r\n" not in original or "\n" not in written.replace("\r\n", "")
    tally.check(checks[3], crlf_ok and written.endswith("\n") == original.endswith("\n"), "newline style")
    try:
        removed = adapter.rewrite(written, old, case.comments)
    except Unsupported as exc:
        tally.check(checks[4], False, f"unsupported: {exc}")
        return
    except Exception as exc:
        tally.check(checks[4], False, f"raised {type(exc).__name__}")
        return
    tally.check(checks[4], removed == original, "bytes differ")


def canonical_ordered(value: Any) -> str:
    return json.dumps(value)


def run_unparseable(adapter: Adapter, tally: Tally) -> None:
    for text, comments in UNPARSEABLE:
        try:
            adapter.parse(text, comments)
        except Exception:
            tally.check("refuses unparseable input", True)
        else:
            tally.check("refuses unparseable input", False, f"accepted {text[:12]!r}")


def properties(examples: int) -> None:
    from entire_core.config.json import parse_json_text

    cases = drawn_cases(examples)
    for text, changes in HAND_ROUND_TRIPS:
        parse_json_text(text, comments=True)
        cases.append(Case("hand-written", text, True, changes=changes))
    print(f"{len(cases)} edit cases + {len(UNPARSEABLE)} unparseable inputs", flush=True)
    adapters = [Ours(), JsoncEdit(), JsonFive()]
    tallies = {}
    for adapter in adapters:
        tally = tallies[adapter.name] = Tally()
        started = time.perf_counter()
        for case in cases:
            run_case(adapter, case, tally)
        run_unparseable(adapter, tally)
        print(f"{adapter.name}: {time.perf_counter() - started:.1f} s", flush=True)
    props = sorted({prop for tally in tallies.values() for prop in tally.total})
    width = max(map(len, props))
    print(f"\n{'property':<{width}}  " + "  ".join(f"{a.name:>13}" for a in adapters))
    for prop in props:
        row = [f"{tallies[a.name].passed[prop]}/{tallies[a.name].total[prop]}" for a in adapters]
        print(f"{prop:<{width}}  " + "  ".join(f"{cell:>13}" for cell in row))
    for adapter in adapters:
        reasons = tallies[adapter.name].reasons.most_common()
        if reasons:
            print(f"\n{adapter.name} failures:")
        for (prop, reason), count in reasons[:12]:
            print(f"  {count:4} {prop}: {reason}")


# ---------------------------------------------------------------------------------------------------
# Timing

GEMINI = TESTS / "data" / "gemini_settings.json"
EDITS = {
    "entire_core": (
        "from entire_core.config.json import edit_json\n"
        "with edit_json(sys.argv[1], comments=True) as d: d.data['x'] = 1"
    ),
    "jsonc-edit": (
        "import jsonc_edit\n"
        "t = open(sys.argv[1]).read()\n"
        "open(sys.argv[1], 'w').write(jsonc_edit.edit(t, ['x'], 1))"
    ),
    "json-five": (
        "import json5.loader as L, json5.dumper as D, json5.model as M\n"
        "t = open(sys.argv[1]).read(); m = L.loads(t, loader=L.ModelLoader())\n"
        "m.value.keys.append(M.DoubleQuotedString('x', raw_value='\"x\"')); m.value.values.append(M.Integer('1'))\n"
        "open(sys.argv[1], 'w').write(D.dumps(m, dumper=D.ModelDumper()))"
    ),
}
IMPORTS = {"entire_core": "entire_core.config.json", "jsonc-edit": "jsonc_edit", "json-five": "json5"}


def timing(runs: int) -> None:
    baseline = [sys.executable, "-c", "import json"]
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "settings.json"
        commands = {"baseline": baseline}
        for name, module in IMPORTS.items():
            commands[f"import {name}"] = [sys.executable, "-c", f"import {module}"]
            commands[f"import+edit {name}"] = [
                sys.executable,
                "-c",
                f"import sys\n{EDITS[name]}",
                str(target),
            ]
        times: dict[str, list[float]] = {label: [] for label in commands}
        for _ in range(runs + 2):
            for label, argv in commands.items():
                target.write_bytes(GEMINI.read_bytes())
                started = time.perf_counter()
                subprocess.run(argv, check=True, env=os.environ)
                times[label].append(time.perf_counter() - started)
    base = statistics.median(times["baseline"][2:])
    print(f"median of {runs} runs, interleaved; baseline `python -c 'import json'` = {base * 1000:.1f} ms")
    for label, values in times.items():
        median = statistics.median(values[2:])
        print(f"  {label:<24} {median * 1000:7.1f} ms  {median / base:5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("properties").add_argument("--examples", type=int, default=40)
    sub.add_parser("timing").add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    if args.command == "properties":
        properties(args.examples)
    else:
        timing(args.runs)


if __name__ == "__main__":
    main()
