"""Resume commands are quoted for the shell they are pasted into; hostile words stay one inert argument.

The injections among the hostile words only create a canary file in the test's directory: a quoting bug
fails the test instead of running anything that matters.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from entire_core import shell
from entire_core.errors import InvalidInput
from entire_core.testing.hostile import CANARY_ENV, CANARY_PAYLOADS

HOSTILE_WORDS = [*CANARY_PAYLOADS, "a'b", 'a"b', "$(echo x)", "`echo x`", "a\nb", "a b", "a&b|c", "%PATH%",
                 "~root", "a\\b", "*", "-rf", "", "é", "!x", "'", "''"]  # fmt: skip
SHELLS = [s for s in ("sh", "bash", "dash", "zsh") if shutil.which(s)]


@pytest.mark.parametrize("program", SHELLS)
def test_a_posix_shell_reads_back_exactly_the_words(program: str, tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    argv = ["printf", "%s\\0", *HOSTILE_WORDS]
    line = shell.join(argv, shell.POSIX)
    env = {**os.environ, CANARY_ENV: str(canary)}
    done = subprocess.run([program, "-c", line], capture_output=True, timeout=30, env=env, cwd=tmp_path)
    assert not canary.exists(), f"{program} ran an injected command: {line}"
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode("utf-8").split("\0")[:-1] == HOSTILE_WORDS


def test_plain_words_are_left_as_they_are() -> None:
    argv = ["codex", "resume", "01a22a67-d916-7711-8aa0-848df6c49ae4", "--flag", ".entire/tmp/x.md"]
    assert shell.join(argv, shell.POSIX) == " ".join(argv)
    assert shell.join(argv, shell.WINDOWS) == " ".join(argv)
    assert shell.join(["aider", ".entire\\tmp\\x.md"], shell.WINDOWS) == "aider .entire\\tmp\\x.md"
    assert shell.join(["aider", ".entire\\tmp\\x.md"], shell.POSIX) == "aider '.entire\\tmp\\x.md'"


@pytest.mark.parametrize(
    "word", ["a b", "a&b", "a|b", "a<b>c", "(x)", "a;b", "a'b", "a,b", "a^b", "a@b", "é"]
)
def test_windows_words_are_double_quoted_when_both_shells_read_them_literally(word: str) -> None:
    # Inside "...", cmd.exe takes & | < > ( ) ^ ; literally and PowerShell takes everything but $, ` and ".
    assert shell.quote(word, shell.WINDOWS) == f'"{word}"'


@pytest.mark.parametrize(
    "word",
    ['a"b', "%PATH%", "!x!", "$(echo x)", "`echo x`", "a\nb", "a\x7fb", "a\x1fb", "a\x00b", "my dir\\"],
)
def test_windows_refuses_words_one_of_the_shells_would_still_interpret(word: str) -> None:
    with pytest.raises(InvalidInput, match=r"cmd\.exe and PowerShell"):
        shell.quote(word, shell.WINDOWS)


def test_the_default_shell_follows_the_platform(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    assert shell.join(["a b"]) == "'a b'"
    monkeypatch.setattr(sys, "platform", "win32")
    assert shell.join(["a b"]) == '"a b"'


def test_misuse_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="empty command"):
        shell.join([])
    with pytest.raises(ValueError, match="unknown shell"):
        shell.quote("a b", "fish")


@pytest.mark.parametrize(("word", "named"), [('a"b', "'\"'"), ("50%", "'%'"), ("a\x1fb", "'\\x1f'"),
                                             ("my dir\\", "a trailing backslash")])  # fmt: skip
def test_a_windows_refusal_names_what_the_word_holds(word: str, named: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        shell.quote(word, shell.WINDOWS)
    assert str(refused.value).endswith(f"(it holds {named})")


def test_a_windows_word_with_a_space_and_no_control_character_is_quoted() -> None:
    assert shell.quote("a\x20b", shell.WINDOWS) == '"a b"'
    assert shell.quote("~x", shell.WINDOWS) == '"~x"'
