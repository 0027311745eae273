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


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le"])
def test_small_decoder_reads_the_encodings_json_detects(encoding: str) -> None:
    data = json.dumps({"a": ["\u00e9", 1]}, ensure_ascii=False).encode(encoding)
    assert _json.loads(data) == json.loads(data) == {"a": ["\u00e9", 1]}


@given(st.binary(max_size=40))
def test_small_decoder_reads_bytes_as_json_does(data: bytes) -> None:
    try:
        expected: object = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        with pytest.raises(ValueError):
            _json.loads(data)
        return
    assert repr(_json.loads(data)) == repr(expected)  # NaN is not equal to itself


@pytest.mark.parametrize("text", ["", "{", "1 2", "[1,]", "\u00a01", "nul", '{"a":1}x'])
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
