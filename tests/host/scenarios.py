"""The ``host`` scenarios: a real agent, the real Entire CLI and our plugins from wheels, in one scratch world.

Each ``run_<agent>(work, backend)`` plays the agent's scenario and returns an ``Outcome``: the world it
ran in, every commit with what its checkpoint should hold (``Expected``, from the script: the typed
prompts, the files, the scripted token usage, the replies), and what the user commands answered.

The scenario, per agent (what issue 24 asks):

- ``entire enable --agent <name>`` on a feature branch of a repository with the user's files;
- session A: turns that create, edit, rename and delete files (and, for Codex and Gemini, a subagent),
  the user committing after each turn;
- session B: a turn in which the agent commits with its own shell tool (``git commit``), a text-only
  turn, then an edit turn; the user commits only when the session has ended;
- ``entire doctor``, ``entire checkpoint list`` and ``checkpoint explain <id>``;
- ``entire session resume <branch>`` after the session's files were deleted, then the agent resumes;
- ``entire disable --uninstall --force``.

With a ``Kill`` (``suite``'s killed run), the world carries its fault point, armed as its turn starts
(``World.turn_starts``, called before each turn's prompt goes to the agent).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import (
    HERE,
    Kill,
    Namespace,
    Run,
    World,
    entire_bin,
    read_checkpoints,
    shadow_branches,
    storage,
    trailers,
    variant_env,
)

TOKEN_KEYS = ("input_tokens", "cache_creation_tokens", "cache_read_tokens", "output_tokens", "api_call_count")


@dataclass
class Expected:
    """What the checkpoint of one commit should hold; ``prompts == []`` means no checkpoint (no agent work)."""

    label: str
    sha: str
    session: str
    prompts: list[str]
    files: list[str]
    tokens: dict[str, int] | None = None
    subagent_tokens: dict[str, int] | None = None
    replies: list[str] = field(default_factory=list)
    transcript_prompts: list[str] | None = None
    """The prompts in ``transcript.jsonl`` from ``compact_transcript_start``, where not ``prompts``: after
    the agent's own commit mid-turn, the rest of that turn has no prompt of its own in the scope."""


@dataclass
class Outcome:
    agent: str
    backend: str
    world: World
    base: str
    expected: list[Expected]
    sessions: dict[str, str]
    commands: dict[str, Run] = field(default_factory=dict)
    explain: dict[str, Run] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)

    def commits(self) -> list[tuple[str, str, str]]:
        return trailers(self.world.repo, self.base)

    def checkpoints(self) -> dict[str, Any]:
        return read_checkpoints(self.world.repo, storage(self.backend))


def _wait_port(world: World, port: int, server: subprocess.Popen[bytes]) -> None:
    import time

    for _ in range(200):
        if server.poll() is not None:
            raise RuntimeError(f"the scripted server exited with {server.returncode}")
        probe = subprocess.run(
            world.ns.argv([sys.executable, "-c", f"import socket; socket.create_connection(('127.0.0.1', {port}), 1).close()"]),
            capture_output=True, check=False,
        )  # fmt: skip
        if probe.returncode == 0:
            return
        time.sleep(0.1)
    raise RuntimeError("the scripted server did not start")


class Requests:
    """The scripted server's request log, read in windows: what a turn (or part of one) asked."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def all(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line]

    def mark(self) -> int:
        return len(self.all())


# -- what every scenario does -----------------------------------------------------------------------------


def _node() -> Path:
    """The directory of the ``node`` the npm-installed agents run with."""
    return Path(shutil.which("node") or "/usr/bin/node").parent


def _git_hooks(world: World) -> list[str]:
    return sorted(p.name for p in (world.repo / ".git" / "hooks").iterdir())


def _begin(world: World, agent: str, backend: str, files: dict[str, str]) -> Outcome:
    """The user's repository, holding ``files`` on its feature branch, and the outcome of ``agent``'s run
    from there: the repository's files and git hooks as they were before ``entire enable``."""
    world.init_repo(files)
    outcome = Outcome(agent, backend, world, world.head(), [], {})
    outcome.facts["before_enable"] = world.snapshot()
    outcome.facts["hooks_before"] = _git_hooks(world)
    outcome.facts["ref_at"] = {}
    return outcome


@contextmanager
def _served(world: World, port: int, script: str, *args: str) -> Iterator[Requests]:
    """The scripted model server ``script`` (of this folder; ``args`` besides its port and log) serving on
    ``port`` in the world's namespace until the block ends; its request log is ``requests.jsonl``."""
    log = world.root / "requests.jsonl"
    with open(world.root / "server.err", "wb") as server_err:
        proc = subprocess.Popen(
            world.ns.argv(
                [sys.executable, str(HERE / script), "--port", str(port), "--log", str(log), *args]
            ),
            stderr=server_err,
        )
        try:
            _wait_port(world, port, proc)
            yield Requests(log)
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def _enable(outcome: Outcome) -> None:
    """``entire enable`` of the outcome's agent, with checkpoints in its backend."""
    enable = ["enable", "--agent", outcome.agent, "--telemetry=false"]
    if outcome.backend == "branch":
        enable += ["--checkpoint-backend", "branch"]
    outcome.commands["enable"] = outcome.world.entire(*enable)


def _hook_events(world: World) -> list[dict[str, Any]]:
    """The events the plugin answered its hooks with, in order (from its trace)."""
    events: list[dict[str, Any]] = []
    for call in world.trace_calls():
        if call["subcommand"] == "parse-hook" and call.get("answer"):
            try:
                event = json.loads(call["answer"])
            except ValueError:
                continue
            if isinstance(event, dict):
                events.append(event)
    return events


def _session_ref(world: World, session: str) -> str:
    """The ``session_ref`` the plugin answered for ``session`` in its last hook (from the trace)."""
    found = ""
    for event in _hook_events(world):
        if event.get("session_id") == session and event.get("session_ref"):
            found = str(event["session_ref"])
    return found


def _at_commit(outcome: Outcome, label: str, session: str) -> None:
    """Keep ``session``'s view as it stands at the commit ``label``."""
    ref = _session_ref(outcome.world, session)
    outcome.facts["ref_at"][label] = Path(ref).read_bytes() if ref else b""


def _final_views(world: World, *sessions: str) -> dict[str, bytes]:
    """Each session's view as it stands at the end."""
    return {session: Path(_session_ref(world, session)).read_bytes() for session in sessions}


def _user_commands(outcome: Outcome) -> None:
    """doctor, checkpoint list, checkpoint explain of each checkpoint, and the branches left."""
    world = outcome.world
    outcome.commands["doctor"] = world.entire("doctor", check=False)
    outcome.commands["list"] = world.entire("checkpoint", "list", "--json", "--no-pager", check=False)
    for _, _, cid in outcome.commits():
        if cid:
            outcome.explain[cid] = world.entire("checkpoint", "explain", cid, "--no-pager", check=False)
    outcome.facts["shadow_branches"] = shadow_branches(world.repo)
    outcome.facts["stored_session_refs"] = {}


def _read(path: Path) -> bytes:
    """The bytes of ``path``; none where it is not."""
    return path.read_bytes() if path.exists() else b""


def _resume(
    outcome: Outcome, session: str, files: list[Path], restored: Callable[[], list[Path]] | None = None
) -> None:
    """The agent's ``files`` of ``session`` and its view deleted, then ``entire session resume``: the host
    restores the first of them through ``write-session`` (where ``restored`` finds it, else in its place)."""
    world = outcome.world
    outcome.facts["rollout_paths"] = [str(p) for p in files]
    outcome.facts["rollout_before"] = _read(files[0]) if files else b""
    session_ref = _session_ref(world, session)
    for path in [*files, *([Path(session_ref)] if session_ref else [])]:
        path.unlink(missing_ok=True)
    outcome.commands["resume"] = world.entire("session", "resume", "feature", "--force", check=False)
    found = restored() if restored is not None else files[:1]
    outcome.facts["rollout_after"] = _read(found[0]) if found else b""


def _turn(
    outcome: Outcome, requests: Requests, label: str, argv: list[str], *, check: bool = True
) -> tuple[Run, list[dict[str, Any]]]:
    """The agent's turn ``label`` (the command ``argv``): what it did and the requests it made."""
    start = requests.mark()
    outcome.world.turn_starts(label)
    run = outcome.commands[label] = outcome.world.run(argv, check=check)
    return run, requests.all()[start:]


def _disable(outcome: Outcome) -> None:
    world = outcome.world
    outcome.facts["host_log"] = _read(world.repo / ".entire" / "logs" / "entire.log")  # disable removes it
    outcome.facts["before_disable"] = world.snapshot()
    outcome.commands["disable"] = world.entire("disable", "--uninstall", "--force", check=False)
    outcome.facts["after_disable"] = world.snapshot()
    outcome.facts["ls_files"] = set(world.git("ls-files").split())
    outcome.facts["hooks_after"] = _git_hooks(world)


# -- Codex ----------------------------------------------------------------------------------------------

CODEX_PORT = 18791
CODEX_PROMPTS = {
    "A1": "EDIT-ONE: create hello.txt, update README.md, then write shell.txt",
    "A2": "EDIT-TWO: add second.txt, delete shell.txt, rename hello.txt to greeting.txt",
    "A3": "SPAWN-CHILD: have a subagent create child.txt, wait for it, then report",
    "B1": "MID-COMMIT: add mid.txt and commit it yourself, then write late.txt",
    "B2": "TEXT-ONLY: say in one sentence what you would change next",
    "B3": "EDIT-THREE: edit late.txt and add notes.txt",
    "R": "TEXT-ONLY: after the resume, say what the earlier turns did",
}


def _codex_usage(requests: list[dict[str, Any]]) -> dict[str, int]:
    """The usage the host should store for these requests (Codex's own accounting: input minus cached)."""
    import codex_host_server as server

    steps = [server.base.usage(server.plan(r["body"], r["headers"], 0)[1]) for r in requests]
    fed = sum(u["input_tokens"] for u in steps)
    cached = sum(u["input_tokens_details"]["cached_tokens"] for u in steps)
    return {"input_tokens": fed - cached, "cache_creation_tokens": 0, "cache_read_tokens": cached,
            "output_tokens": sum(u["output_tokens"] for u in steps), "api_call_count": len(steps)}  # fmt: skip


def _thread(request: dict[str, Any]) -> str:
    return str(json.loads(request["headers"].get("x-codex-turn-metadata") or "{}").get("thread_id", ""))


def _thread_id(run: Run) -> str:
    for line in run.stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "thread.started":
            return str(event.get("thread_id", ""))
    return ""


def run_codex(work: Path, backend: str, plugins: Path, codex_bin: Path, kill: Kill | None = None) -> Outcome:
    """The Codex scenario under the real host, with checkpoints in ``backend``."""
    import codex_driver  # pyright: ignore[reportMissingImports]
    import codex_host_server as server

    codex_home = work / "codex-home"
    codex_home.mkdir(parents=True)
    with Namespace() as ns:
        world = World(work, ns, [plugins, codex_bin.parent, _node()], entire_bin(), kill=kill, CODEX_HOME=str(codex_home),
                      SCRIPTED_API_KEY="scripted-not-a-secret", **variant_env(backend))  # fmt: skip
        files = {"README.md": "# e2e repo\n", "src/app.py": "print('the user app')\n"}
        outcome = _begin(world, "openai-codex", backend, files)
        (codex_home / "config.toml").write_text(codex_driver.user_config(CODEX_PORT), encoding="utf-8")
        with _served(world, CODEX_PORT, "codex_host_server.py", "--lifetime", "1800") as requests:
            _enable(outcome)
            outcome.commands["trust"] = world.run(["entire-agent-openai-codex", "trust", "--project"])
            codex = [str(codex_bin), "exec", "--json", "--color", "never"]

            def turn(label: str, session: str = "") -> tuple[Run, list[dict[str, Any]]]:
                resume = ["resume", session] if session else []
                return _turn(outcome, requests, label, [*codex, *resume, CODEX_PROMPTS[label]])

            # Session A: a user commit after each turn.
            run, asked = turn("A1")
            a = outcome.sessions["A"] = _thread_id(run)
            sha = world.commit("A1", ["README.md", "hello.txt", "shell.txt"])
            _at_commit(outcome, "A1", a)
            outcome.expected.append(Expected("A1", sha, a, [CODEX_PROMPTS["A1"]], ["README.md", "hello.txt", "shell.txt"],
                                             _codex_usage(asked), None, [server.base.FINAL_ONE]))  # fmt: skip
            run, asked = turn("A2", a)
            sha = world.commit("A2", ["second.txt", "shell.txt", "hello.txt", "greeting.txt"])
            _at_commit(outcome, "A2", a)
            outcome.expected.append(Expected("A2", sha, a, [CODEX_PROMPTS["A2"]],
                                             ["greeting.txt", "hello.txt", "second.txt", "shell.txt"],
                                             _codex_usage(asked), None, [server.base.FINAL_TWO]))  # fmt: skip
            run, asked = turn("A3", a)
            sha = world.commit("A3", ["child.txt"])
            _at_commit(outcome, "A3", a)
            parent = [r for r in asked if _thread(r) == a]
            child = [r for r in asked if _thread(r) != a]
            outcome.expected.append(Expected("A3", sha, a, [CODEX_PROMPTS["A3"]], ["child.txt"], _codex_usage(parent),
                                             _codex_usage(child), [server.base.FINAL_PARENT]))  # fmt: skip

            # Session B: the agent's own commit mid-turn, a text-only turn, an edit turn; the user commits at the end.
            run, asked = turn("B1")
            b = outcome.sessions["B"] = _thread_id(run)
            agent_commit = world.head()
            outcome.expected.append(Expected("B1-agent-commit", agent_commit, b, [CODEX_PROMPTS["B1"]], ["mid.txt"],
                                             _codex_usage(asked[:2]), None, []))  # fmt: skip
            rest_b1 = asked[2:]
            run, asked_b2 = turn("B2", b)
            run, asked_b3 = turn("B3", b)
            sha = world.commit("B end", ["late.txt", "notes.txt"])
            _at_commit(outcome, "B-end", b)
            # The commit carries the rest of B1 (late.txt), so B1's prompt is in prompt.txt; the transcript's
            # scope starts where the agent's commit left off, inside B1.
            outcome.expected.append(Expected("B-end", sha, b, [CODEX_PROMPTS[k] for k in ("B1", "B2", "B3")],
                                             ["late.txt", "notes.txt"], _codex_usage(rest_b1 + asked_b2 + asked_b3), None,
                                             [server.FINAL_MID, server.FINAL_TEXT, server.FINAL_THREE],
                                             [CODEX_PROMPTS["B2"], CODEX_PROMPTS["B3"]]))  # fmt: skip

            _user_commands(outcome)
            outcome.facts["ref_final"] = _final_views(world, a, b)
            outcome.facts["edited"] = {"README.md"}
            outcome.facts["resumed_history"] = [CODEX_PROMPTS["B1"], CODEX_PROMPTS["B3"]]

            # Resume: the session's files deleted, restored by the host through write-session, then resumed.
            _resume(outcome, b, sorted((codex_home / "sessions").rglob(f"rollout-*-{b}.jsonl")))
            _, outcome.facts["resumed_requests"] = _turn(
                outcome, requests, "R", [*codex, "resume", b, CODEX_PROMPTS["R"]], check=False
            )
            _disable(outcome)
    return outcome


# -- Gemini CLI -----------------------------------------------------------------------------------------

GEMINI_PORT = 18792
GEMINI_MODEL = "gemini-2.5-flash"
GEMINI_PROMPTS = {
    "A1": "Create hello.txt with a greeting.",
    "A2": "RENAME-DELETE: edit hello.txt, rename it to greeting.txt and delete old.txt",
    "A3": "Use a subagent to create sub.txt",
    "B1": "MID-COMMIT: add mid.txt and commit it yourself, then write late.txt",
    "B2": "TEXT-ONLY: say in one sentence what you would change next",
    "B3": "EDIT-THREE: rewrite late.txt and add notes.txt",
    "R": "TEXT-ONLY: after the resume, say what the earlier turns did",
}
QUIET_SETTINGS = {
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
}  # fmt: skip
"""The user settings Gemini CLI and Qwen Code run with: no update checks, no usage statistics, no telemetry."""
GEMINI_CALL = {"input_tokens": 60, "cache_creation_tokens": 0, "cache_read_tokens": 40, "output_tokens": 13,
               "api_call_count": 1}  # fmt: skip
"""One scripted model call as the host stores it: 100 prompt - 40 cached, 10 + 3 thoughts out."""


def _gemini_usage(requests: list[dict[str, Any]]) -> dict[str, int] | None:
    calls = [r for r in requests if ":streamGenerateContent" in r.get("path", "")]
    if not calls:
        return None
    return {k: v * len(calls) for k, v in GEMINI_CALL.items()}


def _streamed(requests: list[dict[str, Any]], subagent: bool) -> list[dict[str, Any]]:
    return [r for r in requests if ":streamGenerateContent" in r.get("path", "")
            and ("complete_task" in (r.get("tools") or [])) == subagent]  # fmt: skip


def _gemini_session(run: Run) -> str:
    try:
        answer, _ = json.JSONDecoder().raw_decode(run.stdout.lstrip())
    except ValueError:
        return ""
    return str(answer.get("session_id", "")) if isinstance(answer, dict) else ""


def run_gemini(
    work: Path, backend: str, plugins: Path, gemini_bin: Path, kill: Kill | None = None
) -> Outcome:
    """The Gemini CLI scenario under the real host, with checkpoints in ``backend``."""
    import gemini_host_server as server

    with Namespace() as ns:
        world = World(work, ns, [plugins, gemini_bin.parent, _node()], entire_bin(), kill=kill, GEMINI_API_KEY="scripted",
                      GEMINI_CLI_TRUST_WORKSPACE="true", GEMINI_TELEMETRY_ENABLED="false", NO_BROWSER="1",
                      GOOGLE_GEMINI_BASE_URL=f"http://127.0.0.1:{GEMINI_PORT}", **variant_env(backend))  # fmt: skip
        (world.home / ".gemini").mkdir(parents=True)
        (world.home / ".gemini" / "settings.json").write_text(json.dumps({
            **QUIET_SETTINGS, "security": {"auth": {"selectedType": "gemini-api-key"}},
        }))  # fmt: skip
        outcome = _begin(
            world, "google-gemini", backend, {"README.md": "# e2e\n", "old.txt": "to be deleted\n"}
        )
        flags = ["--yolo", "-m", GEMINI_MODEL, "-o", "json"]
        served = _served(world, GEMINI_PORT, "gemini_host_server.py", "--workdir", str(world.repo))
        with served as requests:
            _enable(outcome)

            def turn(label: str, session: str = "") -> tuple[Run, list[dict[str, Any]]]:
                resume = ["--resume", session] if session else []
                return _turn(
                    outcome, requests, label, [str(gemini_bin), "-p", GEMINI_PROMPTS[label], *resume, *flags]
                )

            run, asked = turn("A1")
            a = outcome.sessions["A"] = _gemini_session(run)
            sha = world.commit("A1", ["hello.txt"])
            _at_commit(outcome, "A1", a)
            outcome.expected.append(Expected("A1", sha, a, [GEMINI_PROMPTS["A1"]], ["hello.txt"],
                                             _gemini_usage(asked), None, [api_answer("hello")]))  # fmt: skip
            run, asked = turn("A2", a)
            sha = world.commit("A2", ["hello.txt", "greeting.txt", "old.txt"])
            _at_commit(outcome, "A2", a)
            outcome.expected.append(Expected("A2", sha, a, [GEMINI_PROMPTS["A2"]], ["greeting.txt", "hello.txt", "old.txt"],
                                             _gemini_usage(asked), None, [server.ANSWERS["rename-delete"]]))  # fmt: skip
            run, asked = turn("A3", a)
            sha = world.commit("A3", ["sub.txt"])
            _at_commit(outcome, "A3", a)
            outcome.expected.append(Expected("A3", sha, a, [GEMINI_PROMPTS["A3"]], ["sub.txt"],
                                             _gemini_usage(_streamed(asked, False)), _gemini_usage(_streamed(asked, True)),
                                             [api_answer("subagent")]))  # fmt: skip

            # Gemini CLI runs its shell's git with `core.hooksPath` emptied (GIT_CONFIG_KEY_n in the tool's
            # environment), so Entire's git hooks never run for a commit Gemini makes itself: that commit has
            # no trailer, and the user's commit at the end carries the whole session.
            run, asked = turn("B1")
            b = outcome.sessions["B"] = _gemini_session(run)
            outcome.expected.append(Expected("B1-agent-commit", world.head(), b, [], ["mid.txt"]))
            run, asked_b2 = turn("B2", b)
            run, asked_b3 = turn("B3", b)
            sha = world.commit("B end", ["late.txt", "notes.txt"])
            _at_commit(outcome, "B-end", b)
            outcome.expected.append(Expected("B-end", sha, b, [GEMINI_PROMPTS[k] for k in ("B1", "B2", "B3")],
                                             ["late.txt", "notes.txt"], _gemini_usage(_streamed(asked + asked_b2 + asked_b3, False)),
                                             None, [server.ANSWERS[k] for k in ("mid-commit", "text-only", "edit-three")]))  # fmt: skip

            _user_commands(outcome)
            outcome.facts["ref_final"] = _final_views(world, a, b)
            outcome.facts["edited"] = set()
            outcome.facts["resumed_history"] = [GEMINI_PROMPTS["B1"], GEMINI_PROMPTS["B3"]]

            chats = world.home / ".gemini" / "tmp" / "repo" / "chats"

            def chat_files() -> list[Path]:
                return sorted(chats.glob(f"session-*-{b[:8]}*.json*"))

            _resume(outcome, b, chat_files(), chat_files)
            _, resumed = _turn(outcome, requests, "R", [str(gemini_bin), "-p", GEMINI_PROMPTS["R"], "--resume", b, *flags],
                               check=False)  # fmt: skip
            outcome.facts["resumed_requests"] = [r for r in resumed if "history" in r]

            _disable(outcome)
    return outcome


def api_answer(key: str) -> str:
    import gemini_host_server as server

    return str(server.api.ANSWERS[key])


# -- Aider ----------------------------------------------------------------------------------------------

AIDER_PORT = 18793
AIDER_PROMPTS = {
    "A1": "EDIT-GREET: add a greet function to hello.py",
    "A2": "CREATE-NOTES: create NOTES.md",
    "A3": "TEXT-ONLY: what does greet do?",
}
AIDER_CALLS = {
    # EDIT-GREET's answer reports 1234 prompt tokens, 1024 of them cached as OpenAI reports it (inside
    # prompt_tokens_details), which Aider never reads: all 1234 are input.
    "edit_greet": {"input_tokens": 1234, "cache_creation_tokens": 0, "cache_read_tokens": 0, "output_tokens": 56,
                   "api_call_count": 1},
    # CREATE-NOTES's reports 896 of the 1234 as DeepSeek's prompt_cache_hit_tokens, which Aider shows as
    # "896 cache hit": input = 1234 - 896 = 338.
    "create_notes": {"input_tokens": 338, "cache_creation_tokens": 0, "cache_read_tokens": 896, "output_tokens": 56,
                     "api_call_count": 1},
    "plain": {"input_tokens": 1234, "cache_creation_tokens": 0, "cache_read_tokens": 0, "output_tokens": 56,
              "api_call_count": 1},
}  # fmt: skip
"""One scripted main-model call of each kind (``model_server.usage``) as the host stores it; the weak
model's commit messages are not the turn's."""


def _aider_usage(requests: list[dict[str, Any]]) -> dict[str, int]:
    calls = [r for r in requests if r.get("kind") not in ("commit", "summary")]
    return {k: sum(AIDER_CALLS[call["kind"]][k] for call in calls) for k in TOKEN_KEYS}


def run_aider(work: Path, backend: str, plugins: Path, aider_bin: Path, kill: Kill | None = None) -> Outcome:
    """Aider through our launcher (``entire-agent-aider run``) under the real host; Aider commits each edit
    itself (its auto-commits are the agent's own commits), and a text-only turn commits nothing."""
    import importlib
    import time

    sys.path.insert(
        0, str(Path(__file__).resolve().parents[2] / "packages" / "agent-aider" / "tests" / "e2e")
    )
    driver: Any = importlib.import_module("driver")

    analytics = work / "analytics.jsonl"
    with Namespace() as ns:
        # The plugin's exact token counts come from Aider's analytics log: a side file the recording keeps.
        world = World(work, ns, [plugins, aider_bin.parent], entire_bin(), side_files=(analytics,), kill=kill,
                      TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1", LITELLM_LOCAL_MODEL_COST_MAP="True",
                      **variant_env(backend))  # fmt: skip
        caches = world.home / ".aider" / "caches"
        caches.mkdir(parents=True)
        venv = aider_bin.parent.parent
        cost_map = next(
            (venv / "lib").glob("python3*/site-packages/litellm/model_prices_and_context_window_backup.json")
        )
        shutil.copy(cost_map, caches / "model_prices_and_context_window.json")
        hello = 'def main():\n    print("hello")\n\n\nif __name__ == "__main__":\n    main()\n'
        outcome = _begin(world, "aider", backend, {"hello.py": hello, ".gitignore": ".aider*\n"})
        common = ["--model", "openai/gpt-4o", "--openai-api-base", f"http://127.0.0.1:{AIDER_PORT}/v1",
                  "--openai-api-key", "fake", "--no-check-update", "--no-analytics", "--no-show-release-notes",
                  "--no-show-model-warnings", "--yes-always", "--no-pretty", "--no-stream",
                  # Exact tokens come from Aider's analytics log (its Markdown rounds 1234 to 1.2k), as the README says.
                  "--analytics-log", str(analytics), "hello.py"]  # fmt: skip
        history = world.repo / ".aider.chat.history.md"

        def text() -> bytes:
            return _read(history)

        with _served(world, AIDER_PORT, "aider_host_server.py") as requests:
            _enable(outcome)
            argv = ns.argv(["entire-agent-aider", "run", "--", *common])
            term = driver.Pty(argv, world.repo, world.env, work / "aider.pty.log")

            def settled() -> None:
                count = -1
                while count != len(world.trace_calls()):
                    count = len(world.trace_calls())
                    term.pump(2.0)

            driver.wait_for(lambda: b"Added hello.py" in text(), term, 90, "Aider to start")
            term.pump(2.0)
            turns: dict[str, list[dict[str, Any]]] = {}
            for index, label in enumerate(("A1", "A2", "A3"), 1):
                start = requests.mark()
                world.turn_starts(label)
                term.send(AIDER_PROMPTS[label] + "\r")
                driver.wait_for(
                    lambda i=index: text().count(b"> Tokens: ") >= i, term, 90, f"turn {label} reply"
                )
                if label != "A3":
                    driver.wait_for(
                        lambda i=index: text().count(b"> Commit ") >= i, term, 90, f"turn {label} commit"
                    )
                settled()
                turns[label] = requests.all()[start:]
            term.send("/exit\r")
            outcome.commands["aider"] = Run(argv, term.wait(60), "", "", 0.0)
            term.log.close()
            os_close(term.master)
            session = next(
                (str(e["session_id"]) for e in reversed(_hook_events(world)) if e.get("session_id")), ""
            )
            outcome.sessions["A"] = session
            commits = [sha for sha, _, _ in outcome.commits()]
            files = {"A1": ["hello.py"], "A2": ["NOTES.md"]}
            # Each reply whole, as Aider logs it (its view restates a reply as one record).
            server: Any = importlib.import_module("model_server")
            replies = {"A1": server.EDIT_GREET.strip(), "A2": server.CREATE_NOTES.strip()}
            for label, sha in zip(("A1", "A2"), commits, strict=False):
                outcome.expected.append(Expected(label, sha, session, [AIDER_PROMPTS[label]], files[label],
                                                 _aider_usage(turns[label]), None, [replies[label]]))  # fmt: skip
            outcome.facts["aider_commits"] = len(commits)
            outcome.facts["ref_final"] = _final_views(world, session) if session else {}
            time.sleep(0.5)
            _user_commands(outcome)
            outcome.facts["edited"] = {"hello.py"}
            outcome.facts["agent_own_files"] = (
                ".aider.chat.history.md",
                ".aider.input.history",
                ".aider.tags.cache",
            )
            _disable(outcome)
    return outcome


def os_close(fd: int) -> None:
    import contextlib
    import os

    with contextlib.suppress(OSError):
        os.close(fd)


# -- Qwen Code ------------------------------------------------------------------------------------------

QWEN_PORT = 18794
QWEN_PROMPTS = {
    **GEMINI_PROMPTS,
    "A1": "EDIT-ONE: create hello.txt and update README.md",
    "A2": "RENAME-DELETE: rename hello.txt to greeting.txt, delete old.txt, add second.txt",
    "C1": "FIRST-COMMIT: add first.txt and commit it yourself, then write after.txt",
}
"""Gemini's prompts, but for the first two turns (Qwen's ``edit`` needs a ``read_file`` first), and a
session C whose first turn has the agent's own commit."""
OPENAI_TOOL_CALL = {"input_tokens": 60, "cache_creation_tokens": 0, "cache_read_tokens": 40, "output_tokens": 10,
                    "api_call_count": 1}  # fmt: skip
"""A call of the scripted OpenAI API (``openai_host_server``) answered with a tool call, as the host stores
it (``openai_api.USAGE``): 100 prompt tokens - 40 cached = 60 input, 40 cache read, 10 out."""
OPENAI_TEXT_CALL = {"input_tokens": 40, "cache_creation_tokens": 0, "cache_read_tokens": 60, "output_tokens": 40,
                    "api_call_count": 1}  # fmt: skip
"""A call answered with text (``openai_api.REASONED``): 100 prompt tokens - 60 cached = 40 input, 60 cache
read, 40 out (its completion count, which holds its 30 reasoning tokens: not 40 + 30 = 70)."""


def _openai_usage(requests: list[dict[str, Any]]) -> dict[str, int] | None:
    """The usage the host should store for these requests: each by what it was answered with."""
    if not requests:
        return None
    texts = sum(isinstance(r["step"], str) for r in requests)
    tools = len(requests) - texts
    return {k: OPENAI_TOOL_CALL[k] * tools + OPENAI_TEXT_CALL[k] * texts for k in TOKEN_KEYS}


def _openai_a3(outcome: Outcome, prompts: dict[str, str], a: str, asked: list[dict[str, Any]]) -> None:
    """The user's commit after turn A3 (a subagent wrote sub.txt) of an agent the scripted OpenAI API drives,
    and what its checkpoint should hold: the subagent's requests (``asked``, by their prompt) as its tokens."""
    import openai_host_server as server

    sha = outcome.world.commit("A3", ["sub.txt"])
    _at_commit(outcome, "A3", a)
    main = [r for r in asked if not _subagent_request(r)]
    outcome.expected.append(Expected("A3", sha, a, [prompts["A3"]], ["sub.txt"], _openai_usage(main),
                                     _openai_usage([r for r in asked if _subagent_request(r)]),
                                     [server.ANSWERS["subagent"]]))  # fmt: skip


def _openai_b_end(outcome: Outcome, prompts: dict[str, str], b: str, asked: list[dict[str, Any]]) -> None:
    """The user's commit at the end of session B of an agent the scripted OpenAI API drives (Qwen, Cline),
    and what its checkpoint should hold: the rest of B1 after the agent's own commit (``asked``: its
    requests, B2's and B3's), so B1's prompt in prompt.txt, and a transcript scope from inside B1."""
    import openai_host_server as server

    sha = outcome.world.commit("B end", ["late.txt", "notes.txt"])
    _at_commit(outcome, "B-end", b)
    outcome.expected.append(Expected("B-end", sha, b, [prompts[k] for k in ("B1", "B2", "B3")], ["late.txt", "notes.txt"],
                                     _openai_usage(asked), None,
                                     [server.ANSWERS[k] for k in ("mid-commit", "text-only", "edit-three")],
                                     [prompts["B2"], prompts["B3"]]))  # fmt: skip


def _subagent_request(request: dict[str, Any]) -> bool:
    """Whether the scripted API's ``request`` is the subagent's (its prompt is the subagent's task)."""
    return "sub.txt task" in str(request.get("prompt", ""))


def run_qwen(work: Path, backend: str, plugins: Path, qwen_bin: Path, kill: Kill | None = None) -> Outcome:
    """The Qwen Code scenario under the real host, with checkpoints in ``backend``."""
    import time

    import openai_host_server as server

    qwen_home = work / "home" / ".qwen"
    with Namespace() as ns:
        world = World(work, ns, [plugins, qwen_bin.parent, _node()], entire_bin(), kill=kill, QWEN_HOME=str(qwen_home),
                      QWEN_RUNTIME_DIR=str(qwen_home), OPENAI_API_KEY="scripted", OPENAI_MODEL="qwen-scripted",
                      OPENAI_BASE_URL=f"http://127.0.0.1:{QWEN_PORT}/v1", QWEN_USAGE_STATISTICS_ENABLED="false",
                      QWEN_CODE_DISABLE_PRECONNECT="1", QWEN_DISABLE_AUTO_TITLE="1",
                      QWEN_CODE_SUPPRESS_YOLO_WARNING="1", **variant_env(backend))  # fmt: skip
        qwen_home.mkdir(parents=True)
        (qwen_home / "settings.json").write_text(json.dumps({
            **QUIET_SETTINGS, "memory": {"enableManagedAutoMemory": False}}))  # fmt: skip
        outcome = _begin(world, "qwen-code", backend, {"README.md": "# e2e\n", "old.txt": "to be deleted\n"})
        chats = qwen_home / "projects" / "".join(c if c.isalnum() else "-" for c in str(world.repo)) / "chats"
        with _served(world, QWEN_PORT, "openai_host_server.py", "--workdir", str(world.repo)) as requests:
            _enable(outcome)

            def turn(label: str, session: str = "", settle: float = 0) -> tuple[str, list[dict[str, Any]]]:
                start = requests.mark()
                before = {p.stem for p in chats.glob("*.jsonl")}
                resume = ["-r", session] if session else []
                world.turn_starts(label)
                outcome.commands[label] = world.run([str(qwen_bin), *resume, "-p", QWEN_PROMPTS[label], "--yolo"],
                                                    timeout=300)  # fmt: skip
                if settle:  # a background subagent's result comes back after the first Stop
                    time.sleep(settle)
                    count = -1
                    while count != len(world.trace_calls()):
                        count = len(world.trace_calls())
                        time.sleep(2)
                new = sorted({p.stem for p in chats.glob("*.jsonl")} - before)
                return session or (new[0] if new else ""), requests.all()[start:]

            a, asked = turn("A1")
            outcome.sessions["A"] = a
            sha = world.commit("A1", ["hello.txt", "README.md"])
            _at_commit(outcome, "A1", a)
            outcome.expected.append(Expected("A1", sha, a, [QWEN_PROMPTS["A1"]], ["README.md", "hello.txt"],
                                             _openai_usage(asked), None, [server.ANSWERS["edit-one"]]))  # fmt: skip
            _, asked = turn("A2", a)
            sha = world.commit("A2", ["hello.txt", "greeting.txt", "old.txt", "second.txt"])
            _at_commit(outcome, "A2", a)
            outcome.expected.append(Expected("A2", sha, a, [QWEN_PROMPTS["A2"]],
                                             ["greeting.txt", "hello.txt", "old.txt", "second.txt"],
                                             _openai_usage(asked), None, [server.ANSWERS["rename-delete"]]))  # fmt: skip
            _, asked = turn("A3", a, settle=5)
            _openai_a3(outcome, QWEN_PROMPTS, a, asked)

            # Session C: the agent commits in the session's first turn, whose start (the chat does not exist
            # at its UserPromptSubmit) is the view's first line; the user commits right after that turn.
            # Before session B, whose chat the resume below restores (the branch's newest session).
            c, asked = turn("C1")
            outcome.sessions["C"] = c
            agent_commit = next(
                (sha for sha, subject, _ in outcome.commits() if subject == "agent: first.txt"), ""
            )
            outcome.expected.append(Expected("C1-agent-commit", agent_commit, c, [QWEN_PROMPTS["C1"]], ["first.txt"],
                                             _openai_usage(asked[:2]), None, []))  # fmt: skip
            sha = world.commit("C1", ["after.txt"])
            _at_commit(outcome, "C1", c)
            # The turn's prompt is in prompt.txt; the transcript's scope starts after the agent's commit.
            outcome.expected.append(Expected("C1", sha, c, [QWEN_PROMPTS["C1"]], ["after.txt"], _openai_usage(asked[2:]),
                                             None, [server.ANSWERS["first-commit"]], []))  # fmt: skip

            b, asked = turn("B1")
            outcome.sessions["B"] = b
            outcome.facts["b1_requests"] = asked
            agent_commit = next(
                (sha for sha, subject, _ in outcome.commits() if subject == "agent: mid.txt"), ""
            )
            outcome.expected.append(Expected("B1-agent-commit", agent_commit, b, [QWEN_PROMPTS["B1"]], ["mid.txt"],
                                             _openai_usage(asked[:2]), None, []))  # fmt: skip
            _, asked_b2 = turn("B2", b)
            _, asked_b3 = turn("B3", b)
            _openai_b_end(outcome, QWEN_PROMPTS, b, asked[2:] + asked_b2 + asked_b3)

            _user_commands(outcome)
            outcome.facts["ref_final"] = _final_views(world, a, b, c)
            outcome.facts["edited"] = {"README.md"}
            outcome.facts["resumed_history"] = [QWEN_PROMPTS["B1"], QWEN_PROMPTS["B3"]]

            # Resume: Qwen's chat and the view deleted, the host restores the chat through write-session.
            _resume(outcome, b, [chats / f"{b}.jsonl"])
            _, resumed = _turn(outcome, requests, "R", [str(qwen_bin), "-r", b, "-p", QWEN_PROMPTS["R"], "--yolo"],
                               check=False)  # fmt: skip
            outcome.facts["resumed_requests"] = [r["body"] for r in resumed]

            _disable(outcome)
    return outcome


# -- Cline CLI ------------------------------------------------------------------------------------------

CLINE_PORT = 18795
CLINE_PROMPTS = {**QWEN_PROMPTS, "A3": "SUBAGENT: have a subagent write sub.txt"}
"""Qwen's prompts (the scripted API is the same, in Cline's tools), but for the subagent's turn."""
CLINE_ENV = {
    "CLINE_SESSION_BACKEND_MODE": "local",
    "CLINE_TELEMETRY_DISABLED": "1",
    "CLINE_NO_AUTO_UPDATE": "1",
}
"""Sessions in the ``cline`` process, not a detached hub daemon; no telemetry, no update check."""
HOOKS_SETTLE = 120.0
"""How long a turn's detached hooks may take to finish: a hung call lives 30 s before the host kills it."""


def _running_hooks(world: World) -> list[str]:
    """The hook processes of the world still running: Cline's hook scripts, ``entire``, our plugin."""
    found: list[str] = []
    for pid, argv in world.processes().items():
        names = [Path(arg).name for arg in argv[:2]]
        if any(n == "entire" or n.startswith("entire-agent-") for n in names) or any(
            "/.cline/hooks/" in arg for arg in argv
        ):
            found.append(f"{pid}: {' '.join(argv)}")
    return found


def _hooks_settled(
    world: World,
    requests: Requests,
    start: tuple[int, int],
    reply: str,
    ends: int,
    wait: Callable[[float], None],
) -> None:
    """Wait (``wait(seconds)`` passes the time) until the turn that started at ``start`` (the request log's
    and the plugin trace's lengths then) has been answered with ``reply``, ``ends`` turn-end hooks (the
    subagent's too) were answered or the kill hung one, and no hook process is left: Cline runs its hooks
    detached, so they may outlive its turn."""
    import time

    asked, traced = start
    deadline = time.monotonic() + HOOKS_SETTLE
    quiet = 0
    while time.monotonic() < deadline:
        answered = any(r["step"] == reply for r in requests.all()[asked:])
        calls = world.trace_calls()[traced:]
        done = sum(c["subcommand"] == "parse-hook" and "task-complete" in c["args"] for c in calls)
        quiet = (
            quiet + 1 if answered and (done >= ends or world.killed()) and not _running_hooks(world) else 0
        )
        if quiet >= 4:  # a second and more with no hook running
            return
        wait(0.3)
    raise AssertionError(f"the turn's hooks did not settle: answered {reply!r}, {_running_hooks(world)}")


def _stop_hub_daemons(world: World) -> list[int]:
    """Stop the ``cline --cline-hub-daemon`` that a TUI leaves running (by pid); their pids."""
    import os
    import signal

    stopped = [pid for pid, argv in world.processes().items() if "--cline-hub-daemon" in argv]
    for pid in stopped:
        os.kill(pid, signal.SIGTERM)
    return stopped


def _cline_sessions(sessions: Path) -> set[str]:
    return {p.name for p in sessions.iterdir() if p.is_dir()} if sessions.is_dir() else set()


def run_cline(work: Path, backend: str, plugins: Path, cline_bin: Path, kill: Kill | None = None) -> Outcome:
    """The Cline CLI scenario under the real host, with checkpoints in ``backend``: a one-shot ``cline
    --json`` run starts each session, whose later turns are typed into its TUI (``cline --id``, the only
    way Cline resumes a session) through a pseudo-terminal, the user committing between them."""
    import contextlib
    import importlib
    import sqlite3
    import time

    import openai_host_server as server

    sys.path.insert(
        0, str(Path(__file__).resolve().parents[2] / "packages" / "agent-aider" / "tests" / "e2e")
    )
    driver: Any = importlib.import_module("driver")  # its Pty: a pseudo-terminal drained as it is waited on

    with Namespace() as ns:
        world = World(work, ns, [plugins, cline_bin.parent, _node()], entire_bin(), kill=kill, **CLINE_ENV,
                      **variant_env(backend))  # fmt: skip
        sessions = world.home / ".cline" / "data" / "sessions"
        outcome = _begin(world, "cline-cli", backend, {"README.md": "# e2e\n", "old.txt": "to be deleted\n"})
        with _served(world, CLINE_PORT, "openai_host_server.py", "--workdir", str(world.repo)) as requests:
            outcome.commands["auth"] = world.run([str(cline_bin), "auth", "-p", "openai-compatible", "-k", "scripted",
                                                  "-m", "scripted", "-b", f"http://127.0.0.1:{CLINE_PORT}/v1"])  # fmt: skip
            _enable(outcome)

            def one_shot(label: str, key: str) -> tuple[str, list[dict[str, Any]]]:
                """A new session's first turn; its id and its requests."""
                before = _cline_sessions(sessions)
                start = requests.mark(), len(world.trace_calls())
                world.turn_starts(label)
                outcome.commands[label] = world.run(
                    [str(cline_bin), "--json", CLINE_PROMPTS[label]], timeout=300
                )
                _hooks_settled(world, requests, start, server.ANSWERS[key], 1, time.sleep)
                new = sorted(_cline_sessions(sessions) - before)
                return (new[0] if new else ""), requests.all()[start[0] :]

            class Tui:
                """The session's TUI (``cline --id``) in a pseudo-terminal, turn by turn."""

                def __init__(self, session: str, name: str) -> None:
                    self.argv = ns.argv([str(cline_bin), "--id", session])
                    self.term = driver.Pty(
                        self.argv, world.repo, {**world.env, "TERM": "xterm"}, work / f"{name}.pty.log"
                    )
                    self.term.pump(8.0)

                def turn(self, label: str, key: str, ends: int = 1) -> list[dict[str, Any]]:
                    start = requests.mark(), len(world.trace_calls())
                    world.turn_starts(label)
                    self.type(CLINE_PROMPTS[label])
                    _hooks_settled(world, requests, start, server.ANSWERS[key], ends, self.term.pump)
                    return requests.all()[start[0] :]

                def type(self, text: str) -> None:
                    for char in text:
                        self.term.send(char)
                        self.term.pump(0.02)
                    self.term.pump(0.3)
                    self.term.send("\r")

                def exit(self, label: str) -> None:
                    self.type("/exit")
                    code = self.term.wait(30)
                    self.term.log.close()
                    os_close(self.term.master)
                    outcome.commands[label] = Run(self.argv, code, "", "", 0.0)
                    outcome.facts.setdefault("hub_daemons", []).extend(_stop_hub_daemons(world))

            # Session A: one turn each, the user committing after each.
            a, asked = one_shot("A1", "edit-one")
            outcome.sessions["A"] = a
            sha = world.commit("A1", ["hello.txt", "README.md"])
            _at_commit(outcome, "A1", a)
            outcome.expected.append(Expected("A1", sha, a, [CLINE_PROMPTS["A1"]], ["README.md", "hello.txt"],
                                             _openai_usage(asked), None, [server.ANSWERS["edit-one"]]))  # fmt: skip
            tui = Tui(a, "tui-a")
            asked = tui.turn("A2", "rename-delete")
            sha = world.commit("A2", ["hello.txt", "greeting.txt", "old.txt", "second.txt"])
            _at_commit(outcome, "A2", a)
            outcome.expected.append(Expected("A2", sha, a, [CLINE_PROMPTS["A2"]],
                                             ["greeting.txt", "hello.txt", "old.txt", "second.txt"],
                                             _openai_usage(asked), None, [server.ANSWERS["rename-delete"]]))  # fmt: skip
            asked = tui.turn("A3", "subagent", ends=2)
            tui.exit("A-tui")
            _openai_a3(outcome, CLINE_PROMPTS, a, asked)

            # Session B: the agent's own commit in its first turn, a text-only turn and an edit turn in its TUI;
            # the user commits when the session has ended.
            b, asked = one_shot("B1", "mid-commit")
            outcome.sessions["B"] = b
            agent_commit = next(
                (sha for sha, subject, _ in outcome.commits() if subject == "agent: mid.txt"), ""
            )
            outcome.expected.append(Expected("B1-agent-commit", agent_commit, b, [CLINE_PROMPTS["B1"]], ["mid.txt"],
                                             _openai_usage(asked[:2]), None, []))  # fmt: skip
            tui = Tui(b, "tui-b")
            asked_b2 = tui.turn("B2", "text-only")
            asked_b3 = tui.turn("B3", "edit-three")
            tui.exit("B-tui")
            _openai_b_end(outcome, CLINE_PROMPTS, b, asked[2:] + asked_b2 + asked_b3)

            _user_commands(outcome)
            outcome.facts["ref_final"] = _final_views(world, a, b)
            outcome.facts["edited"] = {"README.md"}
            outcome.facts["resumed_history"] = [CLINE_PROMPTS["B1"], CLINE_PROMPTS["B3"]]

            # Resume: session B gone from Cline (its folder and its row in sessions.db), restored by the host
            # through write-session, then resumed in its TUI.
            folder = sessions / b
            with contextlib.closing(
                sqlite3.connect(world.home / ".cline" / "data" / "db" / "sessions.db")
            ) as db:
                db.execute("DELETE FROM sessions WHERE session_id = ?", (b,))
                db.commit()
            _resume(outcome, b, [folder / f"{b}.messages.json", folder / f"{b}.json"])
            start = requests.mark()
            tui = Tui(b, "tui-r")
            tui.turn("R", "text-only")
            tui.exit("R")
            outcome.facts["resumed_requests"] = [r["body"] for r in requests.all()[start:]]

            _disable(outcome)
    return outcome
