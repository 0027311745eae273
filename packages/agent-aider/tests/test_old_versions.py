"""A real chat history from Aider 0.82.3, the oldest version of the support window, read exactly.

Made by the end-to-end test (``e2e/test_e2e_aider.py``) against the scripted model server in a
loopback-only namespace: a launcher session (non-streaming, so the server's exact usage, 1234/56, shows
as Aider's rounded "1.2k sent, 56 received") and a plain streaming session (Aider's own estimates), three
turns each and ``/exit``. Paths inside name ``/srv/aider-0.82.3``; commit shas are the capture's.
"""

from __future__ import annotations

from pathlib import Path

from entire_agent_aider import transcript as t

HISTORY = Path(__file__).parent / "data" / "v0.82.3" / "aider.chat.history.md"
GREET, NOTES, ASK = (
    "EDIT-GREET: add a greet function to hello.py",
    "CREATE-NOTES: create NOTES.md\nwith a two-line prompt",
    "What does greet do?",
)

EXPECTED = [
    # (session header, [(offset, prompt, kind, files, [(sent, received)], commits)])
    ("2026-12-01 14:51:23", [
        (720, GREET, "prompt", ["hello.py"], [(1200, 56)], ["ddc4c53"]),
        (1189, NOTES, "prompt", ["NOTES.md"], [(1200, 56)], ["f02e7c0"]),
        (1650, ASK, "prompt", [], [(1200, 56)], []),
        (1855, "/exit", "command", [], [], []),
    ]),
    ("2026-12-01 14:51:43", [
        (2367, GREET, "prompt", ["hello.py"], [(2600, 55)], ["f9ac3ac"]),
        (2836, NOTES, "prompt", ["NOTES.md"], [(2700, 33)], ["be7c830"]),
        (3295, ASK, "prompt", [], [(2800, 25)], []),
        (3500, "/exit", "command", [], [], []),
    ]),
]  # fmt: skip


def test_both_sessions_exactly() -> None:
    data = HISTORY.read_bytes()
    history = t.parse(data)
    assert history.end == len(data) == 3513
    got = [
        (s.header, [(u.offset, u.prompt, u.kind, u.files, [(k.sent, k.received) for k in u.tokens],
                     [sha for sha, _ in u.commits]) for u in s.turns])
        for s in history.sessions
    ]  # fmt: skip
    assert got == EXPECTED
    assert [(s.version, s.model, s.edit_format) for s in history.sessions] == [
        ("0.82.3", "openai/gpt-4o", "diff")
    ] * 2
    assert [(s.start, s.end) for s in history.sessions] == [(0, 1868), (1868, 3513)]
    assert all(u.undone == [] for s in history.sessions for u in s.turns)


def test_prompts_files_and_replies() -> None:
    history = t.parse(HISTORY.read_bytes())
    assert t.prompts(history) == [GREET, NOTES, ASK] * 2
    assert t.modified_files(history) == ["hello.py", "NOTES.md"]
    replies = [u.reply for u in history.sessions[0].turns]
    assert replies[0].startswith("I'll add a greet function.\n\nhello.py\n```python\n<<<<<<< SEARCH\n")
    assert replies[1].startswith("I'll create NOTES.md.\n\nNOTES.md\n```markdown\n")
    # the reply's own "####" and ">" lines stay in the reply
    assert (
        replies[2]
        == "greet builds a greeting string from a name.\n\n#### Not a prompt: a heading in the reply\n> and a quote"
    )
    assert replies[3] == ""


def test_parse_from_a_turn_offset() -> None:
    history = t.parse(HISTORY.read_bytes(), 1189)
    assert history.sessions[0].header is None
    assert t.prompts(history) == [NOTES, ASK, GREET, NOTES, ASK]
