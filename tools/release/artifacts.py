"""Reading built wheels and sdists: their core metadata, entry points and Python modules. Stdlib only."""

from __future__ import annotations

import configparser
import email.parser
import email.policy
import tarfile
import zipfile
from dataclasses import dataclass, field
from email.message import Message
from pathlib import Path

from workspace import AGENT_GROUP, PRIVATE_CLASSIFIER, normalize


@dataclass
class Artifact:
    """One wheel or sdist in dist/ and its core metadata (METADATA or PKG-INFO)."""

    path: Path
    kind: str  # "wheel" or "sdist"
    metadata: Message = field(repr=False)

    @property
    def name(self) -> str:
        """The distribution name, normalized."""
        return normalize(self.metadata.get("Name", ""))

    @property
    def version(self) -> str:
        """The version the metadata states."""
        return self.metadata.get("Version", "")

    @property
    def classifiers(self) -> list[str]:
        """Every ``Classifier:`` value."""
        return self.metadata.get_all("Classifier") or []

    @property
    def private(self) -> bool:
        """True when the artifact must never be uploaded."""
        return PRIVATE_CLASSIFIER in self.classifiers

    @property
    def size(self) -> int:
        """The file's size in bytes."""
        return self.path.stat().st_size


@dataclass
class Wheel(Artifact):
    """A wheel: also its file list, entry points and modules."""

    names: list[str] = field(default_factory=list[str], repr=False)

    @property
    def dist_info(self) -> str:
        """The ``<name>-<version>.dist-info`` directory inside the wheel."""
        return next(n.split("/")[0] for n in self.names if n.split("/")[0].endswith(".dist-info"))

    def read(self, name: str) -> bytes:
        """The bytes of one file in the wheel."""
        with zipfile.ZipFile(self.path) as zf:
            return zf.read(name)

    def entry_points(self) -> dict[str, dict[str, str]]:
        """``{group: {name: "module:attr"}}`` from entry_points.txt (empty when there is none)."""
        name = f"{self.dist_info}/entry_points.txt"
        if name not in self.names:
            return {}
        parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
        parser.optionxform = str  # type: ignore[assignment,method-assign]  # entry point names are case-sensitive
        parser.read_string(self.read(name).decode("utf-8"))
        return {group: dict(parser.items(group)) for group in parser.sections()}

    @property
    def agents(self) -> dict[str, str]:
        """The ``entire.agents`` entry points: registry name -> ``module:Class``."""
        return self.entry_points().get(AGENT_GROUP, {})

    def modules(self) -> dict[str, str]:
        """Every Python module in the wheel: dotted name -> source text (``pkg/__init__.py`` is ``pkg``)."""
        found: dict[str, str] = {}
        with zipfile.ZipFile(self.path) as zf:
            for name in self.names:
                if not name.endswith(".py") or ".dist-info/" in name or ".data/" in name:
                    continue
                parts = name[: -len(".py")].split("/")
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                found[".".join(parts)] = zf.read(name).decode("utf-8")
        return found

    def packages(self) -> set[str]:
        """The modules that are packages (have an ``__init__.py``)."""
        return {n[: -len("/__init__.py")].replace("/", ".") for n in self.names if n.endswith("/__init__.py")}


def _parse(data: bytes) -> Message:
    return email.parser.BytesParser(policy=email.policy.compat32).parsebytes(data)


def read_artifact(path: Path) -> Artifact:
    """A wheel or sdist from dist/; ValueError when it is neither or has no metadata."""
    if path.name.endswith(".whl"):
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            infos = sorted({n.split("/")[0] for n in names if n.split("/")[0].endswith(".dist-info")})
            if len(infos) != 1:
                raise ValueError(f"{path.name}: expected one .dist-info directory, found {len(infos)}")
            metadata = _parse(zf.read(f"{infos[0]}/METADATA"))
        return Wheel(path, "wheel", metadata, names)
    if path.name.endswith(".tar.gz"):
        with tarfile.open(path) as tf:
            members = [m for m in tf.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")]
            if len(members) != 1:
                raise ValueError(f"{path.name}: expected one top-level PKG-INFO")
            extracted = tf.extractfile(members[0])
            if extracted is None:
                raise ValueError(f"{path.name}: PKG-INFO is not a file")
            return Artifact(path, "sdist", _parse(extracted.read()))
    raise ValueError(f"{path.name}: neither a wheel nor an sdist")


def artifacts(dist: Path) -> list[Artifact]:
    """Every wheel and sdist in ``dist``, sorted by file name."""
    paths = sorted(p for p in dist.iterdir() if p.name.endswith((".whl", ".tar.gz")))
    return [read_artifact(p) for p in paths]


def wheels(dist: Path) -> list[Wheel]:
    """The wheels in ``dist``."""
    return [a for a in artifacts(dist) if isinstance(a, Wheel)]
