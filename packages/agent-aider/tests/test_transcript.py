"""The chat-history parser against the real seven-session capture and the grammar's tricky cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from entire_agent_aider import markdown
from entire_agent_aider import transcript as t

DATA = Path(__file__).parent / "data"

EXPECTED_TURNS = [
    # (session header, [(offset, prompt, kind, files, [(sent, received)], commits, undone)])
    ("2026-11-30 03:04:46", [(1048, "Add a greet function to hello.py", "prompt", ["hello.py"], [(2600, 64)], ["c5ca3cb"], [])]),
    ("2026-11-30 03:04:51", [
        (2371, "Please create NOTES.md describing the change", "prompt", ["NOTES.md"], [(1200, 56)], ["395719f"], []),
        (2851, "What does greet do?", "prompt", [], [(1200, 56)], [], []),
        (3041, "/exit", "command", [], [], [], []),
    ]),
    ("2026-11-30 03:05:06", [
        (3592, "WHOLE: rewrite hello.py greeting", "prompt", ["hello.py"], [(817, 40)], ["1989c46"], []),
        (3983, "What changed?", "prompt", [], [(887, 20)], [], []),
    ]),
    # Architect mode: the editor's echo of the plan continues the architect's turn.
    ("2026-11-30 03:05:10", [(5167, "ARCHPLAN make greet say Howdy", "prompt", ["hello.py"], [(289, 35), (1600, 36)], ["846ef87"], [])]),
    ("2026-11-30 03:05:14", [(6154, "What does greet do?", "prompt", [], [(2600, 20)], [], [])]),
    ("2026-11-30 03:05:43", [
        (13863, "What does greet do?", "prompt", [], [(2600, 20)], [], []),
        (14170, "And what about main?", "prompt", [], [(2600, 20)], [], []),
        (14476, "/clear", "command", [], [], [], []),
        (14521, "Explain hello.py", "prompt", [], [(2600, 20)], [], []),
        (14823, "/undo", "command", [], [], [], []),
    ]),
    ("2026-11-30 03:05:55", [
        (22684, "WHOLE: rewrite hello.py greeting", "prompt", ["hello.py"], [(842, 40)], ["28bb5b4"], []),
        (23310, "/undo", "command", [], [], [], ["28bb5b4"]),
    ]),
]  # fmt: skip


def test_every_fixture_session_exactly(history_bytes: bytes) -> None:
    history = t.parse(history_bytes)
    assert history.end == len(history_bytes) == 23476
    got = [
        (s.header, [(u.offset, u.prompt, u.kind, u.files, [(k.sent, k.received) for k in u.tokens],
                     [sha for sha, _ in u.commits], u.undone) for u in s.turns])
        for s in history.sessions
    ]  # fmt: skip
    assert got == EXPECTED_TURNS
    assert [(s.version, s.model, s.edit_format) for s in history.sessions] == [
        ("0.86.2", "openai/gpt-4o", f)
        for f in ("diff", "diff", "whole", "architect", "diff", "diff", "whole")
    ]
    # Session slices start at the blank line before each header and tile the file.
    assert [s.start for s in history.sessions] == [0, 1471, 3054, 4165, 5827, 6343, 14993]
    assert [s.end for s in history.sessions] == [1471, 3054, 4165, 5827, 6343, 14993, 23476]


def test_agrees_with_the_reference_sketch(history_bytes: bytes) -> None:
    expected = json.loads((DATA / "expected_parse.json").read_text())
    history = t.parse(history_bytes)
    for session, exp in zip(history.sessions, expected["sessions"], strict=True):
        assert (session.header, session.offset) == (exp["started_at"], exp["offset"])
        sketch = [(x["offset"], x["prompt"]) for x in exp["turns"] if x["kind"] != "architect_editor"]
        assert [(u.offset, u.prompt) for u in session.turns] == sketch


def test_prompts_files_and_summary(history_bytes: bytes) -> None:
    history = t.parse(history_bytes)
    assert t.prompts(history) == [
        "Add a greet function to hello.py", "Please create NOTES.md describing the change", "What does greet do?",
        "WHOLE: rewrite hello.py greeting", "What changed?", "ARCHPLAN make greet say Howdy", "What does greet do?",
        "What does greet do?", "And what about main?", "Explain hello.py", "WHOLE: rewrite hello.py greeting",
    ]  # fmt: skip
    assert t.modified_files(history) == ["hello.py", "NOTES.md"]
    assert history.sessions[-1].reply.startswith("Here is the updated file.\n\nhello.py\n```python\n")
    assert history.sessions[-1].reply.endswith('print(greet("world"))\n```')
    assert (
        history.sessions[1].turns[1].reply
        == "The `greet` function builds a greeting string from a name. No files need to change."
    )


def test_verbose_dump_is_not_a_reply(history_bytes: bytes) -> None:
    # Session 6 logs "Command Line Args" and a JSON model dump as multi-line tool output.
    session = t.parse(history_bytes).sessions[5]
    assert all(
        "--set-env" not in u.reply and "cache_read_input_token_cost" not in u.reply for u in session.turns
    )


def test_parse_from_a_turn_offset(history_bytes: bytes) -> None:
    history = t.parse(history_bytes, 2851)
    assert history.sessions[0].header is None
    assert t.prompts(history)[:2] == ["What does greet do?", "WHOLE: rewrite hello.py greeting"]


def test_incomplete_last_line_is_left_for_later(history_bytes: bytes) -> None:
    cut = history_bytes[:1060]  # inside the first prompt line
    history = t.parse(cut)
    assert history.end == cut.rfind(b"\n") + 1
    assert history.sessions[0].turns == []


TRICKY = (
    b"\n# aider chat started at 2026-01-02 03:04:05\n\n"
    b"> Aider v0.86.2  \n"
    b"> Main model: anthropic/claude-sonnet-4 with diff edit format, infinite output  \n"
    b"> Creating empty file new.txt  \n"
    b"\n#### first line  \n####   \n#### third line  \n\n"
    b"Here is a plan.\n\n#### Step 1\n> quoted advice\n\nDone.\n\n"
    b"> Tokens: 12k sent, 3.4k cache write, 26k cache hit, 1.5k received.\n"
    b"Cost: $0.05 message, $0.10 session.  \n"
    b"> # 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: x\n> not a tool line\n"
    b"more detail  \n"
    b"> Applied edit to src/a.py  \n"
    b"\n#### /as what now?  \n\nAn answer.\n\n> Tokens: 999 sent, 1 received.  \n"
    b"\n#### /add b.py  \n> Added b.py to the chat  \n"
    b"\n#### <blank>  \n"
    b"\n#### !ls  \n"
)


def test_tricky_grammar() -> None:
    history = t.parse(TRICKY)
    session = history.sessions[0]
    assert (session.model, session.edit_format, session.files_created) == (
        "anthropic/claude-sonnet-4",
        "diff",
        ["new.txt"],
    )
    first, ask, add, blank, shell = session.turns
    assert first.prompt == "first line\n\nthird line"
    assert first.reply == "Here is a plan.\n\n#### Step 1\n> quoted advice\n\nDone."
    assert [k.as_dict() for k in first.tokens] == [
        {"sent": 12000, "received": 1500, "cache_write": 3400, "cache_hit": 26000}
    ]
    assert first.files == ["src/a.py"]
    assert (ask.prompt, ask.kind, [k.sent for k in ask.tokens]) == ("/as what now?", "llm_command", [999])
    assert [(u.kind) for u in (add, blank, shell)] == ["command", "blank", "command"]
    assert t.prompts(history) == ["first line\n\nthird line", "/as what now?"]
    assert t.modified_files(history) == ["new.txt", "src/a.py"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("817", 817),
        ("2.6k", 2600),
        ("26k", 26000),
        ("1234k", 1234000),
        ("1.5M", 1500000),
        ("", None),
        ("1.2.3k", None),
        ("x", None),
    ],
)
def test_parse_tokens(text: str, value: int | None) -> None:
    assert markdown.parse_tokens(text) == value


def test_pending_edits() -> None:
    turn = t.parse(
        b"\n#### go  \n\nhello.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n\n> Tokens: 1 sent, 1 received.  \n"
    ).turns()[0]
    assert turn.pending_edits
    turn = t.parse(
        b"\n#### go  \n\nhello.py\n```python\nx\n```\n\n> Tokens: 1 sent, 1 received.  \n> Applied edit to hello.py  \n"
    ).turns()[0]
    assert not turn.pending_edits
    assert (
        not t.parse(b"\n#### go  \n\nJust words.\n\n> Tokens: 1 sent, 1 received.  \n")
        .turns()[0]
        .pending_edits
    )


def test_parse_lines_agrees_with_parse(history_bytes: bytes) -> None:
    # The offset-free reader (lines as entire_core.offsets gives them) sees the same turns.
    whole, lines = t.parse(history_bytes), t.parse_lines(history_bytes.split(b"\n")[:-1])
    assert [(u.prompt, u.files, u.reply) for u in lines.turns()] == [
        (u.prompt, u.files, u.reply) for u in whole.turns()
    ]
    crlf = t.parse_lines(history_bytes.replace(b"\n", b"\r\n").split(b"\r\n")[:-1])
    assert t.prompts(crlf) == t.prompts(whole)


def test_modified_files_are_repo_relative(tmp_path: Path) -> None:
    from entire_agent_aider.agent import AiderAgent

    data = (
        f"\n#### edit  \n\nok\n\n> Applied edit to {tmp_path}/src/a.py  \n> Applied edit to ./b.py  \n"
        "> Applied edit to src/a.py  \n> Applied edit to /elsewhere/c.py  \n"
    ).encode()
    agent = AiderAgent(env={"ENTIRE_REPO_ROOT": str(tmp_path)}, cwd=str(tmp_path))
    assert agent.extract_all_modified_files(data, 0, "") == ["src/a.py", "b.py", "/elsewhere/c.py"]
    (tmp_path / "h.md").write_bytes(data)
    assert agent.extract_modified_files(str(tmp_path / "h.md"), 0) == (
        ["src/a.py", "b.py", "/elsewhere/c.py"],
        data.count(b"\n"),  # positions are lines
    )
    assert agent.extract_all_modified_files(data, data.count(b"\n"), "") == []  # from the end: nothing
