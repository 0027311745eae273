"""Hold every package's line-and-branch coverage at a minimum, one package at a time.

    python tools/coverage_check.py coverage.json [--min 90] [--report-only PACKAGE ...]

Reads ``coverage json`` output (``make test`` writes it) and sums the covered and the total lines and
branches of each top-level package under ``packages/*/src`` and ``tools/*/src``: a well-covered core
cannot hide a poorly-covered agent. Prints one line per package; exits 1 naming each package below
the minimum, or any package that has no measured file at all (a coverage source left out).
``--report-only`` names packages that are reported but not held (entire_sim, the test tool, whose
soak and simulator paths run under the end-to-end tests, where coverage is not collected).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = re.compile(r"(?:^|/)(?:packages|tools)/[^/]+/src/([A-Za-z0-9_]+)/")


def expected_packages() -> list[str]:
    """Every importable package of the workspace's members."""
    found = {p.parent.name for p in ROOT.glob("packages/*/src/*/__init__.py")}
    found |= {p.parent.name for p in ROOT.glob("tools/*/src/*/__init__.py")}
    return sorted(found)


def per_package(report: dict[str, object]) -> dict[str, tuple[int, int]]:
    """``{package: (covered, total)}`` over lines and branches, as coverage's own percentage counts them."""
    totals: dict[str, tuple[int, int]] = {}
    files = report.get("files", {})
    assert isinstance(files, dict)
    for name, data in files.items():
        match = SOURCE.search(str(name).replace("\\", "/"))
        if not match:
            continue
        summary = data["summary"]
        covered = summary["covered_lines"] + summary.get("covered_branches", 0)
        total = summary["num_statements"] + summary.get("num_branches", 0)
        done, all_ = totals.get(match.group(1), (0, 0))
        totals[match.group(1)] = (done + covered, all_ + total)
    return totals


def problems(
    totals: dict[str, tuple[int, int]],
    packages: list[str],
    minimum: float,
    exempt: frozenset[str] = frozenset(),
) -> list[str]:
    """One line per package (not in ``exempt``) that is unmeasured or below ``minimum`` percent."""
    found: list[str] = []
    for package in packages:
        if package in exempt:
            continue
        if package not in totals:
            found.append(f"{package}: not measured (missing from [tool.coverage.run] source?)")
            continue
        covered, total = totals[package]
        percent = 100.0 * covered / total if total else 100.0
        if percent < minimum:
            found.append(f"{package}: {percent:.1f}% is below {minimum:g}%")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="coverage json output")
    parser.add_argument("--min", type=float, default=90.0, dest="minimum")
    parser.add_argument("--report-only", nargs="*", default=[], metavar="PACKAGE", help="reported, not held")
    args = parser.parse_args(argv)
    try:
        report = json.loads(args.report.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        print(f"coverage_check: cannot read {args.report}: {exc}", file=sys.stderr)
        return 2
    totals = per_package(report)
    packages = expected_packages()
    for package in packages:
        covered, total = totals.get(package, (0, 0))
        percent = f"{100.0 * covered / total:5.1f}%" if total else "  n/a "
        held = "report only" if package in args.report_only else f"held at {args.minimum:g}%"
        print(f"coverage {percent}  {package} ({covered}/{total} lines and branches; {held})")
    failed = problems(totals, packages, args.minimum, frozenset(args.report_only))
    for line in failed:
        print(f"coverage_check: {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
