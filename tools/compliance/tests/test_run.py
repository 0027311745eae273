"""tools/compliance/run.py without Go: suite output parsing, the table, the one-line errors, each agent's data.

The suite's outputs in ``data/`` are real: ``verify`` of Codex with its fixtures and server (every test
passed), and of Aider with neither (fixture tests skipped, text generation failed).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import socket
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

RUN_PY = Path(__file__).resolve().parents[1] / "run.py"
DATA = Path(__file__).resolve().parent / "data"
ROOT = Path(__file__).resolve().parents[3]


def load_runner() -> ModuleType:
    """run.py is a script, not a package: load it from its file."""
    spec = importlib.util.spec_from_file_location("compliance_run", RUN_PY)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


run = load_runner()


def test_a_passing_run_counts_every_test_and_subtest() -> None:
    output = (DATA / "verify-codex-passed.txt").read_text(encoding="utf-8")
    result = run.parse_suite_output("openai-codex", output, 0)
    assert (len(result.passed), len(result.failed), len(result.skipped)) == (66, 0, 0)
    assert "TestTextGenerator_GenerateText" in result.passed
    assert "TestTranscriptAnalyzer_SemanticFixture" in result.passed
    assert result.ok


def test_a_failing_run_names_what_failed_and_what_was_skipped() -> None:
    output = (DATA / "verify-aider-no-server.txt").read_text(encoding="utf-8")
    result = run.parse_suite_output("aider", output, 1)
    assert len(result.passed) == 49
    assert result.failed == ["TestTextGenerator_GenerateText"]
    assert result.skipped == ["TestDetect_WithFixtures", "TestTranscriptAnalyzer_SemanticFixture"]
    assert not result.ok


def test_skips_alone_are_not_ok() -> None:
    result = run.parse_suite_output("x", "--- SKIP: TestSomething (0.00s)\n", 0)
    assert result.skipped == ["TestSomething"] and not result.ok


def test_a_package_that_did_not_build_is_a_failure() -> None:
    output = "FAIL\tgithub.com/entireio/external-agents-tests/tests/hooks [build failed]\nFAIL\n"
    result = run.parse_suite_output("x", output, 1)
    assert result.failed == ["github.com/entireio/external-agents-tests/tests/hooks [build failed]"]


def test_a_non_zero_exit_without_a_failed_test_still_fails() -> None:
    result = run.parse_suite_output("x", "error: cannot stat binary\n", 1)
    assert result.failed == ["(the suite exited with status 1)"] and not result.ok


def test_the_table() -> None:
    codex = run.Result("openai-codex", passed=["a"] * 66, seconds=32.14)
    aider = run.Result("aider", passed=["a"] * 49, failed=["b"], skipped=["c", "d"], exit_code=1, seconds=5)
    assert run.render_table([codex, aider]) == (
        "| agent        | pass | fail | skip | seconds |\n"
        "|--------------|------|------|------|---------|\n"
        "| openai-codex |   66 |    0 |    0 |    32.1 |\n"
        "| aider        |   49 |    1 |    2 |     5.0 |\n"
    )


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode != 0
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_the_runner_without_a_suite_says_how_to_build_one() -> None:
    done = subprocess.run([sys.executable, str(RUN_PY)], capture_output=True, text=True, check=False)
    assert one_line_error(done) == f"compliance: {run.MISSING_SUITE}"
    assert "github.com/entireio/external-agents-tests" in run.MISSING_SUITE
    assert "go build" in run.MISSING_SUITE


def test_make_compliance_without_suite_gives_the_same_one_line(checkout: Path) -> None:
    """The README's `make compliance`, without SUITE."""
    env = {k: v for k, v in os.environ.items() if k not in ("SUITE", "MAKEFLAGS", "MFLAGS")}
    done = subprocess.run(
        ["make", "--no-print-directory", "compliance"],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.MISSING_SUITE in one_line_error(done)


def test_the_readme_command_calls_the_runner_with_its_suite(checkout: Path) -> None:
    """The README's `make compliance SUITE=...`, dry-run (`make -n`): the command it would run."""
    command = "make compliance SUITE=../external-agents-tests/external-agents-tests"
    assert f"\n{command}\n" in (ROOT / "README.md").read_text(encoding="utf-8")
    words = shlex.split(command)
    done = subprocess.run(
        ["make", "-n", "--no-print-directory", *words[1:]],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    suite = words[-1].removeprefix("SUITE=")
    assert shlex.split(done.stdout)[-4:] == ["python", "tools/compliance/run.py", "--suite", suite], (
        done.stdout
    )


def test_a_suite_that_is_not_an_executable_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "external-agents-tests"
    done = subprocess.run(
        [sys.executable, str(RUN_PY), "--suite", str(missing)], capture_output=True, text=True, check=False
    )
    assert one_line_error(done) == f"compliance: SUITE={missing} is not an executable file; {run.BUILD_HINT}"


def test_placeholders_are_filled_and_other_braces_kept() -> None:
    assert run.fill('{"a": "{port}"} {scratch}', port="1", scratch="/s") == '{"a": "1"} /s'


@pytest.mark.parametrize("agent", run.AGENTS, ids=lambda a: a.name)
def test_each_agents_data_names_files_that_exist(agent: Any, tmp_path: Path) -> None:
    assert agent.plugin().exists(), "run 'uv sync --all-packages' first"
    fixtures = json.loads(run.absolute_fixtures(agent, tmp_path / "f.json").read_text(encoding="utf-8"))
    assert Path(fixtures["detect"]["present_repo"]).is_dir()
    assert Path(fixtures["detect"]["absent_repo"]).is_dir()
    assert Path(fixtures["transcript_analyzer"]["session_ref"]).is_file()
    for text_for in agent.files.values():
        assert text_for(4321)


@pytest.mark.parametrize("agent", run.AGENTS, ids=lambda a: a.name)
def test_nothing_the_suite_is_given_lies_in_the_checkout(agent: Any) -> None:
    """A run must not depend on where the repository is cloned (Gemini skips settings under /tmp)."""
    values = {"port": "4321", "scratch": "/scratch"}
    for name, value in agent.env.items():
        filled = run.fill(value, **values)
        assert "{" not in filled and str(ROOT) not in filled, (name, value)
        if filled.startswith("/") and not filled.startswith("/scratch"):
            pytest.fail(f"{name}={filled}: a path outside the run's scratch directory")


def test_gemini_is_given_user_settings_under_its_own_home_not_system_settings() -> None:
    gemini = next(a for a in run.AGENTS if a.name == "google-gemini")
    assert "GEMINI_CLI_SYSTEM_SETTINGS_PATH" not in gemini.env
    home = run.fill(gemini.env["GEMINI_CLI_HOME"], scratch="/scratch")
    assert home == "/scratch/gemini-home"
    settings = json.loads(gemini.files["gemini-home/.gemini/settings.json"](4321))
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert (
        settings["telemetry"]["enabled"] is False and settings["privacy"]["usageStatisticsEnabled"] is False
    )


@pytest.mark.parametrize("agent", run.AGENTS, ids=lambda a: a.name)
def test_each_agents_scripted_server_announces_a_port_it_listens_on(agent: Any) -> None:
    server = run.start_server(agent)
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10):
            pass
    finally:
        server.stop()


def test_codex_config_is_toml_written_whole_for_the_scripted_server() -> None:
    import tomllib

    config = tomllib.loads(run.codex_config(4321))
    assert config["model_providers"]["scripted"]["base_url"] == "http://127.0.0.1:4321/v1"
    assert config["analytics"] == {"enabled": False} and config["check_for_update_on_startup"] is False
