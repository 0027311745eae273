"""Run Entire's Go compliance suite against the installed ``entire-agent-google-gemini``, offline.

    python run_compliance.py <run-compliance script> [<console script>]

Re-executes itself inside ``unshare -n`` (loopback only), starts the project's scripted Gemini API on
127.0.0.1 in that namespace, and points Gemini CLI at it through the environment, so the suite's
text-generation test runs the real ``gemini -p`` without reaching any remote service:
``GOOGLE_GEMINI_BASE_URL``, ``GEMINI_API_KEY``, and ``GEMINI_CLI_SYSTEM_SETTINGS_PATH`` naming
``gemini-system-settings.json``, which selects API-key auth and turns telemetry and update checks off
(the suite gives every test a fresh HOME, so user settings cannot do it). The pinned Gemini CLI is the
end-to-end test's install (``entire_sim.e2e.npm_tool``), made first if missing. The suite wants
absolute fixture paths; ``fixtures.json`` here is relative to its own directory and is rewritten.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
INSIDE = "ENTIRE_GEMINI_COMPLIANCE_INSIDE"
GEMINI_BIN = "ENTIRE_GEMINI_COMPLIANCE_BIN"
SYSTEM_SETTINGS = HERE / "gemini-system-settings.json"
"""Kept here, not in a temp dir: Gemini skips a system settings file under a world-writable directory."""


def absolute_fixtures(target: Path) -> Path:
    """``fixtures.json`` with every path made absolute against this directory."""
    fixtures = json.loads((HERE / "fixtures.json").read_text())
    for key in ("present_repo", "absent_repo"):
        fixtures["detect"][key] = str((HERE / fixtures["detect"][key]).resolve())
    analyzer = fixtures["transcript_analyzer"]
    analyzer["session_ref"] = str((HERE / analyzer["session_ref"]).resolve())
    target.write_text(json.dumps(fixtures, indent=2))
    return target


def inside(runner: str, script: str) -> int:
    sys.path.insert(0, str(HERE.parent / "e2e"))
    import gemini_api

    with tempfile.TemporaryDirectory(prefix="gemini-compliance-") as tmp:
        server = gemini_api.serve(0, "", str(Path(tmp) / "api.jsonl"))
        env = {
            **os.environ,
            "PATH": f"{os.environ[GEMINI_BIN]}{os.pathsep}{os.environ.get('PATH', '')}",
            "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}",
            "GEMINI_API_KEY": "scripted",
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(SYSTEM_SETTINGS),
            "GEMINI_TELEMETRY_ENABLED": "false",
        }
        fixtures = absolute_fixtures(Path(tmp) / "fixtures.json")
        try:
            return subprocess.run([runner, script, str(fixtures)], env=env, check=False).returncode
        finally:
            server.shutdown()
            log = Path(tmp) / "api.jsonl"
            answered = len(log.read_text().splitlines()) if log.exists() else 0
            print(f"scripted Gemini API answered {answered} request(s)")


def main() -> int:
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__ or "")
        return 2
    runner = sys.argv[1]
    default = Path(sys.executable).parent / "entire-agent-google-gemini"
    script = sys.argv[2] if len(sys.argv) > 2 else str(default)
    if os.environ.get(INSIDE):
        return inside(runner, script)
    from entire_sim import e2e

    gemini_bin = e2e.npm_tool("@google/gemini-cli", "0.61.0", "gemini").parent  # before the network goes
    argv = e2e.in_loopback_namespace([sys.executable, __file__, runner, script])
    return subprocess.run(
        argv, env={**os.environ, INSIDE: "1", GEMINI_BIN: str(gemini_bin)}, check=False
    ).returncode


if __name__ == "__main__":
    raise SystemExit(main())
