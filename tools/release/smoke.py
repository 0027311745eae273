"""Install each agent's wheels the way users do, away from the workspace, and prove they work on their own.

    uv run python tools/release/smoke.py [dist] [--keep]

For every agent wheel in dist/ (aider, gemini and any later agent are picked up by their
``entire.agents`` entry point), in a fresh temporary directory outside the repository:

1. ``python -m venv``, then ``pip install --no-index --find-links dist/ --find-links <wheelhouse>
   dist/entire_core-*.whl dist/entire_agent_<name>-*.whl``, with every pip configuration file and
   ``PIP_*`` variable ignored;
2. ``uv tool install --compile-bytecode --offline --no-index`` from the same files into its own
   ``UV_TOOL_DIR``/``UV_TOOL_BIN_DIR``, with a private uv cache and no uv configuration;
3. ``pip install --user`` with the base interpreter into a ``PYTHONUSERBASE`` of its own, and ``pipx
   install`` (pipx itself from PyPI, ``PIPX``), from the same files: the front's routes.

The installs run inside a network namespace with no interfaces when ``unshare -n`` is available, so
"offline" is enforced, not just requested. Then, for each installed console script: ``--version``,
``info`` (valid JSON, protocol_version 1, the agent's name), where entire_core and the agent are
imported from (inside that environment, never the workspace), the resolved dependency set against what
the code imports (deps.py: nothing the agent does not use), and the black-box contract suite
(tests/test_blackbox_contract.py with ``ENTIRE_AGENT_SCRIPT_<NAME>`` pointing at that script). From every
route: after its first call the script is the front (``entire_core.front``), answering ``info``,
``--version`` and ``get-session-dir`` itself and as Python does, and handing the rest to Python.

Third-party wheels (pydantic and what it needs, tomlkit, PyYAML...) are not in dist/: they come from
a wheelhouse downloaded once, with hashes, from the versions pinned in uv.lock (``uv export``), and
cached in ``~/.cache/entire-agents-release/wheelhouse/<hash of the pins>/``. dist/ holds only our
own wheels; nothing else is ever consulted by the installs.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from artifacts import Wheel, wheels
from deps import SEED, ImportGraph, Installed, judge, unconditional
from workspace import CORE, uv_command

REPO = Path(__file__).resolve().parents[2]
INSPECTOR = Path(__file__).resolve().parent / "inspect_env.py"
CONTRACT_SUITE = "tests/test_blackbox_contract.py"
INSTALL_TIMEOUT = 600


class SmokeError(Exception):
    """A step failed; the message says which and why."""


@dataclass
class Install:
    """One agent installed one way, and what the checks found."""

    mode: str
    agent: str
    wheel: Wheel
    script: Path
    python: Path
    seconds: float
    resolved: dict[str, str] = field(default_factory=dict[str, str])
    installed: dict[str, Installed] = field(default_factory=dict[str, Installed])
    why: dict[str, str] = field(default_factory=dict[str, str])
    problems: list[str] = field(default_factory=list[str])
    suite: str = ""
    env: dict[str, str] = field(default_factory=dict[str, str])
    """What the install's scripts need in the environment besides ``clean_env`` (pip --user's base)."""


# -- processes ---------------------------------------------------------------------------------------------


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without anything that points Python, pip or uv at the workspace or a config."""
    drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONSTARTUP")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith(("PIP_", "UV_"))}
    env.update(PYTHONNOUSERSITE="1", PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.update(PIP_NO_INPUT="1", UV_NO_CONFIG="1", UV_PYTHON_DOWNLOADS="never", NO_COLOR="1")
    env.update(extra)
    return env


def run(
    cmd: list[str], *, env: dict[str, str], cwd: Path, what: str, timeout: float = INSTALL_TIMEOUT
) -> str:
    """Run ``cmd``; its stdout, or SmokeError with the end of its output."""
    try:
        done = subprocess.run(
            cmd,
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SmokeError(f"{what}: {exc}") from None
    if done.returncode != 0:
        tail = "\n    ".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        raise SmokeError(f"{what}: exit status {done.returncode}\n    {tail}")
    return done.stdout


def offline_prefix() -> list[str]:
    """``unshare -n`` when it works here (a namespace with no network at all), else nothing."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True, check=False).returncode == 0:
        return [unshare, "-n"]
    return []


def base_python() -> str:
    """The interpreter behind the workspace's virtual environment (what ``python3`` is in CI)."""
    base = getattr(sys, "_base_executable", "") or sys.executable
    return base if os.path.exists(base) else sys.executable


# -- the wheelhouse ----------------------------------------------------------------------------------------


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/entire-agents-release`` (``~/.cache/...``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "entire-agents-release"


def wheelhouse(pip_python: Path, uv: list[str]) -> Path:
    """The third-party wheels every package may need, at the versions uv.lock pins, with their hashes.

    Downloaded once per set of pins and interpreter, then reused; the only step that uses the network.
    """
    export = [*uv, "export", "--frozen", "--all-packages", "--all-extras", "--no-dev", "--no-emit-workspace",
              "--no-header", "--no-annotate", "--format", "requirements-txt"]  # fmt: skip
    pins = run(
        export,
        env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"},
        cwd=REPO,
        what="uv export (the pinned third-party requirements)",
    )
    tag = (
        f"{platform.python_implementation()}-{platform.python_version()}-{sys.platform}-{platform.machine()}"
    )
    key = hashlib.sha256((tag + "\n" + pins).encode()).hexdigest()[:16]
    target = cache_root() / "wheelhouse" / key
    if (target / ".complete").is_file():
        print(f"wheelhouse: {target} (cached)")
        return target
    staging = target.with_name(f".{key}.{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    (staging / "requirements.txt").write_text(pins, encoding="utf-8")
    started = time.monotonic()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    download = [str(pip_python), "-m", "pip", "download", "--only-binary=:all:", "--no-deps", "--require-hashes",
                "--disable-pip-version-check", "-q", "-r", str(staging / "requirements.txt"), "-d", str(staging)]  # fmt: skip
    run(
        download,
        env=env,
        cwd=staging,
        what="pip download of the pinned third-party wheels",
    )
    (staging / ".complete").write_text("", encoding="utf-8")
    if target.exists():  # another run got there first
        shutil.rmtree(staging)
    else:
        staging.rename(target)
    count = len(list(target.glob("*.whl")))
    print(f"wheelhouse: {target} ({count} wheels downloaded in {time.monotonic() - started:.1f} s)")
    return target


# -- installs ----------------------------------------------------------------------------------------------


def pip_install(
    work: Path, core: Wheel, wheel: Wheel, dist: Path, house: Path | None, uv: list[str]
) -> tuple[Install, Path]:
    """A fresh venv with pip; the agent and core wheels installed from dist/ and the wheelhouse only."""
    venv = work / "venv"
    try:
        run([base_python(), "-m", "venv", str(venv)], env=clean_env(), cwd=work, what="python -m venv")
    except SmokeError as exc:
        if "ensurepip" not in str(exc):
            raise
        # Debian's python3 without python3-venv has no ensurepip; uv seeds pip into the venv instead.
        shutil.rmtree(venv, ignore_errors=True)
        seed = [*uv, "venv", "--seed", "--python", base_python(), str(venv)]
        run(seed, env=clean_env(), cwd=work, what="uv venv --seed (python -m venv has no ensurepip)")
    python = venv / "bin" / "python"
    house = house or wheelhouse(python, uv)
    started = time.monotonic()
    command = [*offline_prefix(), str(python), "-m", "pip", "install", "--no-index", "--find-links", str(dist),
               "--find-links", str(house), "-q", str(core.path), str(wheel.path)]  # fmt: skip
    run(
        command,
        env=clean_env(),
        cwd=work,
        what=f"pip install {wheel.path.name} (offline)",
    )
    name = next(iter(wheel.agents))
    script = venv / "bin" / f"entire-agent-{name}"
    return Install("pip venv", name, wheel, script, python, time.monotonic() - started), house


def uv_tool_install(work: Path, wheel: Wheel, dist: Path, house: Path, uv: list[str]) -> Install:
    """``uv tool install --compile-bytecode`` from the wheel into a tool directory of its own."""
    tools, bin_dir = work / "uv-tools", work / "uv-bin"
    env = clean_env(UV_TOOL_DIR=str(tools), UV_TOOL_BIN_DIR=str(bin_dir), UV_CACHE_DIR=str(work / "uv-cache"))
    started = time.monotonic()
    command = [*offline_prefix(), *uv, "tool", "install", "--compile-bytecode", "--offline", "--no-index",
               "--find-links", str(dist), "--find-links", str(house), "--python", base_python(), str(wheel.path)]  # fmt: skip
    run(
        command,
        env=env,
        cwd=work,
        what=f"uv tool install {wheel.path.name} (offline)",
    )
    name = next(iter(wheel.agents))
    python = tools / wheel.name / "bin" / "python"
    return Install(
        "uv tool", name, wheel, bin_dir / f"entire-agent-{name}", python, time.monotonic() - started
    )


def pip_user_install(work: Path, core: Wheel, wheel: Wheel, dist: Path, house: Path) -> Install:
    """``pip install --user`` with the base interpreter, into a user base of its own (``PYTHONUSERBASE``)."""
    userbase = work / "userbase"
    env = {"PYTHONUSERBASE": str(userbase)}
    pip = [base_python(), "-m", "pip", "install", "--user", "--no-index", "--find-links", str(dist),
           "--find-links", str(house), "-q", str(core.path), str(wheel.path)]  # fmt: skip
    if "--break-system-packages" in run([base_python(), "-m", "pip", "install", "--help"], env=clean_env(),
                                        cwd=work, what="pip install --help", timeout=60):  # fmt: skip
        pip.append("--break-system-packages")  # a distribution's Python (PEP 668): the user base is ours
    started = time.monotonic()
    user_env = {k: v for k, v in clean_env(**env).items() if k != "PYTHONNOUSERSITE"}
    run(
        [*offline_prefix(), *pip],
        env=user_env,
        cwd=work,
        what=f"pip install --user {wheel.path.name} (offline)",
    )
    name = next(iter(wheel.agents))
    script = userbase / "bin" / f"entire-agent-{name}"
    install = Install("pip --user", name, wheel, script, Path(base_python()), time.monotonic() - started)
    install.env = env
    return install


PIPX = "pipx[uv]==1.18.4"
"""The pipx the smoke test installs with (from PyPI, once per run), with uv as its backend."""


def pipx_install(work: Path, wheel: Wheel, dist: Path, house: Path, uv: list[str]) -> Install:
    """``pipx install`` from the wheel (uv backend), into a pipx home of its own."""
    tool = work / "pipx-tool"
    run(
        [*uv, "venv", "-q", "--python", base_python(), str(tool)],
        env=clean_env(),
        cwd=work,
        what="uv venv (pipx)",
    )
    run([*uv, "pip", "install", "-q", "--python", str(tool / "bin" / "python"), PIPX], env=clean_env(), cwd=work,
        what=f"uv pip install {PIPX}")  # fmt: skip
    home, bin_dir = work / "pipx-home", work / "pipx-bin"
    env = clean_env(PIPX_HOME=str(home), PIPX_BIN_DIR=str(bin_dir), PIPX_MAN_DIR=str(work / "pipx-man"),
                    UV_CACHE_DIR=str(work / "uv-cache"))  # fmt: skip
    started = time.monotonic()
    command = [*offline_prefix(), str(tool / "bin" / "pipx"), "install", "--backend", "uv", "--python", base_python(),
               f"--pip-args=--no-index --find-links={dist} --find-links={house}", str(wheel.path)]  # fmt: skip
    run(command, env=env, cwd=work, what=f"pipx install {wheel.path.name} (offline)")
    name = next(iter(wheel.agents))
    python = home / "venvs" / wheel.name / "bin" / "python"
    return Install("pipx", name, wheel, bin_dir / f"entire-agent-{name}", python, time.monotonic() - started)


# -- checks ------------------------------------------------------------------------------------------------


def check_script(install: Install, core: Wheel, work: Path) -> None:
    """``--version`` and ``info`` of the installed console script."""
    env = _script_env(install)
    version = run(
        [str(install.script), "--version"],
        env=env,
        cwd=work,
        what=f"{install.script.name} --version",
        timeout=60,
    )
    expected = (
        f"entire-agent-{install.agent} {install.wheel.version} (entire-core {core.version}, protocol 1)"
    )
    if version.strip() != expected:
        install.problems.append(f"--version printed {version.strip()!r}, expected {expected!r}")
    out = run(
        [str(install.script), "info"], env=env, cwd=work, what=f"{install.script.name} info", timeout=60
    )
    try:
        info = json.loads(out)
    except ValueError as exc:
        install.problems.append(f"info is not JSON: {exc}")
        return
    if not isinstance(info, dict):
        install.problems.append("info is not a JSON object")
        return
    if info.get("protocol_version") != 1 or isinstance(info.get("protocol_version"), bool):
        install.problems.append(f"info.protocol_version is {info.get('protocol_version')!r}, expected 1")
    if info.get("name") != install.agent:
        install.problems.append(f"info.name is {info.get('name')!r}, expected {install.agent!r}")


def _script_env(install: Install) -> dict[str, str]:
    env = clean_env(**install.env)
    if "PYTHONUSERBASE" in install.env:
        env.pop("PYTHONNOUSERSITE")
    return env


def check_front(install: Install, work: Path) -> None:
    """After its first call the script is the front (``entire_core.front``): it answers ``info``,
    ``--version`` and ``get-session-dir`` itself (its trace says so) and byte for byte as Python does,
    and hands the rest to Python."""
    from entire_core.front import MARK

    script = install.script.resolve()
    lines = script.read_bytes().split(b"\n", 2)
    if len(lines) < 2 or not lines[1].startswith(MARK.encode()):
        install.problems.append(f"{install.script.name} is not the front after its first call: {lines[:2]}")
        return
    package = install.wheel.name.replace("-", "_")
    python = [str(install.python), "-P", "-c", f"from {package} import main; main()"]
    trace = work / f"trace-{install.mode.replace(' ', '-')}.jsonl"
    env = {**_script_env(install), "ENTIRE_PLUGIN_TRACE": str(trace)}
    for args in (["info"], ["--version"], ["get-session-dir", "--repo-path", str(work)]):
        front = subprocess.run(
            [str(install.script), *args], env=env, cwd=work, capture_output=True, timeout=60, check=False
        )
        plain = subprocess.run([*python, *args], env=_script_env(install), cwd=work, capture_output=True, timeout=60,
                               check=False)  # fmt: skip
        if (front.returncode, front.stdout) != (plain.returncode, plain.stdout) or front.returncode:
            install.problems.append(
                f"front {args[0]}: {front.stdout!r} ({front.returncode}), Python: {plain.stdout!r}"
            )
    answered = [json.loads(line).get("via") for line in trace.read_text(encoding="utf-8").splitlines()]
    if answered != ["front", "front"]:
        install.problems.append(
            f"the front's trace of info and get-session-dir says {answered}, not the front"
        )
    # A reinstall of entire-core (its RECORD newer than the front): Python answers and writes the front anew.
    # Beside the script (a venv, a pip --user base: the same directory for both globs there).
    bases = {script.parent.parent, Path(install.env.get("PYTHONUSERBASE", script.parent.parent))}
    pattern = "lib/python*/site-packages/entire_core-*.dist-info/RECORD"
    records = sorted({record for base in bases for record in base.glob(pattern)})
    if len(records) != 1:
        install.problems.append(f"entire-core's RECORD not found beside the script: {records}")
    else:
        os.utime(records[0])  # now: after the front was written, before it is written again
        trace.unlink()
        for _ in range(2):
            subprocess.run(
                [str(install.script), "info"], env=env, cwd=work, capture_output=True, timeout=60, check=False
            )
        answered = [json.loads(line).get("via") for line in trace.read_text(encoding="utf-8").splitlines()]
        if answered != ["python", "front"]:
            install.problems.append(
                f"after a reinstall of entire-core, info was answered by {answered}, not Python then the front"
            )
    other = subprocess.run([str(install.script), "no-such-subcommand"], env=env, cwd=work, capture_output=True,
                           timeout=60, check=False)  # fmt: skip
    if other.returncode != 2 or not other.stderr.startswith(f"entire-agent-{install.agent}: ".encode()):
        install.problems.append(f"the front did not hand an unknown subcommand to Python: {other!r}")


def check_environment(install: Install, graph: ImportGraph, work: Path) -> None:
    """Where our modules come from, compiled bytecode, and the resolved set against what is imported."""
    modules = [CORE.replace("-", "_"), install.wheel.name.replace("-", "_")]
    report = json.loads(
        run(
            [str(install.python), "-I", str(INSPECTOR), *modules],
            env=clean_env(),
            cwd=work,
            what="inspect_env.py",
            timeout=60,
        )
    )
    prefix = Path(report["prefix"]).resolve()
    for module, found in report["modules"].items():
        origin = Path(found["origin"] or "/").resolve()
        if not origin.is_relative_to(prefix) or origin.is_relative_to(REPO):
            install.problems.append(f"{module} is imported from {origin}, not from the installed environment")
        if install.mode == "uv tool" and not found["pyc"]:
            install.problems.append(f"{module}: no .pyc files despite --compile-bytecode")
    installed = {
        name: Installed(name, d["version"], d["requires"]) for name, d in report["distributions"].items()
    }
    reach = graph.reach(graph.modules_of(install.wheel.name.replace("-", "_")))
    verdict = judge(reach, graph.owner, installed, report["providers"])
    install.problems += verdict.problems
    install.installed = installed
    install.resolved = {n: d.version for n, d in sorted(installed.items()) if n not in SEED}
    install.why = verdict.needed


def contract_suite(install: Install) -> tuple[bool, str]:
    """The black-box contract suite against the installed script; (passed, summary line)."""
    variable = "ENTIRE_AGENT_SCRIPT_" + install.agent.upper().replace("-", "_")
    selector = "TestBlackBox_" + install.agent.replace("-", "_")
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", CONTRACT_SUITE, "-k", selector, "-q", "-p", "no:cacheprovider"],
        cwd=REPO,
        env={**os.environ, variable: str(install.script)},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    summary = lines[-1].strip("= ") if lines else f"exit status {done.returncode}"
    if done.returncode == 5:
        return False, f"no contract test selected by -k {selector} (is the agent installed in the workspace?)"
    if done.returncode != 0 or " passed" not in summary:
        tail = "\n    ".join((done.stdout + done.stderr).strip().splitlines()[-25:])
        return False, f"{summary}\n    {tail}"
    return True, f"{summary} (wall {time.monotonic() - started:.0f} s)"


# -- the run -----------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """Smoke-test every agent wheel in dist/; exit 1 on any problem."""
    parser = argparse.ArgumentParser(description="Install and test each agent wheel outside the workspace.")
    parser.add_argument("dist", type=Path, nargs="?", default=REPO / "dist")
    parser.add_argument("--keep", action="store_true", help="keep the temporary environments")
    parser.add_argument(
        "--wheelhouse",
        action="store_true",
        help="only make sure the third-party wheelhouse is there, and print its path (for make walkthrough)",
    )
    args = parser.parse_args(argv)
    dist: Path = args.dist.resolve()
    uv = uv_command()
    if uv is None:
        print("smoke: uv not found", file=sys.stderr)
        return 1
    if args.wheelhouse:
        try:
            with contextlib.redirect_stdout(sys.stderr):
                house = wheelhouse(Path(base_python()), uv)
        except SmokeError as exc:
            print(f"smoke: {exc}", file=sys.stderr)
            return 1
        print(house)
        return 0

    found = wheels(dist)
    private = [w.path.name for w in found if w.private]
    cores = [w for w in found if w.name == CORE]
    agents = [w for w in found if w.agents]
    if private or len(cores) != 1 or not agents:
        print(f"smoke: dist/ must hold one {CORE} wheel, agent wheels and nothing private "
              f"(private: {private or 'none'}, core wheels: {len(cores)}, agents: {len(agents)})", file=sys.stderr)  # fmt: skip
        return 1
    core = cores[0]
    print(f"offline installs: {'network namespace (unshare -n)' if offline_prefix() else '--no-index only'}")

    started = time.monotonic()
    root = Path(tempfile.mkdtemp(prefix="entire-release-smoke-"))
    if root.resolve().is_relative_to(REPO):
        print(f"smoke: {root} is inside the repository; set TMPDIR elsewhere", file=sys.stderr)
        return 1
    installs: list[Install] = []
    failures: list[str] = []
    house: Path | None = None
    try:
        for wheel in agents:
            work = root / wheel.name
            work.mkdir()
            graph = ImportGraph([core, wheel])
            try:
                pip_env, house = pip_install(work, core, wheel, dist, house, uv)
                tool_env = uv_tool_install(work, wheel, dist, house, uv)
                others = [
                    pip_user_install(work, core, wheel, dist, house),
                    pipx_install(work, wheel, dist, house, uv),
                ]
            except SmokeError as exc:
                failures.append(f"{wheel.path.name}: {exc}")
                continue
            for install in (pip_env, tool_env):
                try:
                    check_script(install, core, work)
                    check_front(install, work)
                    check_environment(install, graph, work)
                except SmokeError as exc:
                    install.problems.append(str(exc))
                installs.append(install)
            for install in others:  # the front from every way users install; the suite runs on the two above
                try:
                    check_script(install, core, work)
                    check_front(install, work)
                except SmokeError as exc:
                    install.problems.append(str(exc))
                failures += [f"{wheel.path.name} via {install.mode}: {p}" for p in install.problems]
                print(f"{wheel.path.name} via {install.mode}: installed offline in {install.seconds:.1f} s, "
                      f"the front {'ok' if not install.problems else 'FAILED'}")  # fmt: skip
            if pip_env.resolved != tool_env.resolved:
                failures.append(f"{wheel.path.name}: pip and uv tool resolved different sets")
        suite_started = time.monotonic()
        workers = max(1, min(len(installs), os.cpu_count() or 1))
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            results = list(pool.map(contract_suite, installs))
        suite_seconds = time.monotonic() - suite_started
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)

    for install, (passed, summary) in zip(installs, results, strict=True):
        install.suite = summary
        if not passed:
            install.problems.append(f"contract suite: {summary}")
        print(f"\n{install.wheel.path.name} via {install.mode}: installed offline in {install.seconds:.1f} s")
        print(f"  {install.script.name} --version, info: {'ok' if not install.problems else 'see problems'}")
        print(f"  resolved: {', '.join(f'{n}=={v}' for n, v in install.resolved.items())}")
        for name, why in sorted(install.why.items()):
            print(f"    {name}: {why}")
        print(f"  contract suite: {summary.splitlines()[0]}")
        failures += [f"{install.wheel.path.name} via {install.mode}: {p}" for p in install.problems]

    print(
        "\nwheel sizes and resolved dependency sets (a fresh environment, seed packages pip/setuptools left out):"
    )
    core_deps = _closure(core, installs)
    print(f"  {core.path.name}: {core.size / 1024:.1f} KiB -> {', '.join(core_deps) or 'nothing'}")
    seen: set[str] = set()
    for install in installs:
        if install.wheel.name in seen:
            continue
        seen.add(install.wheel.name)
        deps = [f"{n}=={v}" for n, v in install.resolved.items() if n != install.wheel.name]
        print(f"  {install.wheel.path.name}: {install.wheel.size / 1024:.1f} KiB -> {', '.join(deps)}")
    print(
        f"contract suites: {len(installs)} runs, {suite_seconds:.0f} s wall; smoke total {time.monotonic() - started:.0f} s"
    )
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    if failures:
        print(f"smoke: {len(failures)} problem(s)", file=sys.stderr)
        return 1
    print(f"smoke: {len(agents)} agent wheel(s) pass in a pip venv and as a uv tool; the front runs from pip, "
          "uv tool, pip --user and pipx")  # fmt: skip
    return 0


def _closure(core: Wheel, installs: list[Install]) -> list[str]:
    """entire-core's own resolved set (no extras), read from an environment that has it."""
    if not installs:
        return []
    installed = installs[0].installed
    queue, seen = unconditional(core.metadata.get_all("Requires-Dist") or []), set[str]()
    while queue:
        name = queue.pop()
        if name in seen or name not in installed:
            continue
        seen.add(name)
        queue += unconditional(installed[name].requires)
    return [f"{n}=={installed[n].version}" for n in sorted(seen)]


if __name__ == "__main__":
    raise SystemExit(main())
