"""PATH discovery as the newest CLI does it."""

from __future__ import annotations

import os
from pathlib import Path

from entire_sim import discovery
from sim_helpers import broken, launcher


def test_name_derivation() -> None:
    assert discovery.derive_name("entire-agent-foo") == "foo"
    assert discovery.derive_name("entire-agent-foo.EXE") == "foo"
    assert discovery.derive_name("entire-agent-foo.cmd") == "foo"
    assert discovery.derive_name("entire-agent-") == ""
    assert discovery.derive_name("other") == ""


def test_scan_rules(tmp_path: Path, marker: Path) -> None:
    first, second, relative = tmp_path / "first", tmp_path / "second", tmp_path / "relative"
    broken(first, "dup")
    broken(second, "dup")  # shadowed by the first occurrence
    broken(second, "codex")  # a built-in name: must never run
    broken(second, "solo.exe")
    broken(relative, "rel")
    (second / "entire-agent-noexec").write_text("#!/bin/sh\n")
    (second / "entire-agent-dir").mkdir()
    env = {"BROKEN_MARKER": str(marker), "PATH": "/usr/bin:/bin"}
    path = os.pathsep.join([str(first), "relative", str(second)])
    found = discovery.discover(path, None, env)
    assert [(p.name, Path(p.path).parent) for p in found.plugins] == [("dup", first), ("solo", second)]
    assert found.shadowed == ["codex"]
    assert any("built-in" in w for w in found.warnings)
    assert sorted(f.split(": ")[1] for f in found.failures) == ["is a directory", "not executable"]
    assert marker.read_text().count("info") == 2  # dup and solo only: never the built-in, never the relative


def test_named_lookup_refuses_built_ins_and_separators(tmp_path: Path) -> None:
    launcher(tmp_path, "codex", "print('{}')")
    for name, message in (("codex", "built-in"), ("a/b", "invalid"), ("missing", "not found")):
        try:
            discovery.find(name, str(tmp_path), None, {})
        except LookupError as exc:
            assert message in str(exc)
        else:
            raise AssertionError(name)
