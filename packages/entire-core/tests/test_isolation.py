"""The test kit keeps tests off their machine: confined homes, whole process groups ended, canaries checked."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from entire_core.testing import isolation
from entire_core.testing.hostile import CANARY_ENV, CANARY_PAYLOADS

posix_only = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")


def _gone(pid: int, within: float = 10.0) -> bool:
    """True once ``pid`` no longer runs (gone, or a zombie waiting for its new parent to reap it)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state == "Z":
            return True
        time.sleep(0.02)
    return False


def _background_sleep(pidfile: Path, then: str) -> list[str]:
    """A shell that starts a grandchild ``sleep``, writes its pid, then runs ``then``."""
    return ["sh", "-c", f'sleep 60 & echo $! > "{pidfile}"; {then}']


def test_every_process_a_test_starts_has_a_home_and_temp_inside_a_temporary_directory() -> None:
    shown = subprocess.run(
        ["sh", "-c", 'printf "%s\\n" "$HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_DATA_HOME" '
                     '"$XDG_STATE_HOME" "$TMPDIR" "$PWD"'],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    assert len(shown) == 7 and all(isolation.inside_temp(path) for path in shown), shown
    assert Path(os.environ["HOME"], ".gitconfig").read_text() == isolation.GIT_IDENTITY


def test_a_process_given_no_home_gets_the_tests_home_not_the_real_one() -> None:
    shown = subprocess.run([sys.executable, "-c", "import os; print(os.path.expanduser('~'))"],
                           env={"PATH": os.environ["PATH"]}, capture_output=True, text=True, check=True)  # fmt: skip
    assert shown.stdout.strip() == os.environ["HOME"]


@pytest.mark.parametrize(
    ("env", "cwd", "named"),
    [
        ({"HOME": "/"}, None, "HOME=/"),
        ({"HOME": "", "XDG_DATA_HOME": "/usr/share"}, None, "XDG_DATA_HOME=/usr/share"),
        ({"TMPDIR": "/var"}, None, "TMPDIR=/var"),
        (None, Path(__file__).parent, "working directory"),
        (None, Path(__file__).parents[3], "working directory"),  # the checkout itself
        (None, "/", "working directory /"),
    ],
)
def test_a_process_that_could_write_outside_a_temporary_directory_is_refused(
    env: dict[str, str] | None, cwd: Path | str | None, named: str
) -> None:
    full_env = None if env is None else {"PATH": os.environ["PATH"], **env}
    with pytest.raises(isolation.UnconfinedProcess, match=f"with {named}"):
        subprocess.run(["true"], env=full_env, cwd=cwd, check=False)


def test_a_checkout_inside_the_temporary_directory_is_kept_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # CI may clone into /tmp: the checkout is then inside the system's temporary directory.
    checkout = tmp_path / "clone"
    (checkout / "sub").mkdir(parents=True)
    monkeypatch.setattr(isolation, "_KEPT_OUT", [os.path.realpath(checkout)])
    assert isolation.inside_temp(tmp_path / "clone-beside")
    assert not isolation.inside_temp(checkout)
    assert not isolation.inside_temp(checkout / "sub")
    with pytest.raises(isolation.UnconfinedProcess, match="with working directory"):
        subprocess.run(["true"], cwd=checkout / "sub", check=False)
    nearer = checkout / "sub" / "scratch"  # an allowed directory nearer than the checkout decides
    monkeypatch.setattr(isolation, "_TEMP_ROOTS", [*isolation._TEMP_ROOTS, os.path.realpath(nearer)])
    assert isolation.inside_temp(nearer / "x")
    assert not isolation.inside_temp(nearer)


def test_the_system_temporary_directory_itself_is_not_inside_one() -> None:
    assert not isolation.inside_temp(os.environ[isolation.SYSTEM_TMP_MARK])
    assert isolation.inside_temp(Path(os.environ[isolation.SYSTEM_TMP_MARK]) / "x")
    assert not isolation.inside_temp(os.environ[isolation.SYSTEM_TMP_MARK] + "-not-inside")


@posix_only
def test_a_timeout_ends_the_whole_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild"
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run(_background_sleep(pidfile, "wait"), timeout=1, check=False)
    assert _gone(int(pidfile.read_text()))


@posix_only
def test_a_grandchild_left_behind_is_killed_once_its_leader_has_exited(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild"
    subprocess.run(_background_sleep(pidfile, "exit 0"), check=True)
    grandchild = int(pidfile.read_text())
    assert not _gone(grandchild, within=0.2)
    assert isolation.end_orphaned_groups() >= 1
    assert _gone(grandchild)


@posix_only
def test_a_running_leader_keeps_its_group_until_it_ends(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild"
    leader = subprocess.Popen(_background_sleep(pidfile, "read line"), stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 10
        while not pidfile.exists() or not pidfile.read_text().strip():
            assert time.monotonic() < deadline
            time.sleep(0.02)
        isolation.end_orphaned_groups()
        assert leader.poll() is None and not _gone(int(pidfile.read_text()), within=0.2)
    finally:
        leader.kill()
        leader.communicate()
    assert _gone(int(pidfile.read_text()))


@posix_only
def test_a_caller_that_chooses_its_own_session_keeps_the_ordinary_kill(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild"
    leader = subprocess.Popen(_background_sleep(pidfile, "wait"), start_new_session=True)
    deadline = time.monotonic() + 10
    while not pidfile.exists() or not pidfile.read_text().strip():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    leader.kill()
    leader.wait()
    grandchild = int(pidfile.read_text())
    try:
        assert not _gone(grandchild, within=0.2)
    finally:
        os.killpg(leader.pid, 9)
    assert _gone(grandchild)


def test_the_canary_of_this_test_lies_in_its_own_directory() -> None:
    canary = Path(os.environ[CANARY_ENV])
    assert canary.parent == Path.cwd() and not canary.exists()
    assert isolation.inside_temp(canary)


def test_every_payload_would_create_the_canary_if_a_shell_ran_it(tmp_path: Path) -> None:
    for payload in CANARY_PAYLOADS:
        canary = tmp_path / "canary"
        subprocess.run(["sh", "-c", payload], env={**os.environ, CANARY_ENV: str(canary)},
                       capture_output=True, check=False)  # fmt: skip
        assert canary.exists(), payload
        canary.unlink()


INNER_TESTS = """
import os, subprocess

def test_runs_a_payload():
    subprocess.run(["sh", "-c", 'x; touch "$ENTIRE_TEST_CANARY"'], check=False)

def test_runs_nothing():
    pass
"""


def test_a_test_whose_payload_ran_in_a_shell_fails(tmp_path: Path) -> None:
    (tmp_path / "test_inner.py").write_text(INNER_TESTS)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "entire_core.testing.pytest_plugin", "-q", "-p", "no:cacheprovider",
         "test_inner.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "ERROR test_inner.py::test_runs_a_payload" in done.stdout
    assert "a hostile test payload ran in a shell" in done.stdout
    assert "2 passed, 1 error" in done.stdout  # the test itself passes; its teardown fails


def test_isolation_keeps_the_real_caches_by_name(tmp_path: Path) -> None:
    real = {"HOME": "/home/me", "PATH": "/usr/bin"}
    (tmp_path / "home").mkdir()
    env = isolation.isolated_environ(tmp_path, real)
    assert env["UV_CACHE_DIR"] == "/home/me/.cache/uv"
    assert env["ENTIRE_E2E_CACHE"] == "/home/me/.cache/entire-agents-e2e"
    assert env["npm_config_cache"] == "/home/me/.npm" and env["GOPATH"] == "/home/me/go"
    assert env["HOME"] == str(tmp_path / "home") and env["TMPDIR"] == str(tmp_path / "tmp")
    assert "PYENV_ROOT" not in env  # /home/me/.pyenv does not exist
    named = isolation.isolated_environ(tmp_path, {**real, "XDG_CACHE_HOME": "/c", "UV_CACHE_DIR": "/u"})
    assert named["UV_CACHE_DIR"] == "/u" and named["ENTIRE_E2E_CACHE"] == "/c/entire-agents-e2e"
