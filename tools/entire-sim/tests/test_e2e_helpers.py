"""The loopback-only namespace the real-agent tests run in really has nothing but loopback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from entire_sim import e2e


@pytest.mark.e2e
def test_only_loopback_exists_inside() -> None:
    problem = e2e.loopback_namespace_problem()
    if problem:
        pytest.fail(problem)
    links = subprocess.run(e2e.in_loopback_namespace(["ip", "-o", "link"]), capture_output=True, check=True)
    assert [line.split(":")[1].strip() for line in links.stdout.decode().splitlines()] == ["lo"]
    probe = "import socket; s = socket.socket(); s.settimeout(2); s.connect(('192.0.2.1', 80))"
    outside = subprocess.run(e2e.in_loopback_namespace([sys.executable, "-c", probe]), capture_output=True)
    assert outside.returncode != 0 and b"unreachable" in outside.stderr.lower()


def test_cache_dir_is_named_or_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ENTIRE_E2E_CACHE", str(tmp_path / "named"))
    assert e2e.cache_dir() == tmp_path / "named"
    monkeypatch.delenv("ENTIRE_E2E_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert e2e.cache_dir() == tmp_path / "entire-agents-e2e"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert e2e.cache_dir() == Path.home() / ".cache" / "entire-agents-e2e"
