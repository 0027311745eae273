"""The pydantic-free answers (types.py, _json.py, _digest.py) produce exactly what the pydantic wire models accept.

_json's own encoder and decoder tests are in test_small_json.py."""

from __future__ import annotations

import hashlib
import json

import pytest
from entire_core import _digest, _json, protocol
from entire_core.types import Event, TokenUsage, normalize_timestamp, rfc3339
from hypothesis import given
from hypothesis import strategies as st

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=20,
)


@given(st.binary(max_size=300))
def test_small_sha256_is_hashlibs(data: bytes) -> None:
    # Directory and scratch file names are made of it: the same bytes must keep the same names.
    assert _digest.sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_event_fields_match_the_wire_model() -> None:
    assert set(Event.__slots__) == set(protocol.Event.model_fields)


def test_token_usage_fields_match_the_wire_model() -> None:
    assert set(TokenUsage.__slots__) == set(protocol.TokenUsage.model_fields)


identifiers = st.from_regex(r"[A-Za-z0-9_-]{0,12}", fullmatch=True)


@given(
    type=st.integers(1, 9),
    session_id=st.text(min_size=1),
    prompt=st.text(),
    tool_use_id=identifiers,
    metadata=st.dictionaries(st.text(), st.text(), max_size=3),
    tool_input=json_values,
    stamp=st.datetimes(timezones=st.timezones()),
)
def test_events_validate_strictly(
    type: int,
    session_id: str,
    prompt: str,
    tool_use_id: str,
    metadata: dict[str, str],
    tool_input: object,
    stamp: object,
) -> None:
    from datetime import datetime

    assert isinstance(stamp, datetime)
    event = Event(
        type, session_id, prompt=prompt, tool_use_id=tool_use_id, metadata=metadata, tool_input=tool_input,
        timestamp=rfc3339(stamp),
    )  # fmt: skip
    text = _json.dumps(event.to_wire())
    parsed = protocol.Event.model_validate_json(text, strict=True)
    assert parsed.type == type and parsed.session_id == session_id and parsed.prompt == prompt


@given(st.lists(st.integers(0, 2**40), min_size=6, max_size=6), st.booleans())
def test_token_usage_validates_strictly(counts: list[int], nested: bool) -> None:
    usage = TokenUsage(*counts[:5], cache_creation_1h_tokens=counts[5])
    if nested:
        usage.subagent_tokens = TokenUsage(*counts[:5])
    model = protocol.TokenUsage.model_validate_json(_json.dumps(usage.to_wire()), strict=True)
    assert model.input_tokens == counts[0] and (model.subagent_tokens is not None) == nested


def test_token_usage_adds_nested_usage() -> None:
    total = TokenUsage(1, 2, 3, 4, 1) + TokenUsage(10, 0, 0, 5, 2, subagent_tokens=TokenUsage(7, 0, 0, 1, 1))
    assert total.to_wire() == {
        "input_tokens": 11, "cache_creation_tokens": 2, "cache_read_tokens": 3, "output_tokens": 9,
        "api_call_count": 3,
        "subagent_tokens": {"input_tokens": 7, "cache_creation_tokens": 0, "cache_read_tokens": 0,
                            "output_tokens": 1, "api_call_count": 1},
    }  # fmt: skip
    assert TokenUsage().is_zero() and not total.is_zero()


@pytest.mark.parametrize(
    ("given_value", "expected"),
    [
        ("2026-11-30T03:02:53.123456789Z", "2026-11-30T03:02:53.123456789Z"),
        ("2026-11-30t03:02:53z", "2026-11-30T03:02:53Z"),
        ("2026-11-30 03:02:53+01:00", "2026-11-30T03:02:53+01:00"),
        ("2026-11-30T03:02:53+0100", "2026-11-30T03:02:53+01:00"),
        ("2026-11-30T03:02:53", ""),
        ("2026-11-30", ""),
        ("2026-13-30T03:02:53Z", ""),
        ("yesterday", ""),
        ("", ""),
    ],
)
def test_normalize_timestamp(given_value: str, expected: str) -> None:
    assert normalize_timestamp(given_value) == expected
    if expected:
        protocol.Event.model_validate({"type": 1, "timestamp": expected}, strict=True)


def test_base64_matches_go() -> None:
    session = protocol.AgentSession(native_data=bytes.fromhex("fbfffe3e3f"))
    assert json.loads(session.model_dump_json())["native_data"] == "+//+Pj8="
    back = protocol.AgentSession.model_validate_json('{"native_data": "+//+Pj8="}')
    assert back.native_data == bytes.fromhex("fbfffe3e3f")
    for bad in ('"-__-Pj8="', '"+//+Pj8"', '"%%%"'):
        with pytest.raises(ValueError):
            protocol.AgentSession.model_validate_json('{"native_data": ' + bad + "}")


def test_agent_session_accepts_what_the_cli_sends() -> None:
    sent = ('{"session_id":"s","agent_name":"x","repo_path":"","session_ref":"/r","start_time":"0001-01-01T00:00:00Z",'
            '"native_data":null,"modified_files":null,"new_files":null,"deleted_files":null}')  # fmt: skip
    session = protocol.AgentSession.model_validate_json(sent)
    assert session.modified_files == [] and session.native_data is None
    answer = json.loads(session.model_dump_json())
    assert answer["modified_files"] == [] and answer["new_files"] == [] and answer["deleted_files"] == []


def test_strict_answers_refuse_what_go_refuses() -> None:
    with pytest.raises(ValueError):
        protocol.PositionResponse.model_validate_json('{"position": 5.0}', strict=True)
    with pytest.raises(ValueError):
        protocol.Event.model_validate_json('{"type": 1, "metadata": {"a": 1}}', strict=True)
    with pytest.raises(ValueError):
        protocol.Event.model_validate_json('{"type": 1, "timestamp": "2026-01-01T00:00:00"}', strict=True)
    with pytest.raises(ValueError):
        protocol.Event.model_validate_json('{"type": 10}', strict=True)
    with pytest.raises(ValueError):
        protocol.Event.model_validate_json('{"type": 7, "subagent_id": "a/b"}', strict=True)


def test_rfc3339_of_historical_zones() -> None:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    lmt = ZoneInfo("Africa/Addis_Ababa")  # local mean time before 1936: an offset with seconds
    assert rfc3339(datetime(1915, 1, 1, tzinfo=ZoneInfo("Africa/Accra"))) == "1915-01-01T00:00:52Z"
    assert rfc3339(datetime(1, 1, 1, tzinfo=lmt)) == "0001-01-01T00:00:00+02:34"  # UTC would be year 0
    for text in (rfc3339(datetime(1, 1, 1, tzinfo=lmt)), rfc3339(datetime(9999, 12, 31, 23, 59, tzinfo=lmt))):
        protocol.Event.model_validate({"type": 1, "timestamp": text}, strict=True)


def test_record_of_reads_a_wrapped_line_or_the_agents_own() -> None:
    from entire_core.views import record_of

    native = b'{"role":"user","id":"m1"}'
    assert record_of(native) == {"role": "user", "id": "m1"}
    wrapped = b'{"type":"native","timestamp":null,"native":{"role":"user","id":"m1"}}'
    assert record_of(wrapped) == {"role": "user", "id": "m1"}
    assert record_of(b"") == {} and record_of(b"  ") == {} and record_of(b"{not json") == {}
    assert record_of(b"[1, 2]") == {}
