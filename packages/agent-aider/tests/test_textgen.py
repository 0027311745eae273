"""``generate-text`` against a stand-in ``aider`` that writes a chat history as Aider does."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from entire_agent_aider.agent import AiderAgent
from entire_core.errors import AgentError

pytestmark = pytest.mark.skipif(os.name == "nt", reason="a POSIX script stands in for aider")

FAKE_AIDER = """#!{python}
import json, os, sys
args = sys.argv[1:]
value = lambda flag: args[args.index(flag) + 1]
history, message = value("--chat-history-file"), value("--message-file")
with open(os.environ["CALLS"], "w") as f:
    json.dump({{"argv": args, "cwd": os.getcwd(), "env": sorted(os.environ)}}, f)
prompt = open(message).read()
mode = os.environ.get("MODE", "answer")
if mode == "answer":
    with open(history, "w") as f:
        f.write("\\n# aider chat started at 2026-12-01 10:00:00\\n\\n> Aider v0.86.2  \\n\\n")
        f.write("#### " + prompt + "  \\n\\nThe answer to: " + prompt + "\\n\\n> Tokens: 1.2k sent, 56 received.  \\n")
elif mode == "fails":
    print("litellm.AuthenticationError: no key", file=sys.stderr)
    sys.exit(1)
"""


@pytest.fixture
def aider(tmp_path: Path) -> Path:
    path = tmp_path / "bin" / "aider"
    path.parent.mkdir()
    path.write_text(FAKE_AIDER.format(python=sys.executable))
    path.chmod(0o755)
    return path


def agent(tmp_path: Path, aider: Path, **env: str) -> AiderAgent:
    base = {"PATH": str(aider.parent), "HOME": str(tmp_path), "CALLS": str(tmp_path / "calls.json"),
            "TMPDIR": str(tmp_path), "ENTIRE_AIDER_SESSION": "s-1", **env}  # fmt: skip
    return AiderAgent(env=base, cwd=str(tmp_path))


def test_the_answer_is_read_from_the_chat_history(tmp_path: Path, aider: Path) -> None:
    answer = agent(tmp_path, aider).generate_text("what is 2+2?", "openai/gpt-4o")
    assert answer.strip() == "The answer to: what is 2+2?"
    call = json.loads((tmp_path / "calls.json").read_text())
    assert call["argv"][-2:] == ["--model", "openai/gpt-4o"]
    assert "--dry-run" in call["argv"] and "--no-git" in call["argv"]
    assert "ENTIRE_AIDER_SESSION" not in call["env"]  # the question is no turn of the user's session
    assert not Path(call["cwd"]).exists()  # the scratch directory is removed


def test_no_model_means_aiders_own_default(tmp_path: Path, aider: Path) -> None:
    agent(tmp_path, aider).generate_text("hi", "")
    assert "--model" not in json.loads((tmp_path / "calls.json").read_text())["argv"]


def test_a_failing_aider_gives_its_last_line(tmp_path: Path, aider: Path) -> None:
    with pytest.raises(AgentError, match=r"^aider gave no answer: litellm.AuthenticationError: no key$"):
        agent(tmp_path, aider, MODE="fails").generate_text("hi", "")


def test_an_aider_that_writes_no_history_is_no_answer(tmp_path: Path, aider: Path) -> None:
    with pytest.raises(AgentError, match=r"^aider gave no answer: exit status 0$"):
        agent(tmp_path, aider, MODE="silent").generate_text("hi", "")


def test_without_aider_on_path(tmp_path: Path, aider: Path) -> None:
    with pytest.raises(AgentError, match="aider is not on PATH"):
        agent(tmp_path, aider, PATH=str(tmp_path / "empty")).generate_text("hi", "")


def test_the_binary_can_be_named(tmp_path: Path, aider: Path) -> None:
    named = agent(tmp_path, aider, PATH=str(tmp_path / "empty"), ENTIRE_AIDER_BINARY=str(aider))
    assert named.generate_text("hi", "").strip() == "The answer to: hi"
