"""Each way a plugin can break the protocol is reported, with the subcommand and the offending output."""

from __future__ import annotations

from pathlib import Path

import pytest
from entire_sim.plugin import CallFailed
from sim_helpers import broken, make_sim

HOOK_CASES = [
    ("float-type", "start", "cannot unmarshal number 3.0 into Go struct field type of type int"),
    ("string-type", "start", "cannot unmarshal string into Go struct field type of type int"),
    ("naive-timestamp", "start", "invalid timestamp"),
    ("metadata-int", "start", "cannot unmarshal number into Go struct field metadata[n] of type string"),
    ("bad-session-id", "start", "invalid session ID"),
    ("bad-tool-id", "start", "invalid tool_use_id"),
    ("unknown-type", "start", "unknown lifecycle event type: 12"),
    ("trailing-garbage", "start", "invalid character after top-level value"),
    ("two-values", "start", "invalid character after top-level value"),
    ("empty-parse-hook", "start", "unexpected end of JSON input"),
    ("turn-end-no-ref", "stop", "TurnEnd without session_ref"),
    ("turn-end-missing-ref", "stop", "session_ref does not exist"),
    ("turn-start-no-id", "prompt", "TurnStart without a session_id"),
    ("float-position", "prompt", "cannot unmarshal number 1.5 into Go struct field position of type int"),
    ("huge-transcript", "stop", "output exceeded 10485760 byte limit"),
    ("prompts-string", "stop", "cannot unmarshal string into Go struct field prompts of type []"),
    ("files-int", "stop", "cannot unmarshal number into Go struct field files[1] of type string"),
    ("tokens-string", "stop", "cannot unmarshal string into Go struct field input_tokens of type int"),
    ("silent-failure", "start", "exit status 3 with nothing on stderr"),
    ("traceback", "start", "error message is not one line"),
]


@pytest.mark.parametrize(("mode", "hook", "expected"), HOOK_CASES, ids=[c[0] for c in HOOK_CASES])
def test_hook_violations(repo: Path, bin_dir: Path, mode: str, hook: str, expected: str) -> None:
    transcript = repo.parent / "t.jsonl"
    transcript.write_text('{"line": 1}\n', encoding="utf-8")
    broken(bin_dir)
    sim = make_sim(repo, bin_dir, BROKEN_MODE=mode, BROKEN_TRANSCRIPT=str(transcript))
    sim.hook("broken", hook, b'{"session_id": "s"}')
    found = [v for v in sim.violations() if expected in v["message"]]
    assert found, f"no violation {expected!r} in {sim.violations()}"
    assert found[0]["subcommand"]
    if mode not in ("silent-failure", "traceback", "turn-end-no-ref", "turn-start-no-id", "turn-end-missing-ref",
                    "empty-parse-hook"):  # fmt: skip
        assert found[0]["output"], "the offending output is reported"


def test_a_correct_broken_plugin_run_has_no_violations(repo: Path, bin_dir: Path) -> None:
    # The control: the same plugin in its correct mode passes, so the cases above test the modes.
    transcript = repo.parent / "t.jsonl"
    transcript.write_text('{"line": 1}\n', encoding="utf-8")
    broken(bin_dir)
    (repo / "a.txt").write_text("changed\n", encoding="utf-8")
    sim = make_sim(repo, bin_dir, BROKEN_TRANSCRIPT=str(transcript))
    for hook in ("start", "prompt", "stop"):
        assert sim.hook("broken", hook, b"{}")["error"] is None
    assert sim.violations() == []
    [checkpoint] = sim.checkpoints()
    assert checkpoint["files"] == ["a.txt"]
    assert checkpoint["tokens"]["input_tokens"] == 10


def test_timeouts_are_enforced(repo: Path, bin_dir: Path) -> None:
    broken(bin_dir)
    sim = make_sim(repo, bin_dir, BROKEN_MODE="sleep")
    plugin = sim.plugin("broken")
    with pytest.raises(CallFailed, match="timed out"):
        plugin.run("detect", timeout=1)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("protocol-2", "protocol version mismatch: binary reports 2, expected 1"),
        ("info-bool-string", "cannot unmarshal string into Go struct field is_preview of type bool"),
    ],
)
def test_info_problems_keep_the_plugin_out(repo: Path, bin_dir: Path, mode: str, expected: str) -> None:
    broken(bin_dir)
    sim = make_sim(repo, bin_dir, BROKEN_MODE=mode)
    with pytest.raises(LookupError, match="entire-agent-broken is on PATH but not usable") as error:
        sim.plugin("broken")
    assert expected in str(error.value)


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("name-mismatch", "differs from the binary's name"), ("bad-hook-name", "is not a single CLI token")],
)
def test_info_warnings(repo: Path, bin_dir: Path, mode: str, expected: str) -> None:
    broken(bin_dir)
    plugin = make_sim(repo, bin_dir, BROKEN_MODE=mode)._discover("broken")
    assert any(expected in v.message for v in plugin.violations)


def test_url_safe_base64_chunks_are_refused(repo: Path, bin_dir: Path) -> None:
    broken(bin_dir)
    plugin = make_sim(repo, bin_dir).plugin("broken")
    with pytest.raises(CallFailed, match="illegal base64"):
        plugin.json("chunk-transcript", "--max-size", "10", stdin=b"\xff\xfe")
