"""The ``entire`` shim reads hook stdin and applies the CLI's gates before calling any plugin."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from sim_helpers import broken, make_sim


def _shim(
    sim_env: dict[str, str], repo: Path, stdin: bytes | None, *args: str
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["entire", "hooks", *args], input=stdin, stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True, cwd=repo, env=sim_env, timeout=60, check=False,
    )  # fmt: skip


def _setup(repo: Path, bin_dir: Path, marker: Path) -> dict[str, str]:
    broken(bin_dir)
    transcript = repo.parent / "t.jsonl"
    transcript.write_text("{}\n")
    sim = make_sim(repo, bin_dir, BROKEN_MARKER=str(marker), BROKEN_TRANSCRIPT=str(transcript))
    sim.install_shim(bin_dir)
    env = sim.env()
    env["PATH"] = f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"
    return env


def _parse_hook_ran(marker: Path) -> bool:
    return marker.exists() and "parse-hook" in marker.read_text()


def test_payload_reaches_the_plugin_as_one_value(repo: Path, bin_dir: Path, marker: Path) -> None:
    env = _setup(repo, bin_dir, marker)
    result = _shim(env, repo, b'\xef\xbb\xbf {"a": 1}\n{"second": 2}\n', "broken", "start")
    assert result.returncode == 0, result.stderr
    assert 'stdin: {"a": 1}\n' in marker.read_text()


def test_empty_or_non_json_stdin_never_reaches_the_plugin(repo: Path, bin_dir: Path, marker: Path) -> None:
    env = _setup(repo, bin_dir, marker)
    for stdin, message in ((None, b"empty hook input"), (b"  \n", b"empty hook input"),
                           (b"not json", b"failed to parse hook input")):  # fmt: skip
        result = _shim(env, repo, stdin, "broken", "start")
        assert result.returncode == 1 and message in result.stderr
    assert not _parse_hook_ran(marker)


def test_gates_exit_quietly(repo: Path, bin_dir: Path, marker: Path, tmp_path: Path) -> None:
    env = _setup(repo, bin_dir, marker)
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    unknown = b'unknown agent "broken" (not found as built-in or external plugin)\n'
    assert (
        _shim(env, outside, b"{}", "broken", "start").returncode,
        _shim(env, outside, b"{}", "broken", "start").stderr,
    ) == (1, unknown)
    (repo / ".entire" / "settings.local.json").write_text('{"enabled": false}')
    assert _shim(env, repo, None, "broken", "start").returncode == 0  # not enabled: stdin is not even read
    (repo / ".entire" / "settings.local.json").write_text('{"external_agents": false}')
    off = _shim(env, repo, b"{}", "broken", "start")
    assert (off.returncode, off.stderr) == (1, unknown)  # v0.10.3: no plugin is looked for
    assert not _parse_hook_ran(marker)


def test_an_unknown_agent_fails_and_an_unknown_hook_is_a_quiet_no_op(
    repo: Path, bin_dir: Path, marker: Path
) -> None:
    env = _setup(repo, bin_dir, marker)
    nope = _shim(env, repo, b"{}", "nope", "start")
    assert (nope.returncode, nope.stderr) == (
        1,
        b'unknown agent "nope" (not found as built-in or external plugin)\n',
    )
    quiet = _shim(env, repo, b"{}", "broken", "nope")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"", b"")
    assert not _parse_hook_ran(marker)


def test_does_not_wait_for_end_of_file(repo: Path, bin_dir: Path, marker: Path) -> None:
    env = _setup(repo, bin_dir, marker)
    proc = subprocess.Popen(["entire", "hooks", "broken", "start"], stdin=subprocess.PIPE, cwd=repo, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    assert proc.stdin is not None
    try:
        proc.stdin.write(b'{"session_id": "s"}')
        proc.stdin.flush()
        assert proc.wait(timeout=30) == 0  # the pipe is still open: the shim must not wait for its end
    finally:
        proc.stdin.close()
        proc.kill()
        proc.wait()
