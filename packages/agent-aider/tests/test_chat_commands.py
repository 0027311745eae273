"""Chat commands Aider logs more than one input block for: one prompt each, in the typed form.

``/ask <text>`` and its kin log the text twice (as typed, then as its own block).
``tests/data/ask-commands.chat.history.md`` was written by real Aider 0.86.2 (0.82.3 writes the same
blocks) against the e2e model server: ``/ask`` (typed, an abbreviation, multi-line, and through
``--message``), the same question typed twice as plain text, and ``/ask`` and ``/code`` alone.

``/lint`` shows each file's errors as tool output, then its lint coder logs them as input
(``Commands.cmd_lint`` calls ``Coder.run(errors)``, which logs its message with ``io.user_input``);
``/help <text>`` hands its help coder ``# Question: <text>`` and the docs it found, logged the same way
(``Commands.cmd_help``, ``Help.ask``). ``tests/data/lint-help.chat.history.md`` was written by real
Aider 0.86.2 in the e2e test ``test_e2e_chat_commands.py`` (``lint-help``; machine paths rewritten to
``/srv/...`` of the same length), with the help extra's retrieval stood in for (``e2e/help_stub``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from entire_agent_aider import markdown
from entire_agent_aider import transcript as t
from entire_agent_aider.agent import AiderAgent

DATA = Path(__file__).parent / "data"
REAL = DATA / "ask-commands.chat.history.md"
LINT_HELP = DATA / "lint-help.chat.history.md"

ASKED = [
    "/ask What does greet do?",
    "What does greet do?",  # typed by the user after the /ask's reply: a turn of its own
    "What does greet do?",  # and typed again: the same text twice is two turns
    "/as Short prefix?",
    "/ask first line\nsecond line",
    "/ask Via message?",
]


def test_a_chat_command_is_one_turn_in_the_typed_form() -> None:
    history = t.parse(REAL.read_bytes())
    assert t.prompts(history) == ASKED
    llm = [turn for turn in history.turns() if turn.is_llm]
    assert [len(turn.tokens) for turn in llm] == [1] * len(ASKED)  # one model call each
    assert all(turn.reply.startswith("greet builds a greeting") for turn in llm)
    # "/ask" and "/code" alone only switch the chat mode: no prompt.
    assert [turn.prompt for turn in history.turns() if not turn.is_llm] == ["/ask", "/code", "/exit"]


def test_prompts_tokens_and_compact_transcript_count_it_once(tmp_path: Path) -> None:
    data = REAL.read_bytes()
    agent = AiderAgent(env={"ENTIRE_REPO_ROOT": str(tmp_path)}, cwd=str(tmp_path))
    path = tmp_path / "history.md"
    path.write_bytes(data)
    assert agent.extract_prompts(str(path), 0) == ASKED
    assert agent.calculate_tokens(data, 0).api_call_count == len(ASKED)
    lines = [json.loads(line) for line in agent.compact_transcript(str(path)).transcript.splitlines()]
    users = [line["content"][0]["text"] for line in lines if line["type"] == "user"]
    assert users == ASKED
    assert sum(line["type"] == "assistant" for line in lines) == len(ASKED)


def _block(*lines: str) -> str:
    """An input block as Aider's ``user_input`` writes it."""
    return "\n" + "".join(f"#### {line}  \n" for line in lines)


def _reply(text: str) -> str:
    return f"\n{text}\n\n> Tokens: 10 sent, 2 received.  \n"


HEADER = "\n# aider chat started at 2026-01-02 03:04:05\n\n> Aider v0.86.2  \n"


@pytest.mark.parametrize("command", ["/ask", "/code", "/architect", "/context", "/arch", "/CODE"])
def test_each_chat_mode_command_is_merged_with_its_echo(command: str) -> None:
    text = HEADER + _block(f"{command} explain greet") + _block("explain greet") + _reply("It greets.")
    (turn,) = t.parse(text.encode()).turns()
    assert (turn.prompt, turn.kind, turn.reply, len(turn.tokens)) == (
        f"{command} explain greet",
        markdown.LLM_COMMAND,
        "It greets.",
        1,
    )


def test_plain_text_typed_twice_is_two_turns() -> None:
    # Without a command nothing is echoed, even when nothing came between the two blocks.
    text = HEADER + _block("explain greet") + _block("explain greet") + _reply("It greets.")
    assert t.prompts(t.parse(text.encode())) == ["explain greet", "explain greet"]


def test_the_text_typed_again_after_the_commands_reply_is_a_new_turn() -> None:
    # An empty reply still logs its Tokens line: the model was called, so the echo is no longer due.
    text = HEADER + _block("/ask x") + _block("x") + _reply("") + _block("x") + _reply("Again.")
    assert t.prompts(t.parse(text.encode())) == ["/ask x", "x"]


def test_a_block_that_is_not_the_commands_text_is_not_merged() -> None:
    text = HEADER + _block("/ask explain greet") + _block("something else") + _reply("Hm.")
    assert t.prompts(t.parse(text.encode())) == ["/ask explain greet", "something else"]


def test_architect_command_with_its_echo_and_the_editors_hand_off_is_one_turn() -> None:
    plan = "Change greet to say Howdy."
    text = (
        HEADER + _block("/architect make greet say Howdy") + _block("make greet say Howdy") + _reply(plan)
        + _block(plan) + _reply("Done.") + "> Applied edit to hello.py  \n"
    )  # fmt: skip
    (turn,) = t.parse(text.encode()).turns()
    assert (turn.prompt, len(turn.tokens), turn.files) == ("/architect make greet say Howdy", 2, ["hello.py"])


def test_parse_range_and_parse_lines_agree() -> None:
    data = REAL.read_bytes()
    with REAL.open("rb") as f:
        ranged, _ = t.parse_range(f, 0, len(data), block=64)
    assert t.prompts(ranged) == t.prompts(t.parse_lines(data.split(b"\n")[:-1])) == ASKED


def test_lint_output_and_the_help_question_are_part_of_their_commands_turns(tmp_path: Path) -> None:
    data = LINT_HELP.read_bytes()
    history = t.parse(data)
    assert t.prompts(history) == ["/lint", "/help How do I add files?"]
    lint, helped, _exit = history.turns()
    assert (len(lint.tokens), len(helped.tokens)) == (1, 1)  # each its one model call
    assert lint.reply.startswith("greet builds") and helped.reply.startswith("greet builds")
    agent = AiderAgent(env={"ENTIRE_REPO_ROOT": str(tmp_path)}, cwd=str(tmp_path))
    path = tmp_path / "history.md"
    path.write_bytes(data)
    assert agent.extract_prompts(str(path), 0) == ["/lint", "/help How do I add files?"]
    assert agent.calculate_tokens(data, 0).api_call_count == 2
    with LINT_HELP.open("rb") as f:
        ranged, _ = t.parse_range(f, 0, len(data), block=64)
    assert t.prompts(ranged) == t.prompts(history)


def _tool(*lines: str) -> str:
    """A tool message as Aider's ``tool_output`` logs it: the first line quoted, the last with two spaces."""
    return f"> {lines[0]}" + "".join(f"\n{line}" for line in lines[1:]) + "  \n"


def test_lint_of_two_files_is_one_turn_and_what_the_user_types_next_is_not() -> None:
    first = ("## Running: flake8 a.py", "", "a.py:1:1: F821 undefined name 'x'")
    second = ("## Running: flake8 b.py", "", "b.py:2:1: F821 undefined name 'y'")
    text = (
        HEADER + _block("/lint") + _tool(*first) + "> Fix lint errors in a.py? (Y)es/(N)o [Yes]: y  \n"
        + _block(*first) + _reply("Fixed a.") + _tool(*second) + _block(*second) + _reply("Fixed b.")
        + _block(*first)  # the same text typed by the user afterwards: a prompt of its own
        + _reply("Again.")
    )  # fmt: skip
    history = t.parse(text.encode())
    assert t.prompts(history) == ["/lint", "\n".join(first)]
    assert len(history.turns()[0].tokens) == 2


def test_help_without_its_echo_is_one_prompt_and_the_next_block_a_new_turn() -> None:
    # Without the help extra Aider says so and calls no model; the next block is the user's own.
    text = HEADER + _block("/help how?") + _tool("Unable to initialize interactive help.") + _block("hello")
    assert t.prompts(t.parse(text.encode())) == ["/help how?", "hello"]
    asked = HEADER + _block("/help how?") + _block("# Question: how?", "", "# Relevant docs:") + _reply("So.")
    assert t.prompts(t.parse(asked.encode())) == ["/help how?"]
    other = HEADER + _block("/help how?") + _block("# Question: why?") + _reply("So.")
    assert t.prompts(t.parse(other.encode())) == ["/help how?", "# Question: why?"]
