"""Helpers of the simulator's tests: plugins on a private PATH and a simulator over them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from entire_sim import Simulator

HERE = Path(__file__).parent


def launcher(bin_dir: Path, name: str, code: str) -> Path:
    """An executable ``entire-agent-<name>`` running ``code`` with this interpreter."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    path = bin_dir / f"entire-agent-{name}"
    path.write_text(f"#!{sys.executable}\n{code}\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def broken(bin_dir: Path, name: str = "broken") -> Path:
    """The deliberately broken plugin under ``name``."""
    return launcher(
        bin_dir,
        name,
        f"import runpy\nrunpy.run_path({str(HERE / 'broken_plugin.py')!r}, run_name='__main__')",
    )


def sample(bin_dir: Path) -> Path:
    """Core's sample agent, a plugin that follows the protocol."""
    return launcher(
        bin_dir, "sample", "import sys\nfrom entire_core.testing.sample_agent import main\nsys.exit(main())"
    )


def make_sim(repo: Path, bin_dir: Path, **env: str) -> Simulator:
    """A simulator whose PATH holds only our bin dir and system tools (no workspace plugins)."""
    base = {
        "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(repo.parent / "home"),
        **env,
    }
    sim = Simulator(repo, state_dir=repo.parent / "state", env=base)
    (repo / ".entire").mkdir(exist_ok=True)
    (repo / ".entire" / "settings.json").write_text(
        '{"enabled": true, "external_agents": true}\n', encoding="utf-8"
    )
    return sim


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
