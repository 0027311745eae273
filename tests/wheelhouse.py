"""A folder of wheels of the third-party packages the agents need, made offline from this environment.

``uv tool install`` resolves against a package index, which no test may reach, and a fresh uv cache
filled by ``uv sync --locked`` holds no index pages to resolve from offline. The distributions installed
in this environment are the versions ``uv.lock`` pins; each is packed back into a wheel (the files its
``RECORD`` lists, with the ``WHEEL`` tags it was installed from), so that an install line of a README
can run as written with the folder standing in for PyPI (``find-links`` in a uv config file, which uv
adds to a ``--find-links`` on the command line).
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from importlib.metadata import Distribution, distribution
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

OURS = frozenset(["entire-core", "entire-sim"])
"""Packages of this workspace: never taken from the environment (the install line builds them)."""


def closure(roots: list[str]) -> list[Distribution]:
    """The installed third-party distributions ``roots`` (names, ``name[extra]`` allowed) need, transitively."""
    seen: dict[str, Distribution] = {}
    todo = [Requirement(root) for root in roots]
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        if name in seen:
            continue
        dist = distribution(requirement.name)
        if name not in OURS and not name.startswith("entire-agent-"):
            seen[name] = dist
        for text in dist.requires or []:
            needed = Requirement(text)
            marker: Marker | None = needed.marker
            extras = requirement.extras or {""}
            if marker is None or any(marker.evaluate({"extra": extra}) for extra in extras):
                todo.append(needed)
    return sorted(seen.values(), key=lambda d: canonicalize_name(d.metadata["Name"]))


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def repack(dist: Distribution, target: Path) -> Path:
    """``dist`` as the wheel it was installed from, in ``target``: its files, a fresh ``RECORD``."""
    wheel = dist.read_text("WHEEL") or ""
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
    parts = [sorted({tag.split("-")[i] for tag in tags}) for i in range(3)]
    name = canonicalize_name(dist.metadata["Name"]).replace("-", "_")
    path = target / f"{name}-{dist.version}-{'-'.join('.'.join(p) for p in parts)}.whl"
    base = Path(str(dist.locate_file("")))
    record_name = ""
    rows: list[str] = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in dist.files or []:
            relative = str(file)
            in_dist_info = ".dist-info/" in relative
            if in_dist_info and relative.endswith("/RECORD"):
                record_name = relative
                continue
            installed_only = in_dist_info and relative.rsplit("/", 1)[-1] in (
                "INSTALLER",
                "REQUESTED",
                "direct_url.json",
            )
            if relative.startswith("..") or "__pycache__" in relative or installed_only:
                continue  # console scripts, bytecode and the installer's own notes are made at install
            data = (base / relative).read_bytes()
            archive.writestr(relative, data)
            rows.append(f"{relative},{_digest(data)},{len(data)}")
        assert record_name, f"{dist.metadata['Name']} has no RECORD"
        archive.writestr(record_name, "\n".join([*rows, f"{record_name},,"]) + "\n")
    return path


def third_party_wheels(target: Path, roots: list[str]) -> list[Path]:
    """Wheels of every third-party package ``roots`` need, in ``target`` (made if missing)."""
    target.mkdir(parents=True, exist_ok=True)
    return [repack(dist, target) for dist in closure(roots)]
