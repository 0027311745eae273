"""parse-hook over a history file that grows the way Aider grew it in the capture."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from entire_agent_aider import events
from entire_agent_aider.agent import AiderAgent
from entire_agent_aider.lifecycle import stable_session_id
from entire_core import views

TIME = "2026-11-30T03:05:00Z"


def agent_in(root: Path) -> AiderAgent:
    """The plugin for a repository at ``root``, with its state (the views) beside it."""
    env = {"ENTIRE_REPO_ROOT": str(root), "HOME": str(root / "home"), "XDG_STATE_HOME": str(root / "state")}
    return AiderAgent(env=env, cwd=str(root))


def native(view: str | Path) -> bytes:
    """The chat history a view holds (the bytes ``write-session`` would restore)."""
    return views.native_bytes(Path(view).read_bytes(), wrapped=True)


class Repo:
    def __init__(self, root: Path, data: bytes) -> None:
        self.root = root
        self.data = data
        self.history = root / ".aider.chat.history.md"
        self.agent = agent_in(root)

    def grow(self, upto: int) -> None:
        self.history.write_bytes(self.data[:upto])

    def after(self, marker: bytes, start: int) -> int:
        return self.data.index(b"\n", self.data.index(marker, start)) + 1

    def drain(self, hook: str = "turn-end", **payload: Any) -> list[tuple[int, str, int]]:
        """(type, prompt, size of the chat history the session_ref holds) of every event one trigger delivers."""
        out: list[tuple[int, str, int]] = []
        body = {"source": "notification", "history_file": str(self.history), "time": TIME, **payload}
        while (event := events.parse_hook(self.agent, hook, body)) is not None:
            assert event.timestamp == TIME
            assert os.path.dirname(event.session_ref) == self.agent.get_session_dir(str(self.root))
            out.append((event.type, event.prompt, len(native(event.session_ref))))
            body = {**body, "exited": False}
        return out

    def ids(self) -> list[str]:
        return sorted(p.stem for p in Path(self.agent.get_session_dir(str(self.root))).glob("aider-*.md"))


def test_notifications_of_an_interactive_session(tmp_path: Path, history_bytes: bytes) -> None:
    repo = Repo(tmp_path, history_bytes)
    # RUN2 rang first at "Create new file?": the reply's edit is not applied yet.
    repo.grow(repo.after(b"> Tokens: 1.2k sent", 2371))
    assert repo.drain() == [(1, "", 0), (2, "Please create NOTES.md describing the change", 0)]
    # Then at the prompt after turn 2: turn 1 is over (a later block), turn 2 too (no pending edits).
    second = repo.after(b"> Tokens: 1.2k sent", 2851)
    repo.grow(second)
    assert repo.drain() == [
        (3, "", 2851 - 1471),
        (2, "What does greet do?", 2851 - 1471),
        (3, "", second - 1471),
    ]
    assert repo.drain() == []  # nothing new
    ref = Path(repo.agent.get_session_dir(str(tmp_path))) / f"{repo.ids()[0]}.md"
    assert native(ref) == history_bytes[1471:second]  # a small session's view holds its slice
    assert not str(ref).startswith(str(tmp_path / ".entire"))
    # The next session's header ends this one (its /exit block included).
    repo.grow(3054 + 600)
    events = repo.drain()
    assert events[0] == (5, "", 3054 - 1471)
    assert events[1] == (1, "", 0)


def test_stable_ids_and_fresh_state_start_at_the_last_session(tmp_path: Path, history_bytes: bytes) -> None:
    repo = Repo(tmp_path, history_bytes)
    repo.grow(len(history_bytes))
    events = repo.drain()
    assert [e[0] for e in events] == [1, 2, 3]  # only the last session: older ones ran before Entire watched
    history = str(repo.history)
    assert repo.ids() == [stable_session_id(history, "2026-11-30 03:05:55", 0)]
    assert stable_session_id(history, "2026-11-30 03:05:55", 0).startswith("aider-20261130-030555-")
    assert stable_session_id(history, "2026-11-30 03:05:55", 1) != stable_session_id(
        history, "2026-11-30 03:05:55", 0
    )


def test_equal_headers_get_ordinals(tmp_path: Path) -> None:
    session = b"\n# aider chat started at 2026-01-01 00:00:00\n\n> Aider v0.86.2  \n\n#### hi  \n\nhello\n\n> Tokens: 5 sent, 1 received.  \n"
    repo = Repo(tmp_path, session * 2)
    repo.grow(len(session))
    assert [e[0] for e in repo.drain()] == [1, 2, 3]
    repo.grow(len(session) * 2)
    assert [e[0] for e in repo.drain()] == [5, 1, 2, 3]
    history = str(repo.history)
    assert repo.ids() == sorted(stable_session_id(history, "2026-01-01 00:00:00", n) for n in (0, 1))


def test_launcher_lifecycle(tmp_path: Path, history_bytes: bytes) -> None:
    repo = Repo(tmp_path, history_bytes)
    repo.grow(1471)  # the file before the launcher starts Aider
    launcher = {"source": "launcher", "session": "aider-run-1"}
    assert repo.drain("session-start", **launcher, start_offset=1471) == [(1, "", 0)]
    assert repo.ids() == ["aider-run-1"]
    repo.grow(2851 + 30)  # the tail sees the second input block
    assert repo.drain(**launcher) == [
        (2, "Please create NOTES.md describing the change", 0),
        (3, "", 2851 - 1471),
        (2, "What does greet do?", 2851 - 1471),
    ]
    repo.grow(3054)
    assert repo.drain(**launcher, exited=True) == [
        (3, "", 3041 - 1471),
        (5, "", 3054 - 1471),
    ]  # "/exit" ended turn 2
    assert repo.drain(**launcher, exited=True) == []


def test_launcher_exit_before_any_header(tmp_path: Path) -> None:
    repo = Repo(tmp_path, b"")
    launcher = {"source": "launcher", "session": "aider-run-2"}
    assert repo.drain("session-start", **launcher, start_offset=0) == [(1, "", 0)]
    assert repo.drain(**launcher, exited=True) == [(5, "", 0)]


def test_foreign_payloads_are_null(tmp_path: Path) -> None:
    payload = {
        "hook_type": "turn-end",
        "session_id": "test-session-hook",
        "session_ref": "",
        "timestamp": TIME,
    }
    agent = agent_in(tmp_path)
    assert events.parse_hook(agent, "turn-end", payload) is None
    assert events.parse_hook(agent, "turn-end", None) is None
    assert events.parse_hook(agent, "turn-end", {"history_file": "../../etc/passwd"}) is None
    assert not (tmp_path / ".entire").exists()
    assert not (tmp_path / "state").exists()


def test_replaced_history_file_starts_over(tmp_path: Path, history_bytes: bytes) -> None:
    repo = Repo(tmp_path, history_bytes)
    repo.grow(len(history_bytes))
    repo.drain()
    repo.history.unlink()
    repo.history.write_bytes(history_bytes[:1471])
    assert [e[0] for e in repo.drain()] == [5, 1, 2, 3]


def test_the_resume_command_names_the_sessions_slice_relative_to_the_repository(tmp_path: Path) -> None:
    from entire_agent_aider import state
    from entire_agent_aider.agent import AiderAgent
    from entire_core.scratch import Scratch

    agent = AiderAgent(env={"ENTIRE_REPO_ROOT": str(tmp_path), "HOME": str(tmp_path)}, cwd=str(tmp_path))
    command = agent.format_resume_command("aider-run-1")
    assert command == (
        "entire-agent-aider run -- --chat-history-file .entire/tmp/entire-agent-aider/aider-run-1.md"
        " --restore-chat-history"
    )
    restored = state.session_ref(Scratch(str(tmp_path), agent.name), "aider-run-1")
    assert os.path.join(tmp_path, command.split()[4]) == restored
    assert not os.path.exists(restored)  # nothing to restore from: the place write-session would use


def test_the_resume_command_names_a_file_that_exists_when_the_cli_kept_its_local_log(tmp_path: Path) -> None:
    # `entire session resume` without --force keeps the existing local log (our view of the session)
    # and never calls write-session: the command must still name a restored file.
    from entire_agent_aider.agent import AiderAgent

    agent = AiderAgent(env={"ENTIRE_REPO_ROOT": str(tmp_path), "HOME": str(tmp_path)}, cwd=str(tmp_path))
    view = Path(agent.resolve_session_file(agent.get_session_dir(str(tmp_path)), "aider-run-2"))
    view.parent.mkdir(parents=True)
    session = b"\n# aider chat started at 2026-11-30 03:05:00\n\n#### a prompt  \n\nA reply.\n\n"
    view.write_bytes(session)
    words = agent.format_resume_command("aider-run-2").split()
    assert words[:4] == ["entire-agent-aider", "run", "--", "--chat-history-file"]
    assert (tmp_path / words[4]).read_bytes() == session


def test_parse_range_reads_in_blocks_and_cuts_only_long_lines(tmp_path: Path, history_bytes: bytes) -> None:
    from entire_agent_aider import transcript

    path = tmp_path / "history.md"
    data = history_bytes + b"> unfinished"
    path.write_bytes(data)
    whole = transcript.parse(data[: transcript.complete_end(data)])
    with open(path, "rb") as f:
        for block in (7, 4096, 1 << 20):
            history, end = transcript.parse_range(f, 0, len(data), block=block)
            assert end == len(history_bytes)
            assert [(s.start, s.header, s.model) for s in history.sessions] == [
                (s.start, s.header, s.model) for s in whole.sessions
            ]
            assert [(t.offset, t.end, t.prompt, t.files, t.reply) for t in history.turns()] == [
                (t.offset, t.end, t.prompt, t.files, t.reply) for t in whole.turns()
            ]


def test_a_huge_tool_line_is_scanned_in_bounded_memory(tmp_path: Path, history_bytes: bytes) -> None:
    """A turn that logs a 6 MB ``> `` line: the lifecycle reads it block by block, its events unchanged."""
    import tracemalloc

    from entire_agent_aider import state as store
    from entire_agent_aider.lifecycle import Machine, Trigger
    from entire_core.scratch import Scratch

    repo = Repo(tmp_path, history_bytes)
    first_turn = history_bytes.index(b"\n# aider chat started at ", 10)
    huge = b"> " + b"x" * (6 << 20) + b"  \n"
    after = b"> Applied edit to hello.py  \n"
    prefix = history_bytes[:first_turn]
    repo.history.write_bytes(prefix[: prefix.index(b"> Tokens: ")])
    assert [t for t, _, _ in repo.drain()] == [1, 2]  # a turn under way: no TurnEnd yet
    repo.history.write_bytes(prefix + huge + after)
    state = store.load(Scratch(str(tmp_path), repo.agent.name), str(repo.history))
    machine = Machine(str(repo.history), state, Trigger(time=TIME, notification=True))
    tracemalloc.start()
    machine.scan()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 3 << 20, f"the scan held {peak >> 20} MiB for a 6 MiB line"
    assert [(e["type"], e["upto"]) for e in machine.queue] == [(3, len(prefix) + len(huge) + len(after))]


def test_a_chat_command_and_its_echo_are_one_turn(tmp_path: Path) -> None:
    # Real Aider 0.86.2: "/ask <text>" is logged as typed, then "<text>" again before the reply.
    data = (Path(__file__).parent / "data" / "ask-commands.chat.history.md").read_bytes()
    repo = Repo(tmp_path, data)
    typed = data.index(b"#### /ask What does greet do?  \n")
    # The launcher's Aider calls the model when only the typed block is logged, not yet the echo.
    repo.grow(0)
    launcher = {"source": "launcher", "session": "aider-run-1"}
    assert [kind for kind, _, _ in repo.drain("session-start", **launcher, start_offset=0)] == [1]
    repo.grow(repo.after(b"#### /ask What", typed))
    started = repo.drain("turn-start", **launcher)
    assert [(kind, prompt) for kind, prompt, _ in started] == [(2, "/ask What does greet do?")]
    # The echo and the reply follow; the notification ends that one turn, and starts no other.
    repo.grow(repo.after(b"> Tokens: ", typed))
    assert [(kind, prompt) for kind, prompt, _ in repo.drain()] == [(3, "")]
    # The same question typed after the reply is a turn of its own.
    second = data.index(b"> Tokens: ", typed) + 1
    repo.grow(repo.after(b"> Tokens: ", second))
    assert [(kind, prompt) for kind, prompt, _ in repo.drain()] == [(2, "What does greet do?"), (3, "")]


PENDING = (
    b"\n# aider chat started at 2026-11-30 03:05:00\n\n> Aider v0.86.2  \n\n#### CREATE-NOTES: create NOTES.md  \n\n"
    b"I'll create NOTES.md.\n\nNOTES.md\n```markdown\n<<<<<<< SEARCH\n=======\n# Notes\n>>>>>>> REPLACE\n```\n\n"
    b"> Tokens: 1.2k sent, 56 received.  \n"
)


def test_the_launchers_turn_over_ends_a_turn_a_notification_leaves_open(tmp_path: Path) -> None:
    # The reply's edit is not applied yet (Aider asks "Create new file?"): a notification rang by that
    # confirmation is no turn end, but Aider asking for the next input is, whatever the markdown shows.
    repo = Repo(tmp_path, PENDING)
    repo.grow(0)  # the launcher starts Aider
    launcher = {"source": "launcher", "session": "aider-run-1"}
    assert repo.drain("session-start", **launcher, start_offset=0) == [(1, "", 0)]
    repo.grow(len(PENDING))
    assert repo.drain("turn-start", **launcher) == [(2, "CREATE-NOTES: create NOTES.md", 0)]
    assert repo.drain(session="aider-run-1") == []  # the notification at the confirmation
    assert repo.drain(**launcher, turn_over=True) == [(3, "", len(PENDING))]
    assert repo.drain(**launcher, turn_over=True) == []  # once


def test_sync_brings_the_launched_sessions_view_to_the_end_of_the_history(tmp_path: Path) -> None:
    repo = Repo(
        tmp_path, PENDING + b"> Applied edit to NOTES.md  \n> Commit 1234567 feat: notes  \n> half a li"
    )
    repo.grow(0)
    launcher = {"source": "launcher", "session": "aider-run-1"}
    repo.drain("session-start", **launcher, start_offset=0)
    repo.grow(len(repo.data))
    repo.drain("turn-start", **launcher)
    view = Path(repo.agent.resolve_session_file(repo.agent.get_session_dir(str(tmp_path)), "aider-run-1"))
    assert view.read_bytes() == views.LEAD + b"\n"  # TurnStart's view ends before the prompt, at line 1
    argv = ["--history", str(repo.history), "--session", "aider-run-1"]
    assert (
        events.sync(repo.agent, type(repo.agent).commands["sync"].parse([*argv[:3], "aider-run-other"])) == 0
    )
    assert view.read_bytes() == views.LEAD + b"\n"  # another session's sync leaves this view alone
    assert events.sync(repo.agent, type(repo.agent).commands["sync"].parse(argv)) == 0
    assert native(view) == repo.data[: repo.data.rindex(b"\n") + 1]  # every complete line, no further
    assert repo.drain(**launcher, turn_over=True) == [(3, "", len(native(view)))]


def test_a_plain_aider_between_launched_sessions_is_read_past_not_reported(tmp_path: Path) -> None:
    # Plain aider's notification reports nothing; the next launched session must not report its turns
    # either: its commits are long made, and its data would land on the launched session's commits.
    def session(minute: int, prompt: str) -> bytes:
        return (
            f"\n# aider chat started at 2026-11-30 03:{minute:02d}:00\n\n> Aider v0.86.2  \n\n#### {prompt}  \n\n"
            "A reply.\n\n> Tokens: 1.2k sent, 56 received.  \n"
        ).encode()

    first, plain, last = session(1, "LAUNCHED 1"), session(2, "PLAIN"), session(3, "LAUNCHED 2")
    repo = Repo(tmp_path, first + plain + last)
    repo.grow(0)
    one = {"source": "launcher", "session": "aider-run-1"}
    assert repo.drain("session-start", **one, start_offset=0) == [(1, "", 0)]
    repo.grow(len(first))
    assert [e[:2] for e in repo.drain("turn-start", **one)] == [(2, "LAUNCHED 1")]
    assert [e[0] for e in repo.drain(**one, exited=True)] == [3, 5]
    repo.grow(len(first + plain))  # plain aider: no hook at all
    two = {"source": "launcher", "session": "aider-run-2"}
    start = len(first + plain)
    assert repo.drain("session-start", **two, start_offset=start) == [(1, "", 0)]
    repo.grow(len(repo.data))
    assert [e[:2] for e in repo.drain("turn-start", **two)] == [(2, "LAUNCHED 2")]
    assert [e[0] for e in repo.drain(**two, turn_over=True)] == [3]
    assert repo.ids() == ["aider-run-1", "aider-run-2"]
