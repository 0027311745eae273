"""Real Aider under the real Entire CLI (``ENTIRE_BIN``), against a scripted model server, loopback-only.

usage: ``host_driver.py OUT_DIR`` with ``AIDER_BIN`` (the bin directory of Aider's environment) and
``PLUGIN_BIN`` (where ``entire-agent-aider`` is), run inside a loopback-only network namespace (see
``test_host_aider.py``). In a scratch repository: ``entire enable --agent aider``; session A through
the launcher (an edit, a new file that Aider confirms mid-turn, an answer); session B through the
launcher (a reply naming a file, "Add file to the chat?" and a second model call in the same turn,
then an edit); session C as plain ``aider`` (an edit); a user's commit; ``entire status`` while A
runs; ``entire doctor`` at the end. Then every Aider commit's checkpoint is read from
``refs/entire/checkpoints/*`` and checked against the script. Writes ``OUT_DIR/report.json`` with
the checks (name, passed, detail) and prints one line per failure.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import subprocess
import sys
import termios
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

AIDER_BIN = Path(os.environ["AIDER_BIN"])
PLUGIN_BIN = Path(os.environ["PLUGIN_BIN"])
ENTIRE = os.environ["ENTIRE_BIN"]
FENCE = "`" * 3
PT, CT = 1234, 56


def edit(path: str, search: str, replace: str, say: str) -> str:
    return f"{say}\n\n{path}\n{FENCE}python\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n{FENCE}\n"


REPLIES = {
    "EDIT-GREET": edit(
        "hello.py",
        'def main():\n    print("hello")\n',
        'def greet(name):\n    return f"Hello, {name}!"\n\n\ndef main():\n    print(greet("world"))\n',
        "I'll add a greet function.",
    ),
    "CREATE-NOTES": "I'll create NOTES.md.\n\nNOTES.md\n"
    + f"{FENCE}markdown\n<<<<<<< SEARCH\n=======\n# Notes\n\n- greet\n>>>>>>> REPLACE\n{FENCE}\n",
    "MENTION-UTIL": "To do that I need to edit util.py, please add it.",
    "I added these files": edit(
        "util.py", "def helper():\n    return 1\n", "def helper():\n    return 2\n", "Now util.py."
    ),
    "EDIT-BYE": edit(
        "hello.py", "def main():\n", "def bye():\n    return 'bye'\n\n\ndef main():\n", "Adding bye."
    ),
    "EDIT-PLAIN": edit(
        "util.py", "def helper():\n", "def helper2():\n    return 3\n\n\ndef helper():\n", "Adding helper2."
    ),
}
LOG: list[dict[str, Any]] = []


def choose(body: dict[str, Any]) -> tuple[str, str]:
    def text(c: Any) -> str:
        return (
            c if isinstance(c, str) else "\n".join(p.get("text", "") for p in c or [] if isinstance(p, dict))
        )

    msgs = body.get("messages") or []
    system = "\n".join(text(m.get("content")) for m in msgs if m.get("role") == "system").lower()
    users = [text(m.get("content")) for m in msgs if m.get("role") == "user"]
    last = users[-1] if users else ""
    if "commit message" in system:
        return "commit", "feat: scripted change"
    if "summar" in system:
        return "summary", "summary"
    for key, reply in REPLIES.items():
        if key in last:
            return key, reply
    return "plain", "greet builds a greeting string from a name."


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        kind, text = choose(body)
        LOG.append({"kind": kind, "time": time.time()})
        usage = {"prompt_tokens": PT, "completion_tokens": CT, "total_tokens": PT + CT}
        out = {
            "id": "x",
            "created": 1796000000,
            "model": body.get("model", "gpt-4o"),
            "object": "chat.completion",
            "usage": usage,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
        }
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


class Pty:
    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str], log: Path) -> None:
        master, slave = pty.openpty()
        self.master = master
        self.log = log.open("wb")
        self.buf = b""

        def ctty() -> None:  # the pty is Aider's controlling terminal, as in a user's shell
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, preexec_fn=ctty
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
                self.buf += data
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


def wait_for(pred: Any, term: Pty, timeout: float, what: str) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        term.pump(0.2)
    print("TIMEOUT", what, file=sys.stderr)
    return False


def session(
    name: str,
    argv: list[str],
    repo: Path,
    env: dict[str, str],
    out: Path,
    turns: list[tuple[str, int]],
    status_probe: bool = False,
) -> dict[str, Any]:
    history = repo / ".aider.chat.history.md"

    def text() -> bytes:
        return history.read_bytes() if history.exists() else b""

    headers = text().count(b"# aider chat started at ")
    term = Pty(argv, repo, env, out / f"{name}.pty.log")
    wait_for(
        lambda: (
            text().count(b"# aider chat started at ") > headers
            and b"Added hello.py" in text().split(b"# aider chat started at ")[-1]
        ),
        term,
        60,
        f"{name} start",
    )
    term.pump(1.5)
    done = []
    probe = None
    for prompt, commits in turns:
        tokens = text().count(b"> Tokens: ")
        commit_count = text().count(b"> Commit ")
        prompts = term.buf.count(b"\x1b[?2004h")
        term.send(prompt + "\r")
        wait_for(lambda t=tokens: text().count(b"> Tokens: ") > t, term, 60, f"{name} reply")
        if commits:
            want = commit_count + commits
            wait_for(lambda w=want: text().count(b"> Commit ") >= w, term, 60, f"{name} commit")
        # Aider's next prompt shown and stable (the turn-end hook has run)
        wait_for(lambda p=prompts: term.buf.count(b"\x1b[?2004h") > p, term, 90, f"{name} prompt")
        term.pump(2.5)
        done.append(prompt)
        if status_probe and probe is None:
            st = subprocess.run(
                [ENTIRE, "status"],
                cwd=repo,
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
            )
            probe = {"status_rc": st.returncode, "status_out": st.stdout[-3000:]}
            probe["states_after_status"] = states(repo)
    term.send("/exit\r")
    code = term.wait(60)
    return {"name": name, "exit_code": code, "turns": done, "probe": probe}


def states(repo: Path) -> dict[str, Any]:
    common = Path(git(repo, "rev-parse", "--git-common-dir").strip())
    if not common.is_absolute():
        common = repo / common
    out = {}
    for f in sorted((common / "entire-sessions").glob("*.json")):
        try:
            v = json.loads(f.read_text())
        except ValueError:
            continue
        out[f.stem] = {
            k: v.get(k)
            for k in (
                "phase",
                "ended_at",
                "owner",
                "checkpoint_transcript_start",
                "transcript_path",
                "last_prompt",
            )
        }
    return out


def checkpoint(repo: Path, cp: str) -> dict[str, str] | None:
    """The files of checkpoint ``cp`` (its ref under ``refs/entire/``), or None."""
    refs = [
        r
        for r in git(repo, "for-each-ref", "--format=%(refname)", "refs/entire/").split()
        if r.endswith("/" + cp)
    ]
    if not refs:
        return None
    ref = refs[0]
    out = {}
    for path in git(repo, "ls-tree", "-r", "--name-only", ref).split():
        out[path] = git(repo, "show", f"{ref}:{path}")
    return out


def score(repo: Path, report: dict[str, Any]) -> list[tuple[str, bool, str]]:
    """Every check of the run: (name, passed, what was found)."""
    checks: list[tuple[str, bool, str]] = []

    def check(name: str, ok: bool, detail: str = "") -> None:
        checks.append((name, ok, detail))

    sessions: dict[str, set[str]] = {}
    transcripts = 0
    launched = 0
    for exp in report["expected"]:
        label = f"{exp['session']}:{exp['prompt'][:14]}"
        if exp["commit"] is None:
            check(f"{label} commit made", False, "Aider made no commit")
            continue
        msg = git(repo, "log", "-1", "--format=%B", exp["commit"])
        cp = next(
            (ln.split(":", 1)[1].strip() for ln in msg.splitlines() if ln.startswith("Entire-Checkpoint:")),
            None,
        )
        data = checkpoint(repo, cp) if cp else None
        if exp["how"] == "plain":
            if cp is None:
                check(f"{label} plain: no wrong checkpoint", True, "no trailer (safe)")
            else:
                meta = json.loads(data.get("metadata.json", "{}")) if data else {}
                prompt = data.get("0/prompt.txt", "") if data else ""
                ok = (
                    data is not None
                    and meta.get("files_touched") == exp["files"]
                    and prompt.strip() == exp["prompt"]
                )
                check(
                    f"{label} plain: no wrong checkpoint",
                    ok,
                    f"trailer {cp}: files={meta.get('files_touched')} prompt={prompt!r}",
                )
            continue
        launched += 1
        check(f"{label} trailer", cp is not None)
        check(f"{label} checkpoint stored", data is not None, cp or "")
        if data is None:
            for what in ("prompt", "files", "tokens", "session"):
                check(f"{label} {what}", False, "no checkpoint")
            continue
        meta = json.loads(data["metadata.json"])
        sess = json.loads(data.get("0/metadata.json", "{}"))
        prompt = data.get("0/prompt.txt", "")
        check(f"{label} prompt", prompt.strip() == exp["prompt"], repr(prompt))
        check(f"{label} files", meta.get("files_touched") == exp["files"], str(meta.get("files_touched")))
        tok = meta.get("token_usage") or {}
        want = (PT * exp["calls"], CT * exp["calls"])
        got = (tok.get("input_tokens"), tok.get("output_tokens"))
        check(f"{label} tokens", got == want, f"got {got} want {want}")
        sid = sess.get("session_id", "")
        sessions.setdefault(exp["session"], set()).add(sid)
        check(
            f"{label} session",
            sid.startswith("aider-run-") and len(meta.get("sessions", [])) == 1,
            f"{sid} ({len(meta.get('sessions', []))} sessions)",
        )
        if any(p.endswith("transcript.jsonl") for p in data):
            transcripts += 1
    ids = [next(iter(v)) if len(v) == 1 else None for v in sessions.values()]
    check(
        "one session id per launched session, distinct",
        len(ids) == 2 and None not in ids and len(set(ids)) == 2,
        str(sessions),
    )
    msg = git(repo, "log", "-1", "--format=%B", report["user_commit"])
    cp = next(
        (ln.split(":", 1)[1].strip() for ln in msg.splitlines() if ln.startswith("Entire-Checkpoint:")), None
    )
    if cp is None:
        check("user's end commit: no agent data", True, "no trailer")
    else:
        data = checkpoint(repo, cp) or {}
        meta = json.loads(data.get("metadata.json", "{}"))
        check(
            "user's end commit: no agent data",
            meta.get("files_touched") in ([], ["user.txt"]),
            f"trailer {cp} files={meta.get('files_touched')}",
        )
    doctor = report["doctor"]["out"]
    check(
        "entire doctor: no stuck session",
        "No stuck sessions found" in doctor,
        doctor.strip().splitlines()[-1:],
    )
    probe = report["sessions"][0].get("probe") or {}
    st = probe.get("states_after_status") or {}
    live = [v for v in st.values() if v.get("phase") != "ended"]
    check(
        "entire status keeps the live session",
        bool(st) and bool(live),
        json.dumps({k: v.get("phase") for k, v in st.items()}),
    )
    report["transcripts"] = [transcripts, launched]
    return checks


def main() -> None:
    out = Path(sys.argv[1]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    repo, home, bin_dir = out / "repo", out / "home", out / "bin"
    for p in (repo, home / ".aider" / "caches", bin_dir):
        p.mkdir(parents=True, exist_ok=True)
    cost = next(
        (AIDER_BIN.parent / "lib").glob(
            "python3*/site-packages/litellm/model_prices_and_context_window_backup.json"
        )
    )
    (home / ".aider" / "caches" / "model_prices_and_context_window.json").write_bytes(cost.read_bytes())
    (bin_dir / "entire").unlink(missing_ok=True)
    (bin_dir / "entire").symlink_to(ENTIRE)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    env = {
        "PATH": os.pathsep.join([str(bin_dir), str(PLUGIN_BIN), str(AIDER_BIN), "/usr/bin", "/bin"]),
        "HOME": str(home),
        "TMPDIR": str(out / "tmp"),
        "TERM": "xterm-256color",
        "NO_COLOR": "1",
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "LANG": "C.UTF-8",
        "ENTIRE_TELEMETRY_OPTOUT": "1",
        "ENTIRE_NO_AUTO_UPDATE": "1",
        "GIT_AUTHOR_NAME": "Test User",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "Test User",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    (out / "tmp").mkdir(exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    (repo / "hello.py").write_text(
        'def main():\n    print("hello")\n\n\nif __name__ == "__main__":\n    main()\n'
    )
    (repo / "util.py").write_text("def helper():\n    return 1\n")
    (repo / ".gitignore").write_text(".aider*\n")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "initial")
    en = subprocess.run(
        [ENTIRE, "enable", "--agent", "aider", "--telemetry=false"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "entire enabled")
    common = [
        "--model",
        "openai/gpt-4o",
        "--openai-api-base",
        f"http://127.0.0.1:{port}/v1",
        "--openai-api-key",
        "fake",
        "--no-check-update",
        "--no-analytics",
        "--no-show-release-notes",
        "--no-show-model-warnings",
        "--yes-always",
        "--no-pretty",
        "--no-stream",
        "--analytics-log",
        str(out / "analytics.jsonl"),
        "hello.py",
    ]
    launcher = [str(PLUGIN_BIN / "entire-agent-aider"), "run", "--"]
    # expected per Aider commit: (session label, prompt, files, main model calls in the turn)
    plan = [
        (
            "A",
            "launcher",
            [
                ("EDIT-GREET: add greet to hello.py", 1, ["hello.py"], 1),
                ("CREATE-NOTES: create NOTES.md", 1, ["NOTES.md"], 1),
                ("What does greet do?", 0, [], 1),
            ],
        ),
        (
            "B",
            "launcher",
            [
                ("MENTION-UTIL: change the helper module", 1, ["util.py"], 2),
                ("EDIT-BYE: add bye to hello.py", 1, ["hello.py"], 1),
            ],
        ),
        ("C", "plain", [("EDIT-PLAIN: add helper2 to util.py", 1, ["util.py"], 1)]),
    ]
    report: dict[str, Any] = {
        "enable": {"rc": en.returncode, "out": en.stdout[-2000:] + en.stderr[-2000:]},
        "sessions": [],
        "expected": [],
    }
    for label, how, turns in plan:
        argv = (launcher if how == "launcher" else [str(AIDER_BIN / "aider")]) + common
        before = git(repo, "rev-parse", "HEAD").strip()
        result = session(
            label, argv, repo, env, out, [(p, c) for p, c, _, _ in turns], status_probe=label == "A"
        )
        result["how"] = how
        commits = git(repo, "rev-list", "--reverse", f"{before}..HEAD").split()
        result["commits"] = commits
        report["sessions"].append(result)
        ci = iter(commits)
        for prompt, n, files, calls in turns:
            for _ in range(n):
                report["expected"].append(
                    {
                        "session": label,
                        "how": how,
                        "commit": next(ci, None),
                        "prompt": prompt,
                        "files": files,
                        "calls": calls,
                    }
                )
    # an end-of-session user commit, with nothing of an agent in it
    (repo / "user.txt").write_text("mine\n")
    git(repo, "add", "user.txt")
    subprocess.run(
        ["git", "commit", "-q", "-m", "user commit"],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    report["user_commit"] = git(repo, "rev-parse", "HEAD").strip()
    report["user_commit_msg"] = git(repo, "log", "-1", "--format=%B")
    doc = subprocess.run(
        [ENTIRE, "doctor"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    report["doctor"] = {"rc": doc.returncode, "out": doc.stdout[-4000:] + doc.stderr[-2000:]}
    report["states"] = states(repo)
    report["model_log"] = LOG
    report["git_log"] = git(repo, "log", "--format=%h %s%n%b")
    report["checks"] = score(repo, report)
    (out / "report.json").write_text(json.dumps(report, indent=1))
    server.shutdown()
    for name, ok, detail in report["checks"]:
        if not ok:
            print(f"FAIL {name}: {detail}")


if __name__ == "__main__":
    main()
