"""The front (``entire_core.front``): when it takes the launcher's place, and when it hands calls to Python.

Its answers are compared with Python's for every agent by the contract kit
(``test_front_answers_as_python_does``); the installs that put it in place are ``make smoke``'s.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from entire_core import commands, front
from entire_core.cli_stdio import encode_answer
from entire_core.testing.frontcheck import installed_dist, write_front
from entire_core.testing.sample_agent import SampleAgent, ViewedSampleAgent


def _launcher(bin_dir: Path, python: str = sys.executable) -> Path:
    """An ``entire-agent-sample`` as pip writes it."""
    path = bin_dir / "entire-agent-sample"
    path.write_text(
        f"#!{python}\n# -*- coding: utf-8 -*-\nimport re\nimport sys\nfrom entire_core import main\n"
        "if __name__ == '__main__':\n    sys.exit(main())\n",
        encoding="utf-8",
    )
    path.chmod(0o751)
    return path


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A launcher in ``tmp_path/bin``, this process started from it, its packages taken as installed."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    launcher = _launcher(bin_dir)
    dist = installed_dist(tmp_path / "entire_core-0.1.0.dist-info")
    monkeypatch.setattr(sys, "argv", [str(launcher), "info"])
    monkeypatch.setattr(front, "_installed", lambda module_file: True)
    monkeypatch.setattr(front, "_dist_info", lambda module_file, package: str(dist))
    return launcher


def _info_of(agent_cls: type[SampleAgent]) -> bytes:
    return encode_answer(commands.info(agent_cls(), None, b""))  # pyright: ignore[reportArgumentType]


def test_adopt_writes_the_front_over_the_launcher_keeping_its_mode(
    installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(front, "site_path", lambda: ("/usr/lib/python3.11", "/site-packages"))
    assert front.adopt(ViewedSampleAgent)
    text = installed.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/sh\n" + front.MARK)
    assert " -S -P -c " in text and "/site-packages" in text, "Python without site, given site's path"
    assert installed.stat().st_mode & 0o777 == 0o751
    done = subprocess.run([str(installed), "info"], capture_output=True, check=False, timeout=30)
    assert (done.returncode, done.stdout, done.stderr) == (0, _info_of(ViewedSampleAgent), b"")


@pytest.mark.parametrize(
    "why",
    [
        "windows",
        "started by a front",
        "editable install",
        "another interpreter",
        "not our launcher",
        "no dist-info",
    ],
)
def test_adopt_leaves_the_launcher_where_it_cannot_or_should_not_swap(
    installed: Path, monkeypatch: pytest.MonkeyPatch, why: str
) -> None:
    if why == "windows":
        monkeypatch.setattr(sys, "platform", "win32")
    elif why == "started by a front":
        monkeypatch.setattr(sys, "argv", ["-c", "info"])
    elif why == "editable install":
        monkeypatch.setattr(front, "_installed", lambda module_file: False)
    elif why == "another interpreter":
        _launcher(installed.parent, "/usr/bin/env python3")
    elif why == "not our launcher":
        installed.write_text(installed.read_text().replace("entire_core", "someone_else"))
    else:
        monkeypatch.setattr(front, "_dist_info", lambda module_file, package: "")
    before = installed.read_bytes()
    assert not front.adopt(ViewedSampleAgent)
    assert installed.read_bytes() == before


def test_a_front_whose_packages_changed_hands_every_call_to_python(tmp_path: Path) -> None:
    """An upgrade of ``entire-core`` alone (its dist-info gone) or a reinstall (its RECORD newer than the
    front): the front's answers may be stale, so Python answers, and writes the front anew."""
    dist = installed_dist(tmp_path / "entire_core-0.1.0.dist-info")
    path = write_front(SampleAgent, "/nonexistent/python", tmp_path / "entire-agent-sample", dist)

    def info() -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([str(path), "info"], capture_output=True, check=False, timeout=30)

    assert info().stdout == _info_of(SampleAgent)
    (dist / "RECORD").write_bytes(b"reinstalled")
    assert info().returncode == 127, "a reinstalled package: handed to Python (here one that does not exist)"
    os.utime(dist / "RECORD", (1_000_000_000, 1_000_000_000))
    assert info().returncode == 0
    (dist / "RECORD").unlink()
    dist.rmdir()
    assert info().returncode == 127, "an upgraded package (its dist-info gone): handed to Python"


def test_a_stale_front_is_written_anew_by_the_python_it_hands_to(installed: Path) -> None:
    """A stale front starts Python as from itself (``sys.argv[0]`` its path), which writes it again."""
    assert front.adopt(ViewedSampleAgent)
    stale = installed.read_text(encoding="utf-8")
    assert "sys.argv[0] = " in stale and str(installed) in stale
    installed.write_text(stale.replace("ABCDEFG", "ABCDEF"), encoding="utf-8")  # as an older release's
    assert front.adopt(ViewedSampleAgent)
    assert installed.read_text(encoding="utf-8") == stale


def test_the_front_traces_its_calls_as_the_host_tests_record_them(tmp_path: Path) -> None:
    """``ENTIRE_PLUGIN_TRACE``: one JSON line per call, as Python writes it, marked ``"via": "front"``."""
    import json

    from entire_core._digest import sha256_hex

    dist = installed_dist(tmp_path / "d.dist-info")
    path = write_front(ViewedSampleAgent, "/nonexistent", tmp_path / "entire-agent-viewed-sample", dist)
    repo = tmp_path / "repo"
    repo.mkdir()
    trace = tmp_path / "trace.jsonl"
    env = {**os.environ, "ENTIRE_PLUGIN_TRACE": str(trace), "XDG_STATE_HOME": str(tmp_path / "state")}
    answers = [
        subprocess.run([str(path), *args], capture_output=True, env=env, check=True, timeout=30).stdout
        for args in (["info"], ["get-session-dir", "--repo-path", str(repo)])
    ]
    lines = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert [(r["subcommand"], r["args"], r["via"], r["code"]) for r in lines] == [
        ("info", [], "front", 0),
        ("get-session-dir", ["--repo-path", str(repo)], "front", 0),
    ]
    for record, answer in zip(lines, answers, strict=True):
        assert record["answer"].encode() == answer and record["answer_sha256"] == sha256_hex(answer)
        assert record["stdin_sha256"] == sha256_hex(b"") and record["host_pid"] == os.getpid()


def test_site_path_is_the_path_site_made_or_none_where_site_does_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import site

    packages = tmp_path / "site-packages"
    packages.mkdir()
    (packages / "editable.pth").write_text(str(tmp_path / "src") + "\n", encoding="utf-8")
    monkeypatch.setattr(site, "getsitepackages", lambda: [str(packages)])
    monkeypatch.setattr(site, "ENABLE_USER_SITE", False)
    monkeypatch.setattr(sys, "argv", [str(tmp_path / "bin" / "entire-agent-sample")])
    monkeypatch.setattr(sys, "path", [str(tmp_path / "bin"), "/usr/lib/python3.11", str(packages), str(tmp_path / "src"),
                                      str(tmp_path / "from-pythonpath")])  # fmt: skip
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "from-pythonpath"))
    monkeypatch.delitem(sys.modules, "sitecustomize", raising=False)
    monkeypatch.delitem(sys.modules, "usercustomize", raising=False)
    assert front.site_path() == ("/usr/lib/python3.11", str(packages), str(tmp_path / "src"))
    (packages / "hook.pth").write_text("import _virtualenv\n", encoding="utf-8")
    assert front.site_path() is None, "a .pth file's import line runs only under site"
    (packages / "hook.pth").unlink()
    monkeypatch.setitem(sys.modules, "sitecustomize", sys)
    assert front.site_path() is None, "sitecustomize runs only under site"
