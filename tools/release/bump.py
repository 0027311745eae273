"""One version for every package: bump them all together, or check that nothing has drifted.

    uv run python tools/release/bump.py --check
    uv run python tools/release/bump.py 0.2.0 --notes "entire-core: ...; entire-agent-openai-codex: ..."
    uv run python tools/release/bump.py minor --notes-file notes.md

A bump sets the version of every workspace member (``version`` in its pyproject.toml and the static
``__version__`` in ``src/<module>/__init__.py``), points every ``entire-core`` requirement that has a
version range at ``>=X.Y,<X.(Y+1)`` (extras such as ``entire-core[toml]`` are kept), runs ``uv lock``,
and adds a dated section with the release notes to CHANGELOG.md. Only the characters of those values
change: the files are never re-serialized, so comments and layout stay as they are.

``--check`` exits 1 with one line per problem when anything disagrees: a version, a ``__version__``, a
core requirement's range, a member missing from (or stale in) uv.lock, a member the root pyproject.toml
does not depend on (a plain ``uv run`` would not install it), or a CHANGELOG.md without a section for
the version. CI runs it. Standard library only.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from workspace import CORE, Member, load_toml, members, normalize, uv_command

VERSION_RE = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
PROJECT_VERSION_RE = re.compile(
    r"^(?P<pre>[ \t]*version[ \t]*=[ \t]*)(?P<q>[\"'])(?P<v>[^\"'\n]*)(?P=q)", re.M
)
DUNDER_VERSION_RE = re.compile(
    r"^(?P<pre>__version__[ \t]*(?::[ \t]*str[ \t]*)?=[ \t]*)(?P<q>[\"'])(?P<v>[^\"'\n]*)(?P=q)", re.M
)
REQUIREMENT_RE = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?P<extras>\[[^\]]*\])?\s*"
    r"(?P<spec>[^;@]*?)\s*(?P<marker>;.*)?$"
)
HEADER_RE = re.compile(r"^[ \t]*\[\[?[ \t]*(?P<name>[^\]\n]+?)[ \t]*\]\]?[ \t]*(?:#[^\r\n]*)?\r?$", re.M)
CHANGELOG = "CHANGELOG.md"
CHANGELOG_HEADER = """# Changelog

Every package of this repository is released together, with one version (lockstep): a release lists
what changed in each package. `tools/release/bump.py` adds a section per release from its notes.
"""


class BumpError(Exception):
    """A bump that cannot be done safely; the message is one line for the user."""


# -- versions --------------------------------------------------------------------------------------------


def parse_version(text: str) -> tuple[int, int, int] | None:
    """``"1.2.3"`` -> ``(1, 2, 3)``; None for anything but a plain ``X.Y.Z`` release number."""
    match = VERSION_RE.match(text)
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def core_range(version: str) -> str:
    """The requirement every agent has on entire-core at ``version``: ``>=X.Y,<X.(Y+1)``."""
    parsed = parse_version(version)
    if parsed is None:
        raise BumpError(f"{version!r} is not an X.Y.Z version")
    major, minor, _ = parsed
    return f">={major}.{minor},<{major}.{minor + 1}"


def next_version(current: str, target: str) -> str:
    """``target`` itself when it is a version, else ``current`` bumped by ``major``/``minor``/``patch``."""
    if target not in ("major", "minor", "patch"):
        if parse_version(target) is None:
            raise BumpError(f"{target!r} is neither X.Y.Z nor major, minor or patch")
        return target
    parsed = parse_version(current)
    if parsed is None:
        raise BumpError(f"the current version {current!r} is not X.Y.Z; bump to an explicit version")
    major, minor, patch = parsed
    if target == "major":
        return f"{major + 1}.0.0"
    if target == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch + 1}"


def _specifiers(spec: str) -> set[str]:
    return {part.replace(" ", "") for part in spec.split(",") if part.strip()}


def _core_requirement(text: str) -> re.Match[str] | None:
    match = REQUIREMENT_RE.match(text)
    return match if match and normalize(match["name"]) == CORE else None


# -- the check -------------------------------------------------------------------------------------------


def reference_version(found: list[Member]) -> str:
    """The version everything should have: entire-core's, else the one most members have."""
    for member in found:
        if member.name == CORE:
            return member.version
    versions = [m.version for m in found]
    return max(set(versions), key=versions.count) if versions else ""


def check(root: Path) -> list[str]:
    """Every disagreement in the workspace, one line each (empty when all is in lockstep)."""
    try:
        found = members(root)
    except ValueError as exc:
        return [str(exc)]
    if not found:
        return [f"{root / 'pyproject.toml'}: lists no workspace members"]
    expected = reference_version(found)
    problems: list[str] = []
    if parse_version(expected) is None:
        problems.append(f"{CORE}: version {expected!r} is not X.Y.Z")
        return problems
    wanted_range = _specifiers(core_range(expected))
    for member in found:
        where = f"{member.rel}/pyproject.toml"
        if member.version != expected:
            problems.append(
                f"{where}: {member.name} is at {member.version!r}, expected {expected} (lockstep)"
            )
        problems += _check_dunder(member, expected)
        core_requirements = [m for r in member.requirements() if (m := _core_requirement(r))]
        for match in core_requirements:
            spec = match["spec"].strip()
            if not spec and member.private:
                continue  # a never-released tool may take whatever core the workspace has
            if _specifiers(spec) != wanted_range:
                problems.append(
                    f"{where}: requirement {match.string.strip()!r} should be "
                    f"{match['name']}{match['extras'] or ''}{core_range(expected)}"
                )
        if member.agents and not core_requirements:
            problems.append(f"{where}: agent package {member.name} has no requirement on {CORE}")
    problems += _check_root_dependencies(root, found)
    problems += _check_lock(root, found)
    problems += _check_changelog(root, expected)
    return problems


def _check_root_dependencies(root: Path, found: list[Member]) -> list[str]:
    """The root depends on every member, so ``uv run`` in a fresh clone has them all (the README's demo)."""
    project = load_toml(root / "pyproject.toml").get("project", {})
    requirements = project.get("dependencies", []) if isinstance(project, dict) else []
    listed = {normalize(m["name"]) for r in requirements if (m := REQUIREMENT_RE.match(str(r)))}
    return [
        f"pyproject.toml: workspace member {member.name} is not in the root's dependencies "
        "(a plain `uv run` would not install it)"
        for member in found
        if member.name not in listed
    ]


def _check_dunder(member: Member, expected: str) -> list[str]:
    where = member.init_file.relative_to(member.root).as_posix()
    try:
        text = member.init_file.read_text(encoding="utf-8")
    except OSError:
        return [] if member.private else [f"{where}: missing (it must hold __version__ = {expected!r})"]
    matches = list(DUNDER_VERSION_RE.finditer(text))
    if not matches:
        return [] if member.private else [f'{where}: no static __version__ = "..." line']
    if len(matches) > 1:
        return [f"{where}: {len(matches)} __version__ lines, expected one"]
    if matches[0]["v"] != expected:
        return [f"{where}: __version__ is {matches[0]['v']!r}, expected {expected}"]
    return []


def _check_lock(root: Path, found: list[Member]) -> list[str]:
    try:
        lock = load_toml(root / "uv.lock")
    except ValueError as exc:
        return [f"{exc} (run uv lock)"]
    packages = [p for p in lock.get("package", []) if isinstance(p, dict)]
    local = {
        normalize(str(p.get("name", ""))): str(p.get("version", ""))
        for p in packages
        if isinstance(p.get("source"), dict) and {"editable", "virtual", "directory"} & set(p["source"])
    }
    problems: list[str] = []
    for member in found:
        if member.name not in local:
            problems.append(f"uv.lock: workspace member {member.name} is missing (run uv lock)")
        elif local[member.name] != member.version:
            problems.append(
                f"uv.lock: {member.name} is locked at {local[member.name]!r} but its pyproject says "
                f"{member.version!r} (run uv lock)"
            )
    manifest = lock.get("manifest", {})
    listed = manifest.get("members", []) if isinstance(manifest, dict) else []
    names = {m.name for m in found}
    root_name = normalize(str(load_toml(root / "pyproject.toml").get("project", {}).get("name", "")))
    for name in sorted({normalize(str(n)) for n in listed} - names - {root_name}):
        problems.append(f"uv.lock: lists {name}, which is no longer a workspace member (run uv lock)")
    return problems


def _check_changelog(root: Path, version: str) -> list[str]:
    try:
        text = (root / CHANGELOG).read_text(encoding="utf-8")
    except OSError:
        return [f"{CHANGELOG}: missing (bump.py adds a section per release)"]
    if not _section_re(version).search(text):
        return [f"{CHANGELOG}: no section for {version} ('## {version} - YYYY-MM-DD')"]
    return []


def _section_re(version: str) -> re.Pattern[str]:
    return re.compile(rf"^## \[?{re.escape(version)}\]?(?:\s|$)", re.M)


# -- surgical edits --------------------------------------------------------------------------------------

Edit = tuple[int, int, str]
"""Replace ``text[start:end]`` with the string."""


def _string_at(text: str, i: int) -> tuple[int, int, int] | None:
    """``(content start, content end, index after the closing quote)`` of a TOML string opening at ``i``."""
    c = text[i]
    if c not in "\"'":
        return None
    quote = c * 3 if text.startswith(c * 3, i) else c
    j = i + len(quote)
    while j < len(text) and not text.startswith(quote, j):
        j += 2 if (c == '"' and text[j] == "\\") else 1
    return i + len(quote), j, j + len(quote)


def _strings(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of the contents of every TOML string in ``text[start:end]``, comments skipped."""
    i = start
    while i < end:
        if text[i] == "#":
            newline = text.find("\n", i, end)
            i = end if newline < 0 else newline
        elif found := _string_at(text, i):
            yield found[0], found[1]
            i = found[2]
        else:
            i += 1


def _array_end(text: str, open_at: int) -> int:
    """The index just past the ``]`` that closes the array opening at ``text[open_at] == "["``."""
    depth, i = 0, open_at
    while i < len(text):
        c = text[i]
        if c == "#":
            newline = text.find("\n", i)
            i = len(text) if newline < 0 else newline
            continue
        if found := _string_at(text, i):
            i = found[2]
            continue
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise BumpError("an array in pyproject.toml is not closed")


def _tables(text: str) -> list[tuple[str, int, int]]:
    """``(name, start, end)`` of every table of a TOML document; the root table is named ``""``."""
    headers = list(HEADER_RE.finditer(text))
    spans = [("", 0, headers[0].start() if headers else len(text))]
    for i, header in enumerate(headers):
        stop = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        spans.append((header["name"].replace(" ", "").replace('"', ""), header.end(), stop))
    return spans


def pyproject_edits(text: str, where: str, version: str) -> list[Edit]:
    """The edits that set ``[project] version`` and every ranged entire-core requirement for ``version``."""
    tables = _tables(text)
    project = [t for t in tables if t[0] == "project"]
    if len(project) != 1:
        raise BumpError(f"{where}: expected one [project] table, found {len(project)}")
    _, start, end = project[0]
    versions = list(PROJECT_VERSION_RE.finditer(text, start, end))
    if len(versions) != 1:
        raise BumpError(f'{where}: expected one static version = "..." line in [project]')
    edits: list[Edit] = [(versions[0].start("v"), versions[0].end("v"), version)]
    regions: list[tuple[int, int]] = []
    dependencies = re.compile(r"^[ \t]*dependencies[ \t]*=[ \t]*\[", re.M).search(text, start, end)
    if dependencies:
        regions.append((dependencies.end() - 1, _array_end(text, dependencies.end() - 1)))
    regions += [(s, e) for name, s, e in tables if name == "project.optional-dependencies"]
    for region_start, region_end in regions:
        for s, e in _strings(text, region_start, region_end):
            match = _core_requirement(text[s:e])
            if match and match["spec"].strip():
                edits.append((s + match.start("spec"), s + match.end("spec"), core_range(version)))
    return edits


def dunder_edits(text: str, where: str, version: str) -> list[Edit]:
    """The edit that sets the one static ``__version__`` line."""
    matches = list(DUNDER_VERSION_RE.finditer(text))
    if len(matches) != 1:
        raise BumpError(f'{where}: expected one static __version__ = "..." line, found {len(matches)}')
    return [(matches[0].start("v"), matches[0].end("v"), version)]


def apply(text: str, edits: list[Edit], where: str) -> str:
    """``text`` with the non-overlapping ``edits`` applied; BumpError if more than their lines changed."""
    result = text
    for start, end, value in sorted(edits, reverse=True):
        result = result[:start] + value + result[end:]
    before, after = text.splitlines(keepends=True), result.splitlines(keepends=True)
    changed = sum(a != b for a, b in zip(before, after, strict=False))
    if len(before) != len(after) or changed > len(edits):
        raise BumpError(f"{where}: an edit would change more than its own line; edit it by hand")
    return result


def changelog_with(text: str | None, version: str, date: str, notes: str) -> str:
    """CHANGELOG.md with a new section for ``version`` above the previous releases."""
    if text is None:
        text = CHANGELOG_HEADER
    if _section_re(version).search(text):
        raise BumpError(f"{CHANGELOG} already has a section for {version}")
    section = f"## {version} - {date}\n\n{notes.strip()}\n\n"
    unreleased = re.search(r"^## Unreleased[ \t]*\n+(?P<body>(?:(?!^## ).*\n?)*)", text, re.M)
    if unreleased:  # lines added since the last release (make new-agent adds one) join the new section
        body = unreleased["body"].strip()
        section = f"## {version} - {date}\n\n{notes.strip()}\n{body}\n\n" if body else section
        return text[: unreleased.start()] + section + text[unreleased.end() :]
    first = re.search(r"^## ", text, re.M)
    if first:
        return text[: first.start()] + section + text[first.start() :]
    return text.rstrip("\n") + "\n\n" + section.rstrip("\n") + "\n"


# -- the bump --------------------------------------------------------------------------------------------


def bump(root: Path, target: str, notes: str, *, date: str, lock: bool = True) -> str:
    """Set every member to the version ``target`` names, refresh uv.lock, add the CHANGELOG section."""
    if not notes.strip():
        raise BumpError("release notes are empty: give --notes or --notes-file")
    found = members(root)
    current = sorted({m.version for m in found})
    if target in ("major", "minor", "patch") and len(current) != 1:
        raise BumpError(f"versions disagree ({', '.join(current)}); bump to an explicit X.Y.Z")
    version = next_version(current[-1] if current else "", target)
    newest = max((v for v in map(parse_version, current) if v), default=None)
    new = parse_version(version)
    if newest is not None and new is not None and new <= newest:
        raise BumpError(f"{version} is not newer than {'.'.join(map(str, newest))}")

    writes: dict[Path, str] = {}
    for member in found:
        text = _read(member.pyproject)
        where = f"{member.rel}/pyproject.toml"
        writes[member.pyproject] = apply(text, pyproject_edits(text, where, version), where)
        if member.init_file.is_file():
            init = _read(member.init_file)
            if DUNDER_VERSION_RE.search(init) or not member.private:
                where = member.init_file.relative_to(member.root).as_posix()
                writes[member.init_file] = apply(init, dunder_edits(init, where, version), where)
        elif not member.private:
            raise BumpError(f"{member.init_file}: missing (it must hold __version__)")
    changelog = root / CHANGELOG
    old_log = _read(changelog) if changelog.is_file() else None
    writes[changelog] = changelog_with(old_log, version, date, notes)

    for path, text in writes.items():  # everything was computed first: a refused bump writes nothing
        _write(path, text)
    if lock:
        uv = uv_command()
        if uv is None:
            raise BumpError("files were bumped, but uv was not found to refresh uv.lock: run uv lock")
        env = {**os.environ, "UV_PYTHON_DOWNLOADS": os.environ.get("UV_PYTHON_DOWNLOADS", "never")}
        done = subprocess.run([*uv, "lock"], cwd=root, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            reason = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
            raise BumpError(f"files were bumped to {version}, but uv lock failed: {reason}")
    return version


def _read(path: Path) -> str:
    with path.open(encoding="utf-8", newline="") as f:  # newline="": keep the file's own line ends
        return f.read()


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.bump.tmp")
    with tmp.open("w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--check`` or a bump; problems go to stderr, one line each."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("target", nargs="?", help="X.Y.Z, major, minor or patch")
    parser.add_argument("--check", action="store_true", help="exit 1 on any version skew")
    parser.add_argument("--notes", help="release notes for CHANGELOG.md (Markdown)")
    parser.add_argument("--notes-file", type=Path, help="read the release notes from this file")
    parser.add_argument("--date", default=datetime.date.today().isoformat(), help="release date (YYYY-MM-DD)")
    parser.add_argument("--no-lock", action="store_true", help="do not run uv lock (tests)")
    parser.add_argument(
        "--root", type=Path, default=Path(__file__).resolve().parents[2], help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()

    if args.check:
        if args.target:
            parser.error("--check takes no version")
        problems = check(root)
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            print(f"bump.py --check: {len(problems)} problem(s)", file=sys.stderr)
            return 1
        found = members(root)
        print(f"lockstep: {len(found)} packages at {reference_version(found)}, uv.lock and {CHANGELOG} agree")
        return 0

    if not args.target:
        parser.error("give a version (X.Y.Z, major, minor or patch) or --check")
    if args.notes is not None and args.notes_file is not None:
        parser.error("give --notes or --notes-file, not both")
    try:
        notes = args.notes_file.read_text(encoding="utf-8") if args.notes_file else (args.notes or "")
        version = bump(root, args.target, notes, date=args.date, lock=not args.no_lock)
    except (BumpError, ValueError, OSError) as exc:
        print(f"bump.py: {exc}", file=sys.stderr)
        return 1
    problems = check(root)
    if args.no_lock:
        problems = [p for p in problems if not p.startswith("uv.lock:")]
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        return 1
    print(f"bumped every package to {version}; review the diff, then commit")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
