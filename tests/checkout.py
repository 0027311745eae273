"""A copy of this checkout, for tests that run a command the way a contributor runs it from the root.

No test process works in the checkout itself (``entire_core.testing.isolation``): a command that reads
the tree runs in a copy of its tracked and untracked files, as a clean clone would have them.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_checkout(target: Path) -> Path:
    """Copy every tracked and untracked, not ignored, file of this checkout into ``target``; return it."""
    target.mkdir(parents=True, exist_ok=True)
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=target, capture_output=True, check=True,
    ).stdout.decode("utf-8", "surrogateescape").split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target
