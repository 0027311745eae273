"""The compact transcript, the hook response, and generate-text's failures (its success runs in the e2e test)."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from codex_fixtures import CAPTURE_REPO, PROMPT1, PROMPT2, ROLLOUT1, ROLLOUT2
from entire_agent_openai_codex import compact, textgen
from entire_agent_openai_codex.agent import OpenAICodexAgent
from entire_core.errors import AgentError
from entire_core.testing.killed import call_and_kill, hanging_agent, leftovers, started


def lines_of(path: Path) -> list[dict[str, object]]:
    data = compact.compact(str(path), agent="openai-codex", cli_version="9.9.9", repo_root=CAPTURE_REPO)
    assert data.endswith(b"\n")
    return [json.loads(line) for line in data.decode().splitlines()]


def test_compact_transcript_of_a_two_turn_session() -> None:
    lines = lines_of(ROLLOUT1)
    assert all(
        line["v"] == 1 and line["agent"] == "openai-codex" and line["cli_version"] == "9.9.9"
        for line in lines
    )
    users = [line["content"] for line in lines if line["type"] == "user"]
    assert users == [[{"text": PROMPT1}], [{"text": PROMPT2}]]
    blocks = [block for line in lines if line["type"] == "assistant" for block in line["content"]]  # type: ignore[union-attr]
    tools = [b for b in blocks if b["type"] == "tool_use"]
    assert [(b["name"], b["result"]["status"]) for b in tools] == [
        ("apply_patch", "success"),
        ("exec_command", "success"),
        ("apply_patch", "success"),
    ]
    changes = [(b["path"], b["kind"], b["tool_use_id"]) for b in blocks if b["type"] == "file_change"]
    assert changes == [("README.md", "update", "call_patch_1"), ("hello.txt", "add", "call_patch_1"),
                       ("second.txt", "add", "call_patch_5"), ("shell.txt", "delete", "call_patch_5")]  # fmt: skip
    texts = [b["text"] for b in blocks if b["type"] == "text"]
    assert texts[-1] == "Second turn done: added second.txt and deleted shell.txt."
    assert [line.get("input_tokens") for line in lines if line["type"] == "assistant"] == [
        1000,
        2000,
        3000,
        3000,
        1000,
        2000,
    ]
    raw = b"".join(compact.compact(str(ROLLOUT1), agent="a", cli_version="v", repo_root="/").splitlines())
    assert (
        b"encrypted_content" not in raw
        and b"environment_context" not in raw
        and b"base_instructions" not in raw
    )


def test_compact_leaves_out_subagent_notifications() -> None:
    lines = lines_of(ROLLOUT2)
    assert [line["content"] for line in lines if line["type"] == "user"] == [
        [{"text": "SPAWN a subagent that creates child.txt, wait for it, then report"}]
    ]


def test_hook_response_is_codex_hook_output() -> None:
    out = OpenAICodexAgent(env={}, cwd="/").write_hook_response("line one\nline two ✓")
    assert json.loads(out) == {"systemMessage": "line one\nline two ✓"}


def test_generate_without_codex_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(AgentError, match="codex is not on PATH: Codex CLI is not installed"):
        textgen.generate("hi", "m", {"PATH": str(tmp_path)})


def fake_codex(tmp_path: Path, script: str) -> dict[str, str]:
    """A stand-in ``codex`` on PATH: only to make the failure paths happen (the real one runs in e2e)."""
    path = tmp_path / "codex"
    path.write_text(f"#!{sys.executable}\n{script}\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return {"PATH": str(tmp_path), "HOME": str(tmp_path)}


def test_generate_reports_a_login_problem_in_one_line(tmp_path: Path) -> None:
    env = fake_codex(
        tmp_path,
        "import sys\nsys.stderr.write('WARNING: noise\\nERROR: 401 Unauthorized: Missing bearer\\n')\nsys.exit(1)",
    )
    with pytest.raises(AgentError, match=r"is Codex logged in \(`codex login`\)\? ERROR: 401 Unauthorized"):
        textgen.generate("hi", "m", env)


def test_generate_reads_the_last_message_file_and_passes_the_prompt_on_stdin(tmp_path: Path) -> None:
    script = (
        "import sys\nargs = sys.argv[1:]\nprompt = sys.stdin.read()\n"
        "open(args[args.index('--output-last-message') + 1], 'w').write('echo: ' + prompt + ' ' + ' '.join(args[:9]))\n"
    )
    answer = textgen.generate("the prompt", "my-model", fake_codex(tmp_path, script))
    assert (
        answer
        == "echo: the prompt exec --ephemeral --skip-git-repo-check --sandbox read-only --color never --disable hooks"
    )
    argv = textgen.command("codex", "my-model", "/w", "/a")
    assert argv[-3:] == ["--model", "my-model", "-"]
    assert "plugins" in argv[argv.index("hooks") :]  # --disable plugins: no marketplace sync in ~/.codex/.tmp


def test_generate_text_subcommand_needs_a_prompt(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "entire-agent-openai-codex"
    done = subprocess.run(
        [str(script), "generate-text", "--model", "x"], input=b"  ", capture_output=True, check=False
    )
    assert done.returncode != 0 and b"needs the prompt" in done.stderr


@pytest.mark.parametrize("model", ['gpt" & calc', "m%PATH%", "a^b", "x|y", "--config=evil", "a b", "é"])
def test_generate_refuses_a_model_cmd_exe_would_misread_before_running_anything(
    tmp_path: Path, model: str
) -> None:
    # On Windows codex is npm's codex.cmd, which cmd.exe parses with its own rules.
    env = fake_codex(tmp_path, "open(__file__ + '.ran', 'w').close()")
    with pytest.raises(AgentError, match="invalid model name") as caught:
        textgen.generate("hi", model, env)
    assert "\n" not in str(caught.value)
    assert not (tmp_path / "codex.ran").exists()


def test_generate_text_with_a_bad_model_is_a_one_line_error(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "entire-agent-openai-codex"
    done = subprocess.run(
        [str(script), "generate-text", "--model", "x&y"], input=b"hi", capture_output=True, check=False
    )
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr.count(b"\n") == 1 and b"invalid model name 'x&y'" in done.stderr


# -- within the host's 30 s: not logged in, hanging, killed -----------------------------------------------

PLUGIN = str(Path(sys.executable).parent / "entire-agent-openai-codex")
LINUX = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc to tell a running process"
)


def _host_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return {"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path), "CODEX_HOME": str(tmp_path / "codex"),
            "TMPDIR": str(tmp_path / "tmp"), "ENTIRE_PROTOCOL_VERSION": "1", **extra}  # fmt: skip


@LINUX
def test_not_logged_in_fails_at_once_with_codexs_words(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    hanging_agent(tmp_path / "bin", "codex", pids, [(["login", "status"], 1, "Not logged in\n")])
    started_at = time.monotonic()
    done = subprocess.run([PLUGIN, "generate-text", "--model", "m"], input=b"hi", capture_output=True,
                          env=_host_env(tmp_path), timeout=25, check=False)  # fmt: skip
    assert time.monotonic() - started_at < 5
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode() == (
        "entire-agent-openai-codex generate-text: Codex is not logged in (`codex login status`: Not logged in): "
        "run `codex login`\n"
    )
    assert not pids.exists() and leftovers(pids, tmp_path / "tmp") == []  # codex exec never ran


@LINUX
def test_an_api_key_or_own_provider_skips_the_login_check(tmp_path: Path) -> None:
    script = "import sys\nif sys.argv[1:3] == ['login', 'status']: open(__file__ + '.asked', 'w').close()\nsys.exit(1)"
    env = fake_codex(tmp_path, script)
    (tmp_path / "codex-home").mkdir()
    (tmp_path / "codex-home" / "config.toml").write_text('model_provider = "mine"\n')
    for extra in ({"OPENAI_API_KEY": "k"}, {"CODEX_HOME": str(tmp_path / "codex-home")}):
        with pytest.raises(AgentError, match="codex exec failed"):
            textgen.generate("hi", "m", {**env, **extra})
        assert not (tmp_path / "codex.asked").exists()
    with pytest.raises(AgentError, match="codex exec failed"):
        textgen.generate("hi", "m", env)
    assert (tmp_path / "codex.asked").exists()


@LINUX
def test_a_hanging_codex_fails_within_the_limit_and_leaves_nothing(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    hanging_agent(tmp_path / "bin", "codex", pids, [(["login", "status"], 0, "Logged in using ChatGPT\n")])
    started_at = time.monotonic()
    done = subprocess.run([PLUGIN, "generate-text", "--model", "m"], input=b"hi", capture_output=True,
                          env=_host_env(tmp_path, ENTIRE_AGENT_TEXT_TIMEOUT="2"), timeout=25, check=False)  # fmt: skip
    assert time.monotonic() - started_at < 6
    assert (
        done.stderr.decode()
        == "entire-agent-openai-codex generate-text: codex exec did not answer within 2 s\n"
    )
    assert len(started(pids)) == 2 and leftovers(pids, tmp_path / "tmp") == []


@LINUX
def test_killed_by_the_host_mid_call_leaves_no_process_and_no_file(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    hanging_agent(tmp_path / "bin", "codex", pids, [(["login", "status"], 0, "Logged in using ChatGPT\n")])
    ran = call_and_kill([PLUGIN, "generate-text", "--model", "m"], _host_env(tmp_path), pids, kill_after=1)
    assert ran < 25
    assert leftovers(pids, tmp_path / "tmp") == []
