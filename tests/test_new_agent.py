"""``make new-agent``: a fourth agent is a command, and the package it makes passes what CI asks of one.

The scaffold runs in a copy of this checkout (its tracked and untracked files, as a clean clone would
have them after this change); the copy gets its own environment from the lock, then the new package's
contract tests, the lockstep check, ruff, pyright and the wheel build must pass there.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from checkout import copy_checkout

ROOT = Path(__file__).resolve().parents[1]
SCAFFOLD = ROOT / "tools" / "scaffold" / "new_agent.py"
UV = os.environ.get("UV") or shutil.which("uv") or "uv"


def _run(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT")}
    env["UV_PYTHON_DOWNLOADS"] = "never"
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{' '.join(argv)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def test_a_scaffolded_agent_passes_its_contract_tests_lockstep_and_builds(tmp_path: Path) -> None:
    copy = copy_checkout(tmp_path / "checkout")
    run = (UV, "run", "--locked", "--all-packages")
    out = _run(copy, "make", "new-agent", "NAME=acme-coder", "TITLE=Acme Coder", f"UV={UV}")
    assert "packages/agent-acme-coder" in out.stdout
    package = copy / "packages" / "agent-acme-coder"
    module = package / "src" / "entire_agent_acme_coder"
    layout = {
        "agent.py",
        "hooks.py",
        "events.py",
        "transcript.py",
        "compact.py",
        "textgen.py",
        "paths.py",
        "doctor.py",
        "view.py",
        "versions.py",
    }
    assert layout <= {p.name for p in module.iterdir()}
    tests_dir = {p.name for p in (package / "tests").iterdir()}
    assert {"test_contract.py", "test_view.py", "test_versions.py"} <= tests_dir
    assert "entire-agent-acme-coder" in (copy / "pyproject.toml").read_text()
    assert "entire-agent-acme-coder" in (copy / "CHANGELOG.md").read_text().split("## 0.")[0]

    tests = _run(copy, *run, "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-o", "addopts=", str(package))
    assert " passed" in tests.stdout and not re.search(
        r"\b\d+ failed", tests.stdout
    )  # "1 xfailed" is no failure
    # The agent reads its sessions through its view from the start; the kit's view tests and the window pass.
    passed = {line.split("::", 1)[1] for line in tests.stdout.splitlines() if line.startswith("PASSED ")}
    assert {
        "TestAcmeCoderAgentContract::test_views_live_outside_the_repository",
        "TestAcmeCoderAgentContract::test_view_snapshots_and_cuts_keep_the_format",
        "TestAcmeCoderAgentContract::test_write_then_read_session",
        "TestAcmeCoderAgentWindow::test_the_readme_table_is_the_window",
        "TestAcmeCoderAgentWindow::test_install_refuses_a_version_below_the_window",
        "TestAcmeCoderAgentWindow::test_one_install_hint_everywhere",
    } <= passed, tests.stdout[-3000:]
    # What make test asks of every agent as well: its coverage measured, its bundled session replayed
    # with the hook path kept light (tests/test_startup.py needs the package's demo/replay.json).
    import tomllib

    coverage = tomllib.loads((copy / "pyproject.toml").read_text())["tool"]["coverage"]["run"]["source"]
    assert "entire_agent_acme_coder" in coverage
    pythonpath = tomllib.loads((copy / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"][
        "pythonpath"
    ]
    assert "packages/agent-acme-coder/tests" in pythonpath  # where its fixture modules import from
    startup = _run(copy, *run, "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-k", "acme-coder",
                   "tests/test_startup.py")  # fmt: skip
    assert "3 passed" in startup.stdout and "skipped" not in startup.stdout, startup.stdout
    assert "lockstep" in _run(copy, *run, "python", "tools/release/bump.py", "--check").stdout
    _run(copy, *run, "ruff", "check", str(package))
    _run(copy, *run, "ruff", "format", "--check", str(package))
    _run(copy, *run, "pyright", str(module))
    _run(
        copy,
        UV,
        "build",
        "--package",
        "entire-agent-acme-coder",
        "--no-sources",
        "--out-dir",
        str(tmp_path / "dist"),
    )
    wheels = sorted(p.name for p in (tmp_path / "dist").glob("*.whl"))
    assert wheels == ["entire_agent_acme_coder-" + _core_version() + "-py3-none-any.whl"]
    version = _run(copy, *run, "entire-agent-acme-coder", "--version").stdout
    assert _core_version() in version


def _core_version() -> str:
    import tomllib

    return tomllib.loads((ROOT / "packages" / "entire-core" / "pyproject.toml").read_text())["project"][
        "version"
    ]


@pytest.mark.parametrize("name", ["codex", "gemini", "gemini-cli", "claude-code", "pi"])
def test_built_in_names_are_refused_and_nothing_is_written(tmp_path: Path, name: str) -> None:
    before = (ROOT / "pyproject.toml").read_bytes(), (ROOT / "CHANGELOG.md").read_bytes(), _packages()
    done = subprocess.run(
        [sys.executable, str(SCAFFOLD), "--no-lock", "--", name], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1 and done.stdout == ""
    assert (
        done.stderr.startswith("new-agent: ")
        and "built-in" in done.stderr
        and len(done.stderr.splitlines()) == 1
    )
    assert (
        (ROOT / "pyproject.toml").read_bytes(),
        (ROOT / "CHANGELOG.md").read_bytes(),
        _packages(),
    ) == before


def _packages() -> list[str]:
    return sorted(
        str(p.relative_to(ROOT)) for p in (ROOT / "packages").rglob("*") if "__pycache__" not in p.parts
    )


@pytest.mark.parametrize("name", ["Acme", "acme_coder", "-acme", "acme--coder", "acme-", "ünï"])
def test_names_that_are_not_registry_names_are_refused(name: str) -> None:
    done = subprocess.run(
        [sys.executable, str(SCAFFOLD), "--no-lock", "--", name], capture_output=True, text=True, check=False
    )
    assert done.returncode == 1 and "is not a registry name" in done.stderr


def test_the_command_and_config_folder_can_differ_from_the_name(tmp_path: Path) -> None:
    # Qwen Code's registry name is qwen-code, its command qwen and its folder .qwen.
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("new_agent", SCAFFOLD)
    assert spec is not None and spec.loader is not None
    new_agent = module_from_spec(spec)
    spec.loader.exec_module(new_agent)
    n = new_agent.names("qwen-code", "Qwen Code", "0.1.0", binary="qwen", config_dir=".qwen")
    new_agent.render(tmp_path, n)
    source = tmp_path / "src" / "entire_agent_qwen_code"
    assert 'BINARY = "qwen"' in (source / "textgen.py").read_text()
    assert 'os.path.join(".qwen", "settings.json")' in (source / "paths.py").read_text()
    assert 'protected_dirs = (".qwen",)' in (source / "agent.py").read_text()
    assert 'hook_config = ".qwen/settings.json"' in (tmp_path / "tests" / "test_contract.py").read_text()
    default = new_agent.names("acme-coder", "Acme Coder", "0.1.0")
    assert (default["binary"], default["config_dir"]) == ("acme-coder", ".acme-coder")
