"""Run Go's compliance suite against the installed plugin, with this directory's fixtures.

    python tests/compliance/run_compliance.py [--suite /work/compliance/run-compliance] [--plugin PATH]

The suite resolves fixture paths against its own package directories, so ``fixtures.json`` (paths
relative to this directory) is rewritten with absolute paths into a temporary file. For the
text-generation test, the project's scripted Responses-API server is started on a free 127.0.0.1
port and ``CODEX_HOME`` points at a config.toml that uses it, with the pinned Codex first on PATH
(the same pinned install as the end-to-end test's, ``entire_sim.e2e.npm_tool``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
E2E = HERE.parent / "e2e"


def absolute_fixtures(target: Path) -> None:
    """``fixtures.json`` with every relative path made absolute."""
    data = json.loads((HERE / "fixtures.json").read_text(encoding="utf-8"))
    for section, key in (
        ("detect", "present_repo"),
        ("detect", "absent_repo"),
        ("transcript_analyzer", "session_ref"),
    ):
        data[section][key] = str((HERE / data[section][key]).resolve())
    target.write_text(json.dumps(data, indent=2), encoding="utf-8")


def main() -> int:
    """Start the scripted server, run the suite, stop the server; the suite's exit status."""
    parser = argparse.ArgumentParser(description="Run Go's compliance suite against the installed plugin.")
    parser.add_argument("--suite", default="/work/compliance/run-compliance")
    parser.add_argument("--plugin", default=str(Path(sys.executable).parent / "entire-agent-openai-codex"))
    parser.add_argument(
        "--codex-bin", help="directory of the codex binary (default: the pinned one, installed)"
    )
    args = parser.parse_args()
    if not args.codex_bin:
        from entire_sim import e2e

        args.codex_bin = str(e2e.npm_tool("@openai/codex", "0.171.0", "codex").parent)
    sys.path.insert(0, str(E2E))
    import codex_driver as driver  # pyright: ignore[reportMissingImports]

    with tempfile.TemporaryDirectory(prefix="codex-compliance-") as tmp:
        work = Path(tmp)
        port_file = work / "port"
        server = subprocess.Popen([sys.executable, str(E2E / "codex_scripted_server.py"), "--port", "0", "--port-file", str(port_file), "--lifetime", "900"])  # fmt: skip
        try:
            deadline = time.monotonic() + 20
            while not port_file.exists():
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the scripted server did not start")
                time.sleep(0.05)
            codex_home = work / "codex-home"
            codex_home.mkdir()
            (codex_home / "config.toml").write_text(
                driver.user_config(port_file.read_text()), encoding="utf-8"
            )
            fixtures = work / "fixtures.json"
            absolute_fixtures(fixtures)
            env = dict(os.environ, CODEX_HOME=str(codex_home), SCRIPTED_API_KEY="scripted-not-a-secret")
            env["PATH"] = os.pathsep.join([args.codex_bin, env.get("PATH", "")])
            return subprocess.run([args.suite, args.plugin, str(fixtures)], env=env, check=False).returncode
        finally:
            server.terminate()
            server.wait(timeout=10)


if __name__ == "__main__":
    raise SystemExit(main())
