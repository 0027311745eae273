"""generate-text and doctor with a stand-in ``gemini`` on PATH (the real one runs in the e2e tests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from entire_agent_google_gemini import doctor
from entire_agent_google_gemini.agent import GeminiAgent
from entire_agent_google_gemini.versions import WINDOW
from entire_core import chain
from entire_core.doctor import Report
from entire_core.errors import AgentError
from entire_core.testing.host import fake_entire, fake_plugin
from entire_core.testing.killed import call_and_kill, hanging_agent, leftovers, started
from entire_core.testing.pytest_plugin import init_repository

FAKE = """#!{python}
import json, os, sys
home = os.environ.get("GEMINI_CLI_HOME", "")
record = {{"argv": sys.argv[1:], "cwd": os.getcwd(), "stdin": sys.stdin.read() if "-p" in sys.argv else "",
          "no_browser": os.environ.get("NO_BROWSER"), "trust": os.environ.get("GEMINI_CLI_TRUST_WORKSPACE"),
          "home": home, "links": {{os.path.relpath(os.path.join(d, n), home): os.readlink(os.path.join(d, n))
                                  for d, ds, fs in os.walk(home) for n in ds + fs
                                  if os.path.islink(os.path.join(d, n))}} if home else {{}}}}
if home and "-p" in sys.argv:  # what Gemini records of a run, in the home it is given
    os.makedirs(os.path.join(home, ".gemini", "tmp", "run", "chats"))
    with open(os.path.join(home, ".gemini", "tmp", "run", "chats", "session-1.jsonl"), "w") as f:
        f.write(record["stdin"])
with open({log!r}, "a") as f:
    f.write(json.dumps(record) + "\\n")
mode = os.environ.get("FAKE_GEMINI", "ok")
if "--version" in sys.argv:
    print(os.environ.get("FAKE_GEMINI_VERSION", "0.61.0"))
elif mode == "ok":
    print(json.dumps({{"session_id": "x", "response": "  A short sentence.  ", "stats": {{}}}}, indent=2))
elif mode == "empty":
    print(json.dumps({{"session_id": "x", "response": ""}}))
else:
    sys.stderr.write("Warning: something\\n" + json.dumps({{"session_id": "x", "error": {{"type": "Error",
                     "message": "Invalid auth method selected.", "code": 41}}}}, indent=2) + "\\n")
    sys.exit(41)
"""


@pytest.fixture
def fake_gemini(tmp_path: Path) -> tuple[Path, Path]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "gemini-calls.jsonl"
    script = bin_dir / "gemini"
    script.write_text(FAKE.format(python=sys.executable, log=str(log)))
    script.chmod(0o755)
    return bin_dir, log


def make_agent(repo: Path, home: Path, bin_dir: Path, *, git: bool = True, **env: str) -> GeminiAgent:
    if git and not (repo / ".git").exists():
        init_repository(repo)
    base = {"ENTIRE_REPO_ROOT": str(repo), "HOME": str(home), "PATH": f"{bin_dir}:/usr/bin:/bin"}
    return GeminiAgent(env={**base, **env}, cwd=str(repo))


def ready_host(repo: Path, bin_dir: Path) -> None:
    """A stand-in ``entire`` that finds the plugin: external agents on in the repository."""
    fake_entire(bin_dir)
    fake_plugin(bin_dir, "google-gemini")
    (repo / ".entire").mkdir(exist_ok=True)
    (repo / ".entire" / "settings.json").write_text('{"enabled": true, "external_agents": true}')


def test_generate_text_runs_gemini_headless_outside_the_repo(
    repo: Path, home: Path, fake_gemini: tuple[Path, Path], tmp_path: Path
) -> None:
    bin_dir, log = fake_gemini
    user_gemini = home / ".gemini"
    for name in ("settings.json", "oauth_creds.json", ".env", "projects.json"):
        (user_gemini / name).parent.mkdir(parents=True, exist_ok=True)
        (user_gemini / name).write_text("{}")
    (user_gemini / "tmp" / "bin").mkdir(parents=True)
    (user_gemini / "tmp" / "myproject").mkdir()
    (home / ".env").write_text("GEMINI_API_KEY=k\n")
    before = sorted(str(p) for p in home.rglob("*"))
    tmp = tmp_path / "user-tmp"
    tmp.mkdir()
    agent = make_agent(repo, home, bin_dir, GEMINI_API_KEY="k", TMPDIR=str(tmp))
    assert agent.generate_text("Summarise this.\nLine two.", "gemini-2.5-flash") == "A short sentence."
    call = json.loads(log.read_text().splitlines()[-1])
    assert call["argv"] == ["-p", "", "--output-format", "json", "--extensions", "none",
                            "--model", "gemini-2.5-flash"]  # fmt: skip
    assert call["stdin"] == "Summarise this.\nLine two."
    scratch = Path(call["home"]).parent
    assert scratch.parent == tmp and call["cwd"] == str(scratch / "run")  # never the repository
    assert (call["no_browser"], call["trust"]) == ("true", "true")  # no browser; our empty folder trusted
    # A private home: the user's Gemini files linked, but not where Gemini records a run.
    assert call["links"] == {
        ".env": str(home / ".env"),
        **{f".gemini/{n}": str(user_gemini / n) for n in (".env", "oauth_creds.json", "settings.json")},
        ".gemini/tmp/bin": str(user_gemini / "tmp" / "bin"),
    }
    assert sorted(str(p) for p in home.rglob("*")) == before and list(tmp.iterdir()) == []
    agent.generate_text("x", "")
    assert "--model" not in json.loads(log.read_text().splitlines()[-1])["argv"]


def test_generate_text_without_links_runs_in_the_users_home_from_a_reused_folder(
    repo: Path, home: Path, fake_gemini: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where links cannot be made (Windows without the right to), Gemini runs as before: the user's home,
    and one reused folder of ours, so that it registers one project, not one per summary."""
    bin_dir, log = fake_gemini
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text("{}")

    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("symbolic link privilege not held")

    monkeypatch.setattr(os, "symlink", refuse)
    agent = make_agent(repo, home, bin_dir, GEMINI_API_KEY="k")
    assert agent.generate_text("hi", "") == "A short sentence."
    call = json.loads(log.read_text().splitlines()[-1])
    assert (call["home"], call["cwd"]) == ("", str(home / ".cache/entire-agent-google-gemini/generate-text"))


@pytest.mark.parametrize(
    ("mode", "message"),
    [("fail", r"gemini -p failed \(exit 41\): Invalid auth method selected\."), ("empty", "empty answer")],
)
def test_generate_text_errors_are_clear(
    repo: Path, home: Path, fake_gemini: tuple[Path, Path], mode: str, message: str
) -> None:
    agent = make_agent(repo, home, fake_gemini[0], FAKE_GEMINI=mode, GEMINI_API_KEY="k")
    with pytest.raises(AgentError, match=message):
        agent.generate_text("hi", "m")


PLUGIN = str(Path(sys.executable).parent / "entire-agent-google-gemini")
LINUX = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc to tell a running process"
)


def _host_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    for name in ("tmp", "home"):
        (tmp_path / name).mkdir(exist_ok=True)
    return {"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path / "tmp"),
            "XDG_CACHE_HOME": str(tmp_path / "cache"), "ENTIRE_PROTOCOL_VERSION": "1", **extra}  # fmt: skip


@LINUX
def test_no_auth_method_fails_at_once_and_gemini_never_runs(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    hanging_agent(tmp_path / "bin", "gemini", pids)
    started_at = time.monotonic()
    done = subprocess.run([PLUGIN, "generate-text", "--model", "m"], input=b"hi", capture_output=True,
                          env=_host_env(tmp_path), timeout=25, check=False)  # fmt: skip
    assert time.monotonic() - started_at < 5
    settings = tmp_path / "home" / ".gemini" / "settings.json"
    assert done.stderr.decode() == (
        "entire-agent-google-gemini generate-text: Gemini has no auth method: set GEMINI_API_KEY, or run "
        f"`gemini` once and sign in (or set security.auth.selectedType in {settings})\n"
    )
    assert not pids.exists() and leftovers(pids, tmp_path / "tmp") == []
    settings.parent.mkdir()
    settings.write_text(
        '{\n  // signed in once\n  "security": {"auth": {"selectedType": "oauth-personal"}}\n}\n'
    )
    from entire_agent_google_gemini.textgen import auth_problem

    assert auth_problem(_host_env(tmp_path), str(tmp_path / "home")) is None


@LINUX
def test_a_hanging_gemini_fails_within_the_limit_and_leaves_nothing(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    hanging_agent(tmp_path / "bin", "gemini", pids)
    started_at = time.monotonic()
    env = _host_env(tmp_path, GEMINI_API_KEY="k", ENTIRE_AGENT_TEXT_TIMEOUT="2")
    done = subprocess.run([PLUGIN, "generate-text"], input=b"hi", capture_output=True, env=env, timeout=25,
                          check=False)  # fmt: skip
    assert time.monotonic() - started_at < 6
    assert (
        done.stderr.decode()
        == "entire-agent-google-gemini generate-text: gemini -p did not answer within 2 s\n"
    )
    assert len(started(pids)) == 2 and leftovers(pids, tmp_path / "tmp") == []


@LINUX
def test_killed_by_the_host_mid_call_leaves_no_process_and_no_file(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    hanging_agent(tmp_path / "bin", "gemini", pids)
    env = _host_env(tmp_path, GEMINI_API_KEY="k")
    assert call_and_kill([PLUGIN, "generate-text"], env, pids, kill_after=1) < 25
    assert leftovers(pids, tmp_path / "tmp") == []


def test_generate_text_without_gemini(repo: Path, home: Path, tmp_path: Path) -> None:
    agent = make_agent(repo, home, tmp_path / "empty-bin")
    with pytest.raises(AgentError, match="gemini is not on PATH: Gemini CLI is not installed"):
        agent.generate_text("hi", "m")


def statuses(report: Report) -> dict[str, str]:
    return {check.what: check.status for check in report.checks}


def test_doctor_on_a_repository_without_our_hooks(
    repo: Path, home: Path, fake_gemini: tuple[Path, Path]
) -> None:
    agent = make_agent(repo, home, fake_gemini[0])
    report = doctor.diagnose(agent)
    assert report.failed
    got = statuses(report)
    gemini = fake_gemini[0] / "gemini"
    assert (
        got[f"Gemini CLI 0.61.0 at {gemini} (tested; supported: {WINDOW.oldest} to {WINDOW.newest})"] == "ok"
    )
    assert got[f"Entire's hooks are not installed in {repo / '.gemini/settings.json'}"] == "FAIL"
    # What depends on the hooks is not checked, and never reported ok.
    assert got["hooks enabled (not checked: Entire's hooks are not installed)"] == "skip"
    assert got["Gemini's fingerprints of our hooks (not checked: Entire's hooks are not installed)"] == "skip"
    assert any(s == "WARN" and "no trust decision" in t for t, s in got.items())
    text = report.render()
    assert "      fix: `entire enable --agent google-gemini`\n" in text
    assert "ok    hooks are enabled" not in text


def test_doctor_fix_for_a_project_that_switched_hooks_off(
    repo: Path, home: Path, fake_gemini: tuple[Path, Path]
) -> None:
    """install-hooks refuses hooksConfig.enabled false, so the fix must say what to change first."""
    agent = make_agent(repo, home, fake_gemini[0])
    (repo / ".gemini").mkdir()
    (repo / ".gemini/settings.json").write_text('{"hooksConfig": {"enabled": false}}')
    [check] = [
        c for c in doctor.diagnose(agent).checks if c.what.startswith("Entire's hooks are not installed")
    ]
    assert check.fix == (
        f'set "hooksConfig": {{"enabled": true}} in {repo / ".gemini/settings.json"} (your own hooks run too), '
        "then `entire enable --agent google-gemini`"
    )
    with pytest.raises(AgentError, match=r"hooksConfig\.enabled is false"):
        agent.install_hooks()  # what the plain `entire enable` would meet


def test_doctor_on_a_ready_repository(repo: Path, home: Path, fake_gemini: tuple[Path, Path]) -> None:
    agent = make_agent(repo, home, fake_gemini[0])
    ready_host(repo, fake_gemini[0])
    agent.install_hooks()
    gemini = home / ".gemini"
    gemini.mkdir()
    (gemini / "trustedFolders.json").write_text(json.dumps({str(repo.parent): "TRUST_FOLDER"}))
    guard = "command -v entire >/dev/null 2>&1 || exit 0; exec entire hooks google-gemini"
    keys = [f"entire-google-gemini-{h}:{guard} {h}" for h in agent.hook_names]
    (gemini / "trusted_hooks.json").write_text(json.dumps({str(repo): keys}))
    report = doctor.diagnose(agent)
    assert [check.status for check in report.checks] == ["ok"] * 12, report.render()
    assert report.summary() == "result: 12 ok"
    assert "ok    the 7 installed hooks call `entire hooks google-gemini <hook>`" in report.render()


def test_doctor_finds_what_stops_hooks(repo: Path, home: Path, fake_gemini: tuple[Path, Path]) -> None:
    make_agent(repo, home, fake_gemini[0]).install_hooks()
    agent = make_agent(repo, home, fake_gemini[0], FAKE_GEMINI_VERSION="0.20.1")  # downgraded since
    gemini = home / ".gemini"
    gemini.mkdir()
    user = {"hooksConfig": {"disabled": ["entire-google-gemini-after-agent"]}, "hooks": {"enabled": True},
            "security": {"folderTrust": {"enabled": True}}}  # fmt: skip
    (gemini / "settings.json").write_text(json.dumps(user))
    (gemini / "trustedFolders.json").write_text(json.dumps({str(repo): "DO_NOT_TRUST"}))
    report = doctor.diagnose(agent)
    failed = {check.what.split(":")[0]: check.fix for check in report.checks if check.status == "FAIL"}
    settings_path = gemini / "settings.json"
    assert failed == {
        f"Gemini CLI 0.20.1 at {fake_gemini[0] / 'gemini'} is older than {WINDOW.oldest} (supported": (
            f"`npm install -g @google/gemini-cli@{WINDOW.newest}`"
        ),
        "the `entire` command is not on PATH": chain.INSTALL_ENTIRE,
        f"Entire is not set up in {repo}": "`entire enable --agent google-gemini`",
        "Gemini distrusts this folder": f'add "{os.path.realpath(repo)}": "TRUST_FOLDER" to {gemini / "trustedFolders.json"}',
        f"hooksConfig.disabled in {settings_path} turns off entire-google-gemini-after-agent": (
            f"remove entire-google-gemini-after-agent from hooksConfig.disabled in {settings_path}"
        ),
        f"user settings {settings_path}": f"in {settings_path}, move hooks.enabled under hooksConfig (hooksConfig.enabled)",
    }
    assert any(c.status == "WARN" and "has not seen our project hooks" in c.what for c in report.checks)


@pytest.mark.parametrize(
    ("reported", "status", "text"),
    [
        ("0.37.0", "FAIL", "Gemini CLI 0.37.0 at {gemini} is older than {oldest} (supported: {window})"),
        ("0.50.1", "ok", "Gemini CLI 0.50.1 at {gemini} (supported: {window})"),
        ("0.70.0-nightly.20270101", "WARN", "Gemini CLI 0.70.0 at {gemini} is newer than the newest tested version "
                                            "(supported: {window})"),
        ("no version here", "WARN", "`{gemini} --version` printed no version (exit 0); supported: {window}"),
    ],
)  # fmt: skip
def test_doctor_checks_the_version_against_the_window(
    repo: Path, home: Path, fake_gemini: tuple[Path, Path], reported: str, status: str, text: str
) -> None:
    agent = make_agent(repo, home, fake_gemini[0], FAKE_GEMINI_VERSION=reported)
    report = Report("t")
    doctor.check_version(report, agent.env)
    gemini = str(fake_gemini[0] / "gemini")
    window = f"{WINDOW.oldest} to {WINDOW.newest}"
    [check] = report.checks
    assert (check.status, check.what) == (
        status,
        text.format(window=window, oldest=WINDOW.oldest, gemini=gemini),
    )


def test_doctor_without_gemini_fails_with_the_install_command(repo: Path, home: Path, tmp_path: Path) -> None:
    agent = make_agent(repo, home, tmp_path / "empty-bin")
    report = Report("t")
    doctor.check_version(report, agent.env)
    [check] = report.checks
    assert (check.status, check.fix) == ("FAIL", f"`npm install -g @google/gemini-cli@{WINDOW.newest}`")


def test_install_refuses_a_gemini_older_than_the_window(
    repo: Path, home: Path, fake_gemini: tuple[Path, Path]
) -> None:
    agent = make_agent(repo, home, fake_gemini[0], FAKE_GEMINI_VERSION="0.37.0")
    with pytest.raises(
        AgentError, match=r"^hooks not installed: Gemini CLI 0\.37\.0 is older than the supported window; "
    ):
        agent.install_hooks()
    assert not (repo / ".gemini").exists()
    assert make_agent(repo, home, fake_gemini[0], FAKE_GEMINI_VERSION=WINDOW.oldest).install_hooks() == 7


def test_doctor_reports_unparseable_settings(repo: Path, home: Path, fake_gemini: tuple[Path, Path]) -> None:
    agent = make_agent(repo, home, fake_gemini[0])
    (repo / ".gemini").mkdir()
    (repo / ".gemini/settings.json").write_text('{"hooks": {')
    got = statuses(doctor.diagnose(agent, with_version=False))
    assert any(s == "FAIL" and t.startswith("project settings: cannot parse") for t, s in got.items())
    assert got[f"Entire's hooks (not checked: {repo / '.gemini/settings.json'} does not parse)"] == "skip"


def test_doctor_command_exit_status(
    repo: Path, home: Path, fake_gemini: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    agent = make_agent(repo, home, fake_gemini[0], GEMINI_CLI_TRUST_WORKSPACE="true")
    ready_host(repo, fake_gemini[0])
    assert doctor.run(agent, GeminiAgent.commands["doctor"].parse([])) == 1
    agent.install_hooks()
    assert (
        doctor.run(agent, GeminiAgent.commands["doctor"].parse([])) == 0
    )  # the warning about fingerprints does not fail
    out = capsys.readouterr().out
    assert "ok    folder trust forced by GEMINI_CLI_TRUST_WORKSPACE=true" in out
    assert out.splitlines()[-1] == "result: 1 warning, 11 ok"


def test_doctor_reads_commented_settings_as_gemini_does(
    repo: Path, home: Path, fake_gemini: tuple[Path, Path]
) -> None:
    agent = make_agent(repo, home, fake_gemini[0])
    (repo / ".gemini").mkdir()
    (repo / ".gemini/settings.json").write_text('{\n  // my model\n  "model": {"name": "x"} /* tail */\n}\n')
    report = doctor.diagnose(agent, with_version=False)
    assert "ok    settings files parse (project)" in report.render()
    (repo / ".gemini/settings.json").write_text('{\n  // my model\n  "model": {"name": "x"\n}\n')
    report = doctor.diagnose(agent, with_version=False)
    assert any(
        c.status == "FAIL" and c.what.startswith("project settings: cannot parse") for c in report.checks
    )


def test_doctor_outside_a_git_repository_says_git_init(
    repo: Path, home: Path, fake_gemini: tuple[Path, Path]
) -> None:
    agent = make_agent(repo, home, fake_gemini[0], git=False)
    report = doctor.diagnose(agent, with_version=False)
    assert (report.checks[0].status, report.checks[0].fix) == ("FAIL", "`git init`"), report.render()
    assert not any(c.fix and "entire enable" in c.fix for c in report.checks), report.render()
