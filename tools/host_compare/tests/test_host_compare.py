"""tools/host_compare: its one-line skip without a host, and how it judges what a checkpoint stored."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = Path(__file__).resolve().parents[1] / "host_compare.py"


def load() -> Any:
    spec = importlib.util.spec_from_file_location("host_compare", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("ENTIRE_BIN", "ENTIRE_HOST")}
    return subprocess.run(
        [sys.executable, str(SCRIPT)], cwd=tmp_path, env={**clean, **env}, capture_output=True, text=True
    )


def test_without_a_host_it_says_so_in_one_line_and_passes(tmp_path: Path) -> None:
    done = run(tmp_path)
    assert done.returncode == 0
    assert done.stdout == "host_compare: skipped: needs ENTIRE_BIN=<path of the real Entire CLI binary>\n"
    assert done.stderr == ""


def test_without_a_host_it_fails_when_one_is_required(tmp_path: Path) -> None:
    done = run(tmp_path, ENTIRE_HOST="1", ENTIRE_BIN=str(tmp_path / "missing"))
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == "host_compare: skipped: needs ENTIRE_BIN=<path of the real Entire CLI binary>\n"


TURN = {
    "commit": "abc",
    "prompts": ["make a.txt"],
    "replies": ["Done: a.txt"],
    "files": ["a.txt"],
    "session_sha256": "s1",
    "session_bytes": 10,
    "other_files": {"s1": "parent.jsonl", "s2": "child.jsonl"},
}
USAGE = {"input_tokens": 10, "cache_read_tokens": 2, "output_tokens": 3, "api_call_count": 1}
WANT = {**USAGE, "subagent_tokens": {**USAGE, "input_tokens": 5}}


def stored(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "checkpoint": "01ABC",
        "sessions": 1,
        "prompt": "make a.txt",
        "files_touched": ["a.txt"],
        "token_usage": {**WANT, "cache_creation_tokens": 0},
        "full_sha256": "s1",
        "full_bytes": 10,
        "transcript": '{"type":"user","content":[{"text":"make a.txt"}]}\n'
        '{"type":"assistant","content":[{"text":"Done: a.txt"}]}\n',
    }
    record.update(changes)
    return record


def test_a_checkpoint_as_scripted_passes_every_field() -> None:
    verdict = load().judge(TURN, stored(), WANT)
    assert {field: ok for field, (ok, _) in verdict.items()} == dict.fromkeys(
        ["checkpoint", "prompt.txt", "files_touched", "token_usage", "full.jsonl", "transcript.jsonl"], True
    )


def test_each_wrong_field_fails_and_shows_what_was_stored() -> None:
    judge = load().judge
    assert judge(TURN, stored(token_usage=USAGE), WANT)["token_usage"] == (False, "10/2/3/1")
    assert judge(TURN, stored(prompt="make a.txt\n\n---\n\nchild"), WANT)["prompt.txt"][0] is False
    assert judge(TURN, stored(files_touched=[]), WANT)["files_touched"] == (False, "[]")
    assert judge(TURN, stored(full_sha256="s2", full_bytes=7), WANT)["full.jsonl"] == (
        False,
        "7 bytes, the file child.jsonl",
    )
    empty = '{"type":"user","content":[{"text":""}]}\n'
    assert judge(TURN, stored(transcript=empty), WANT)["transcript.jsonl"] == (
        False,
        "0/1 prompts, 0/1 replies",
    )
    assert judge(TURN, stored(sessions=0), WANT) == {"checkpoint": (False, "checkpoint without a session")}
    assert judge(TURN, stored(checkpoint=None, sessions=0), WANT) == {"checkpoint": (False, "no checkpoint")}


def test_render_prints_both_tables_from_a_saved_run(tmp_path: Path) -> None:
    """``--render`` (the README's second command) prints the tables of a ``--json`` file and runs nothing."""
    other = {**TURN, "commit": None}
    scripted = json.loads((SCRIPT.parent / "expected.json").read_text(encoding="utf-8"))["openai-codex"][0]
    side = {
        "turns": [TURN, other],
        "stored": [stored(token_usage=scripted), {"checkpoint": None}],
        "errors": [],
        "same_every_run": True,
    }
    wrong = {**side, "stored": [stored(token_usage=None), {"checkpoint": None}]}
    per = {"built-in 0": [10.0, 12.0], "built-in 1": [10.0, 20.0], "ours 1": [30.0, 50.0],
           "built-in all": [10.0], "ours all": [40.0]}  # fmt: skip
    dump = {
        "host": "Entire CLI dev\nGo version: go1.26",
        "checkout": "abc123",
        "runs": 2,
        "agents": {"codex": {"built-in": wrong, "ours": side}},
        "timing": {"codex": {"`session-end` (3/3)": per}},
    }
    saved = tmp_path / "run.json"
    saved.write_text(json.dumps(dump), encoding="utf-8")
    clean = {k: v for k, v in os.environ.items() if k not in ("ENTIRE_BIN", "ENTIRE_HOST")}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--render", str(saved)],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(
        "Host: `entire` Entire CLI dev (ENTIRE_BIN); our plugins from the wheels of checkout abc123"
    )
    assert "| `codex` / `openai-codex` | token_usage | 1 **FAIL** none; 2 - | 1 ok; 2 - |" in lines
    assert "| codex | `session-end` (3/3) | 10 / 11 / 12 | 10 / 15 / 20 | 30 / 40 / 50 | 2.50 / **2.75** / 3.00 " \
        "| 10 / 10 / 10 | 40 / 40 / 40 | 4.00 / **4.00** / 4.00 |" in lines  # fmt: skip
    assert lines[-1] == "1 stored field(s) differ from the scripted sessions (first run, 1 plugin on PATH)"
