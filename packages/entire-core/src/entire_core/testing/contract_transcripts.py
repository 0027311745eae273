"""``TranscriptsContract``: the contract kit's standard tests of transcript bytes on the wire.

``read-transcript`` byte for byte and within the CLI's limit, and chunking and reassembly in
standard base64.
"""

from __future__ import annotations

import base64
import json

import pytest

from entire_core.testing.checks import Env
from entire_core.testing.contract_base import ContractBase


class TranscriptsContract(ContractBase):
    """Standard tests of reading, chunking and reassembling transcripts."""

    def test_read_transcript_is_byte_exact(self, env: Env) -> None:
        data = b'{"a": 1}\r\n{"b": "\xc3\xa9"}\n\xff\xfe\x00 no final newline'
        path = env.repo / "t.jsonl"
        path.write_bytes(data)
        assert env.call("read-transcript", "--session-ref", str(path)) == data

    def test_read_transcript_over_the_cli_limit_fails(self, env: Env) -> None:
        path = env.repo / "big.jsonl"
        path.write_bytes(b'{"x": "' + b"a" * (10 * 1024 * 1024) + b'"}\n')
        assert b"10" in env.fails("read-transcript", "--session-ref", str(path)).stderr
        env.fails("read-transcript", "--session-ref", str(env.repo / "missing.jsonl"))

    @pytest.mark.parametrize(
        "content",
        [b"", b"x", b"line\n" * 200, b"a\r\nb\r\n", b"no newline at end", b"\n\n\n", bytes(range(256)) * 9],
    )
    def test_chunk_and_reassemble(self, env: Env, content: bytes) -> None:
        for max_size in (1, 7, 512, 1 << 20):
            chunks: list[str] = (
                env.call("chunk-transcript", "--max-size", str(max_size), stdin=content)["chunks"] or []
            )
            decoded = [base64.b64decode(c, validate=True) for c in chunks]
            assert all(len(c) <= max_size for c in decoded)
            if len(content) > max_size:
                assert len(decoded) >= 2
            elif content:
                assert len(decoded) == 1
            joined = env.call("reassemble-transcript", stdin=json.dumps({"chunks": chunks}).encode())
            assert joined == content

    def test_chunk_rejects_bad_sizes(self, env: Env) -> None:
        for size in ("0", "-5", "abc", "1.5", ""):
            env.fails("chunk-transcript", "--max-size", size, stdin=b"test")

    def test_reassemble_accepts_null_and_empty(self, env: Env) -> None:
        assert env.call("reassemble-transcript", stdin=b'{"chunks": null}') == b""
        assert env.call("reassemble-transcript", stdin=b'{"chunks": []}') == b""

    def test_base64_is_standard_alphabet(self, env: Env) -> None:
        chunks = env.call("chunk-transcript", "--max-size", "100", stdin=b"\xfb\xff\xfe\x3e\x3f")["chunks"]
        assert chunks == ["+//+Pj8="]
