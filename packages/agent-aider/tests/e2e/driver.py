"""Runs inside a loopback-only network namespace: the scripted server, then real Aider sessions.

usage: driver.py CONFIG.json  (see test_e2e_aider.py for the keys). Writes a JSON report to
``config["out"]``: the conf file's bytes at each step, each run's exit status, what Entire's
simulator recorded (hook calls, checkpoints, violations, sessions) and the requests the server
answered. Hooks reach the simulator the way they reach the Entire CLI: the launcher, and inside
Aider its bootstrap, pipe our payloads into the simulator's ``entire`` shim found first on PATH.
"""

from __future__ import annotations

import json
import os
import pty
import select
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import model_server
from entire_sim import Simulator

AGENT = "aider"

TURNS = [
    ("EDIT-GREET: add a greet function to hello.py", True),
    ("CREATE-NOTES: create NOTES.md\nwith a two-line prompt", True),
    ("What does greet do?", False),
]
VIEW_BUDGET = 4096
"""The third (launched) session runs with the smallest view budget, so its view is re-based mid-session."""
LONG_TURNS = [(f"QUESTION {n}: what does greet do?", False) for n in range(1, 9)]
RESUMED_PROMPT = "RESUMED: what did I ask you before?"
ANTHROPIC_MODEL = "anthropic/claude-3-7-sonnet-20250219"
"""A fourth (launched) session's model, with --cache-prompts: Aider's own litellm turns the scripted
Anthropic usage (cache writes and reads) into its Tokens line, as it does for api.anthropic.com."""
USER_CONF = (
    "# my own Aider settings (must survive)\nmap-tokens: 1024   # keep the map small\n\nauto-lint: false\n"
)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


class Pty:
    """A child on a pseudo-terminal whose output is drained continuously (Aider blocks on a full pty)."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], log: Path) -> None:
        master, slave = pty.openpty()
        self.master = master
        self.log = log.open("wb")
        self.proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True
        )
        os.close(slave)

    def pump(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:
                    return
                if not data:
                    return
                self.log.write(data)
                self.log.flush()

    def send(self, text: str) -> None:
        os.write(self.master, text.encode())

    def wait(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < deadline:
            self.pump(0.2)
        if self.proc.poll() is None:
            self.proc.kill()
        self.pump(0.2)
        return self.proc.wait()


def wait_for(predicate: object, pty_: Pty, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        pty_.pump(0.2)
    raise SystemExit(f"timed out waiting for {what}")


def run_session(
    name: str,
    argv: list[str],
    repo: Path,
    env: dict[str, str],
    sim: Simulator,
    work: Path,
    turns: list[tuple[str, bool]] = TURNS,
) -> dict[str, object]:
    history = repo / ".aider.chat.history.md"
    before = history.read_bytes().count(b"> Tokens: ") if history.exists() else 0
    headers = history.read_bytes().count(b"# aider chat started at ") if history.exists() else 0
    term = Pty(argv, repo, env, work / f"{name}.pty.log")

    def text() -> bytes:
        return history.read_bytes() if history.exists() else b""

    def settled() -> None:
        # Let Aider reach its prompt and the notification command finish before typing again.
        count = -1
        while count != len(sim.hook_calls()):
            count = len(sim.hook_calls())
            term.pump(1.5)

    wait_for(
        lambda: (
            text().count(b"# aider chat started at ") > headers
            and b"Added hello.py" in text().split(b"# aider chat started at ")[-1]
        ),
        term,
        60,
        "Aider to start",
    )
    term.pump(2.0)
    for index, (prompt, edits) in enumerate(turns, 1):
        lines = prompt.split("\n")
        if len(lines) > 1:
            term.send("{\r" + "\r".join(lines) + "\r}\r")  # Aider's multi-line input braces
        else:
            term.send(prompt + "\r")
        wait_for(lambda i=index: text().count(b"> Tokens: ") >= before + i, term, 60, f"turn {index} reply")
        if edits:
            wait_for(lambda i=index: text().count(b"> Commit ") >= i, term, 60, f"turn {index} commit")
        settled()
    term.send("/exit\r")
    code = term.wait(60)
    return {"name": name, "exit_code": code}


def resume_session(command: str, repo: Path, env: dict[str, str], sim: Simulator, work: Path, common: list[str],
                   aider_bin: str, plugin: str) -> dict[str, object]:  # fmt: skip
    """Run the resume command Entire printed (the launcher, Aider with the restored history file) for one more turn."""
    argv = shlex.split(command)
    assert argv[:3] == ["entire-agent-aider", "run", "--"] and "--restore-chat-history" in argv, command
    rest = argv[3:]
    history = repo / rest[rest.index("--chat-history-file") + 1]
    restored = history.read_bytes()
    aider = str(Path(aider_bin) / "aider")
    term = Pty([plugin, "run", "--aider", aider, "--", *rest, *common], repo, env, work / "resumed.pty.log")

    def text() -> bytes:
        return history.read_bytes()[len(restored) :]

    wait_for(lambda: b"Added hello.py" in text(), term, 60, "the resumed Aider to start")
    term.pump(2.0)
    term.send(RESUMED_PROMPT + "\r")
    wait_for(lambda: b"> Tokens: " in text(), term, 60, "the resumed turn's reply")
    count = -1
    while count != len(sim.hook_calls()):
        count = len(sim.hook_calls())
        term.pump(1.5)
    term.send("/exit\r")
    code = term.wait(60)
    return {"exit_code": code, "restored": restored.decode("utf-8", "replace"), "appended": text().decode()}


SUMMARY_MARK = "SUMMARISED-TEXT-7f3a"
"""In the text ``generate-text`` is asked to summarise: no file may hold it afterwards."""


def summarise(plugin: str, home: Path, work: Path, port: int, env: dict[str, str]) -> dict[str, object]:
    """``generate-text`` through the real Aider, set up as a user may have it (model, key and endpoint in
    ``~/.aider.conf.yml``, none on the command line or in the environment), in a TMPDIR of its own: its
    answer, what is new under the home and that TMPDIR afterwards, and the files holding the text."""
    from entire_sim.e2e import left_behind, paths_under

    (home / ".aider.conf.yml").write_text(
        f"model: openai/gpt-4o\nopenai-api-key: fake\nopenai-api-base: http://127.0.0.1:{port}/v1\n"
    )
    tmp = work / "summary-tmp"
    tmp.mkdir()
    before = paths_under(home, tmp)
    done = subprocess.run([plugin, "generate-text"], input=f"Summarise this session: greet was added. {SUMMARY_MARK}".encode(),
                          capture_output=True, env={**env, "TMPDIR": str(tmp)}, cwd=work, timeout=120, check=False)  # fmt: skip
    marked = [str(p) for p in home.rglob("*") if p.is_file() and SUMMARY_MARK.encode() in p.read_bytes()]
    return {"code": done.returncode, "stdout": done.stdout.decode("utf-8", "replace"),
            "stderr": done.stderr.decode("utf-8", "replace"), "left": left_behind(before, paths_under(home, tmp)),
            "copies": marked}  # fmt: skip


def main() -> None:
    config = json.loads(Path(sys.argv[1]).read_text())
    work = Path(config["work"])
    repo, home, bin_dir = work / "repo", work / "home", work / "bin"
    for path in (repo, home / ".aider" / "caches"):
        path.mkdir(parents=True, exist_ok=True)
    # A fresh cost map in Aider's cache: Aider then downloads nothing.
    shutil.copy(config["cost_map"], home / ".aider" / "caches" / "model_prices_and_context_window.json")
    server, port = model_server.start()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Test User")
    git(repo, "config", "user.email", "test@example.com")
    (repo / "hello.py").write_text(
        'def main():\n    print("hello")\n\n\nif __name__ == "__main__":\n    main()\n'
    )
    (repo / ".gitignore").write_text(".aider*\n.entire/\n")
    (repo / ".aider.conf.yml").write_text(USER_CONF)
    git(repo, "add", "hello.py", ".gitignore")
    git(repo, "commit", "-q", "-m", "initial")
    initial = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()

    (work / "tmp").mkdir(exist_ok=True)
    base_env = {
        "PATH": os.pathsep.join([config["plugin_bin"], config["aider_bin"], "/usr/bin", "/bin"]),
        "HOME": str(home),
        "TMPDIR": str(work / "tmp"),
        "XDG_DATA_HOME": str(work / "xdg-data"),
        "TERM": "xterm-256color",
        "NO_COLOR": "1",
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LANG": "C.UTF-8",
        "GIT_AUTHOR_NAME": "Test User",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test User",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }
    sim = Simulator(repo, state_dir=work / "entire-state", env=base_env)
    sim.install_shim(bin_dir)
    env = sim.env()  # the shim first on PATH, then the plugins, then Aider
    report: dict[str, object] = {"conf_before": USER_CONF}
    report["hooks_installed"] = sim.enable(AGENT)
    report["conf_installed"] = (repo / ".aider.conf.yml").read_text()
    common = ["--model", "openai/gpt-4o", "--openai-api-base", f"http://127.0.0.1:{port}/v1", "--openai-api-key", "fake",
              "--no-check-update", "--no-analytics", "--no-show-release-notes", "--no-show-model-warnings",
              "--yes-always", "--no-pretty", "hello.py"]  # fmt: skip
    runs = []
    analytics = work / "analytics.jsonl"
    launcher = [config["plugin"], "run", "--", *common, "--no-stream", "--analytics-log", str(analytics)]
    runs.append(run_session("launcher", launcher, repo, env, sim, work))
    report["calls_after_launcher"] = len(sim.hook_calls())
    git(repo, "reset", "-q", "--hard", initial)  # both edits apply again (ignored .aider* files stay)
    runs.append(
        run_session("plain", [str(Path(config["aider_bin"]) / "aider"), *common], repo, env, sim, work)
    )
    report["runs"] = runs
    report["hook_calls"] = sim.hook_calls()
    report["checkpoints"] = sim.checkpoints()
    report["sessions"] = sim.sessions()
    report["requests"] = list(model_server.Handler.log)
    # A third session, launched with the smallest view budget (the launcher, its hooks and the git
    # hooks inherit it): eight turns re-base its view mid-session. Then `entire resume` of it from
    # its last checkpoint, and the resume command Entire prints, for one more turn.
    small = dict(env, ENTIRE_VIEW_BUDGET=str(VIEW_BUDGET))
    report["long_run"] = run_session("long", launcher, repo, small, sim, work, LONG_TURNS)
    report["long_checkpoints"] = sim.checkpoints()[len(report["checkpoints"]) :]
    launched = report["long_checkpoints"][0]["session_id"]
    report["stored_launcher"] = (sim.state.metadata(launched) / "full.jsonl").read_text()
    report["resume"] = sim.resume(AGENT, launched)
    report["resumed"] = resume_session(report["resume"]["command"], repo, env, sim, work, common,
                                       config["aider_bin"], config["plugin"])  # fmt: skip
    report["resumed_requests"] = model_server.Handler.log[len(report["requests"]) :]
    report["view_budget"] = VIEW_BUDGET
    report["resumed_prompt"] = RESUMED_PROMPT
    report["long_prompts"] = [prompt for prompt, _ in LONG_TURNS]
    # A fourth session on Anthropic's API with prompt caching: one edit turn, from the first commit again.
    git(repo, "reset", "-q", "--hard", initial)
    before = len(sim.checkpoints())
    anthropic = [config["plugin"], "run", "--", "--model", ANTHROPIC_MODEL, "--cache-prompts", *common[2:],
                 "--no-stream", "--analytics-log", str(analytics)]  # fmt: skip
    anthropic_env = dict(env, ANTHROPIC_API_BASE=f"http://127.0.0.1:{port}", ANTHROPIC_API_KEY="fake")
    report["anthropic_run"] = run_session("anthropic", anthropic, repo, anthropic_env, sim, work, TURNS[:1])
    report["anthropic_checkpoints"] = sim.checkpoints()[before:]
    report["summary"] = summarise(config["plugin"], home, work, port, env)
    sim.disable(AGENT)
    report["violations"] = sim.violations()  # enable's, every hook's and disable's
    report["conf_after_uninstall"] = (repo / ".aider.conf.yml").read_text()
    report["history"] = (repo / ".aider.chat.history.md").read_text()
    report["git_log"] = subprocess.run(
        ["git", "log", "--stat", "--format=== %s"], cwd=repo, capture_output=True, text=True
    ).stdout
    server.shutdown()
    Path(config["out"]).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
