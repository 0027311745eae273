"""``generate-text`` against a stand-in ``aider`` that writes a chat history as Aider does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from entire_agent_aider.agent import AiderAgent
from entire_core.errors import AgentError
from entire_core.testing.killed import call_and_kill, hanging_agent, leftovers, started

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
            "TMPDIR": str(tmp_path), "ENTIRE_AIDER_SESSION": "s-1", "OPENAI_API_KEY": "k", **env}  # fmt: skip
    return AiderAgent(env=base, cwd=str(tmp_path))


def test_the_answer_is_read_from_the_chat_history(tmp_path: Path, aider: Path) -> None:
    answer = agent(tmp_path, aider).generate_text("what is 2+2?", "openai/gpt-4o")
    assert answer.strip() == "The answer to: what is 2+2?"
    call = json.loads((tmp_path / "calls.json").read_text())
    assert call["argv"][-2:] == ["--model", "openai/gpt-4o"]
    assert "--dry-run" in call["argv"] and "--no-git" in call["argv"]
    assert "--yes-always" not in call["argv"]  # it would accept Aider's OpenRouter login offer
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


# -- within the host's 30 s: no key, hanging, killed ------------------------------------------------------

PLUGIN = str(Path(sys.executable).parent / "entire-agent-aider")
LINUX = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc to tell a running process"
)


def _host_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    (tmp_path / "tmp").mkdir(exist_ok=True)
    (tmp_path / "home").mkdir(exist_ok=True)
    return {"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path / "home"), "TMPDIR": str(tmp_path / "tmp"),
            "ENTIRE_PROTOCOL_VERSION": "1", **extra}  # fmt: skip


@LINUX
@pytest.mark.parametrize(
    ("model", "extra", "said"),
    [
        ("", {}, "aider has no model and no API key, so it would offer an OpenRouter login that generate-text "
                 "never accepts: set one of ANTHROPIC_API_KEY, DEEPSEEK_API_KEY, OPENROUTER_API_KEY, "
                 "OPENAI_API_KEY, GEMINI_API_KEY, or a model and its key"),
        ("sonnet", {"OPENAI_API_KEY": "k"}, "aider has no API key for sonnet: set ANTHROPIC_API_KEY"),
        ("", {"AIDER_MODEL": "openai/gpt-4o", "GEMINI_API_KEY": "k"},
         "aider has no API key for openai/gpt-4o: set OPENAI_API_KEY"),
    ],
)  # fmt: skip
def test_no_key_fails_at_once_and_aider_never_runs(
    tmp_path: Path, model: str, extra: dict[str, str], said: str
) -> None:
    pids = tmp_path / "pids"
    hanging_agent(tmp_path / "bin", "aider", pids)
    argv = [PLUGIN, "generate-text", *(["--model", model] if model else [])]
    started_at = time.monotonic()
    done = subprocess.run(argv, input=b"hi", capture_output=True, env=_host_env(tmp_path, **extra), timeout=25,
                          check=False)  # fmt: skip
    assert time.monotonic() - started_at < 5
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode() == f"entire-agent-aider generate-text: {said}\n"
    assert not pids.exists() and leftovers(pids, tmp_path / "tmp") == []


@pytest.mark.parametrize(
    ("model", "env", "home_files"),
    [
        ("", {"AIDER_OPENAI_API_KEY": "k"}, {}),
        ("", {}, {".env": "export ANTHROPIC_API_KEY=k\n"}),
        ("", {}, {".aider.conf.yml": "model: sonnet\nanthropic-api-key: k\n"}),
        ("ollama_chat/llama3", {}, {}),  # a local model needs no key
        ("my-alias", {}, {}),  # an alias of the user's: Aider knows, we do not
        ("", {}, {".aider.conf.yml": "api-key:\n  - gemini=k\n"}),
    ],
)
def test_keys_aider_would_find_let_it_run(
    tmp_path: Path, model: str, env: dict[str, str], home_files: dict[str, str]
) -> None:
    from entire_agent_aider.textgen import missing_key

    for name, text in home_files.items():
        (tmp_path / name).write_text(text)
    assert missing_key(model, env, str(tmp_path)) is None
    assert missing_key("", {}, str(tmp_path / "nothing")) is not None


@LINUX
def test_a_hanging_aider_fails_within_the_limit_and_leaves_nothing(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    hanging_agent(tmp_path / "bin", "aider", pids)
    started_at = time.monotonic()
    env = _host_env(tmp_path, OPENAI_API_KEY="k", ENTIRE_AGENT_TEXT_TIMEOUT="2")
    done = subprocess.run([PLUGIN, "generate-text"], input=b"hi", capture_output=True, env=env, timeout=25,
                          check=False)  # fmt: skip
    assert time.monotonic() - started_at < 6
    assert done.stderr.decode() == "entire-agent-aider generate-text: aider did not answer within 2 s\n"
    assert len(started(pids)) == 2 and leftovers(pids, tmp_path / "tmp") == []


@LINUX
def test_killed_by_the_host_mid_call_leaves_no_process_and_no_file(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    hanging_agent(tmp_path / "bin", "aider", pids)
    env = _host_env(tmp_path, OPENAI_API_KEY="k")
    assert call_and_kill([PLUGIN, "generate-text"], env, pids, kill_after=1) < 25
    assert leftovers(pids, tmp_path / "tmp") == []  # the scratch directory held the prompt's text
