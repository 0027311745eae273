"""The release tools are scripts, not a package: make their directory importable for these tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Protocol

import pytest

RELEASE = Path(__file__).resolve().parents[1]
FAKE_WORKSPACE = Path(__file__).resolve().parent / "data" / "workspace"
if str(RELEASE) not in sys.path:
    sys.path.insert(0, str(RELEASE))

from workspace import uv_command  # noqa: E402  (needs the path above)


@pytest.fixture
def fake_workspace(tmp_path: Path) -> Path:
    """A copy of the small fake workspace in tests/data, locked by the real uv (offline: no deps)."""
    root = tmp_path / "ws"
    shutil.copytree(FAKE_WORKSPACE, root)
    uv = uv_command()
    assert uv, "uv is needed to lock the fake workspace"
    done = subprocess.run(
        [*uv, "lock", "--offline"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"},
    )
    assert done.returncode == 0, done.stderr
    return root


def build_wheel(
    directory: Path,
    name: str,
    version: str,
    files: dict[str, str],
    *,
    metadata: str = "",
    entry_points: str = "",
    licenses: dict[str, str] | None = None,
    tag: str = "py3-none-any",
) -> Path:
    """Write a wheel file with these modules and METADATA lines (a README body after a blank line)."""
    import zipfile

    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    path = directory / f"{name.replace('-', '_')}-{version}-{tag}.whl"
    head, _, body = metadata.partition("\n\n")
    text = f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\n{head.strip()}\n".replace("\n\n", "\n")
    with zipfile.ZipFile(path, "w") as zf:
        for rel, source in files.items():
            zf.writestr(rel, source)
        zf.writestr(f"{dist_info}/METADATA", text + ("\n" + body if body else ""))
        zf.writestr(f"{dist_info}/WHEEL", f"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: {tag}\n")
        if entry_points:
            zf.writestr(f"{dist_info}/entry_points.txt", entry_points)
        for rel, content in (licenses or {}).items():
            zf.writestr(f"{dist_info}/licenses/{rel}", content)
    return path


class WheelMaker(Protocol):
    """``make_wheel(name, version, files, metadata=..., entry_points=..., licenses=..., tag=...)``."""

    def __call__(
        self,
        name: str,
        version: str,
        files: dict[str, str],
        *,
        metadata: str = "",
        entry_points: str = "",
        licenses: dict[str, str] | None = None,
        tag: str = "py3-none-any",
    ) -> Path: ...


@pytest.fixture
def make_wheel(tmp_path: Path) -> WheelMaker:
    """Build small wheels into a temporary dist directory."""
    dist = tmp_path / "dist"
    dist.mkdir()

    def make(name: str, version: str, files: dict[str, str], **kwargs: Any) -> Path:
        return build_wheel(dist, name, version, files, **kwargs)

    return make
