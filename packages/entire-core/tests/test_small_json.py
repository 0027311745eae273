"""``_json``: the small encoder and decoder the hot subcommands use instead of ``import json``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from entire_core import _json
from hypothesis import given
from hypothesis import strategies as st

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_small_encoder_round_trips_through_json(value: object) -> None:
    assert json.loads(_json.dumps(value)) == value


@given(json_values | st.text(), st.sampled_from(["", " ", "\n\t\r "]))
def test_small_decoder_reads_what_json_reads(value: object, pad: str) -> None:
    text = value if isinstance(value, str) else json.dumps(value)
    try:
        expected: object = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            _json.loads(text)
        return
    assert repr(_json.loads(pad + text + pad)) == repr(expected)  # NaN is not equal to itself
    assert repr(_json.loads((pad + text).encode("utf-8"))) == repr(expected)


def test_small_decoder_refuses_broken_documents_without_json_loaded() -> None:
    # The C scanner raises json.decoder's error class: in a process that never imported json, every
    # broken document must still be a ValueError (a hook reading a half-written line must not crash).
    broken = ["{", '{"a": ', "[1, 2", '{"a" 1}', '"abc', "[1,]", '{"a":1,}', "tru", b'{"x": [', b"\xff"]
    code = (
        "import sys\n"
        "from entire_core import _json\n"
        f"for text in {broken!r}:\n"
        "    try:\n"
        "        _json.loads(text)\n"
        "    except ValueError:\n"
        "        pass\n"
        "    else:\n"
        "        raise SystemExit(f'accepted {text!r}')\n"
        "assert _json.loads(b'{\"a\": [1, 2.5, null]}') == {'a': [1, 2.5, None]}\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    "encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"]
)
@pytest.mark.parametrize("document", ["1", '{"a": [1, "b"]}', '{"a": ["\u00e9", 1]}'])
def test_small_decoder_reads_the_encodings_json_detects(encoding: str, document: str) -> None:
    # Without a byte order mark, UTF-16 and UTF-32 show themselves by a zero among the first two bytes
    # (an ASCII document in them is valid UTF-8 too, and must not be read as that).
    data = document.encode(encoding)
    assert _json.loads(data) == json.loads(data) == json.loads(document)


@given(st.binary(max_size=40))
def test_small_decoder_reads_bytes_as_json_does(data: bytes) -> None:
    try:
        expected: object = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        with pytest.raises(ValueError):
            _json.loads(data)
        return
    assert repr(_json.loads(data)) == repr(expected)  # NaN is not equal to itself


# The last three hold raw control characters inside a string, which JSON forbids.
@pytest.mark.parametrize(
    "text", ["", "{", "1 2", "[1,]", "\u00a01", "nul", '{"a":1}x', '"a\tb"', '"a\nb"', '"\x00"']
)
def test_small_decoder_refuses_what_json_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        _json.loads(text)


def test_small_encoder_escapes_and_keeps_unicode() -> None:
    assert _json.dumps({"a\n": 'q"\\\t\x01é'}) == '{"a\\n":"q\\"\\\\\\t\\u0001é"}'
    assert _json.dumps("\udcff") == '"\\udcff"'  # a lone surrogate from an undecodable file name


def test_small_encoder_refuses_floats() -> None:
    with pytest.raises(TypeError):
        _json.dumps({"x": 1.5})


# Text as json.dumps writes it: without \b and \f, which json.dumps shortens and we spell \u0008 and
# \u000c, and without lone surrogates, which json.dumps leaves raw (a string UTF-8 cannot hold).
wire_text = st.text(st.characters(blacklist_characters="\b\f", blacklist_categories=("Cs",)))
wire_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | wire_text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(wire_text, children, max_size=4),
    max_leaves=20,
)


@given(wire_values)
def test_small_encoder_writes_what_json_writes_compactly(value: object) -> None:
    # The exact text of an answer: compact, non-ASCII kept, true and false as themselves (not 1 and 0).
    assert _json.dumps(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_small_encoder_escapes_exactly_what_json_requires() -> None:
    short = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    for code in range(0x80):
        char = chr(code)
        expected = short.get(char) or (f"\\u{code:04x}" if code < 0x20 else char)
        assert _json.dumps(char) == f'"{expected}"', hex(code)
    assert _json.dumps(True) == "true" and _json.dumps(False) == "false" and _json.dumps(None) == "null"


def test_small_encoder_escapes_lone_surrogates_and_nothing_beside_them() -> None:
    # An undecodable file name holds lone surrogates (U+D800 to U+DFFF); the characters just outside
    # that range are ordinary text and stay as they are.
    assert _json.dumps("\ud7ff\ud800\udfff\ue000") == '"\ud7ff\\ud800\\udfff\ue000"'


def test_state_files_keep_floats_and_unicode() -> None:
    assert _json.dumps_state({"ratio": 1.5, "né": ["ü"]}) == '{"ratio":1.5,"né":["ü"]}'


def test_small_decoder_reads_without_importing_json() -> None:
    # What the module is for: a hook's payload and our state files are read without `import json`.
    # A state file torn by a crash ("{}" and then zero bytes) is refused without it too.
    code = (
        "import sys\n"
        "from entire_core import _json\n"
        "assert _json.loads(b'{\"a\": [1, 2.5, null, true, \"\\\\u00e9\"]}') == {'a': [1, 2.5, None, True, 'é']}\n"
        "assert _json.loads(' [1] ') == [1]\n"
        "for broken in (b'', b'1 2', b'{}' + bytes(8)):\n"
        "    try:\n"
        "        _json.loads(broken)\n"
        "    except ValueError:\n"
        "        pass\n"
        "    else:\n"
        "        raise SystemExit(f'accepted {broken!r}')\n"
        "assert 'json' not in sys.modules, 'imported json'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
