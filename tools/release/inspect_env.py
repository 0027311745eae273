"""Run by the Python of an environment the smoke test installed: what is in it, as one JSON object.

    <env>/bin/python -I inspect_env.py MODULE...

Standard library only (the environment has nothing of ours but the wheels under test). For each named
module it reports where it would be imported from, without importing it, and how many compiled
``.pyc`` files sit next to it.
"""

from __future__ import annotations

import json
import os
import platform
import re
import sys
from importlib.metadata import distributions, packages_distributions
from importlib.util import find_spec


def main() -> int:
    """Print the environment's distributions, module providers and module locations."""
    dists: dict[str, dict[str, object]] = {}
    for dist in distributions():
        name = re.sub(r"[-_.]+", "-", dist.metadata["Name"]).lower()
        dists[name] = {"version": dist.version, "requires": list(dist.requires or [])}
    modules: dict[str, dict[str, object]] = {}
    for module in sys.argv[1:]:
        spec = find_spec(module)
        origin = spec.origin if spec and spec.origin else None
        cache = os.path.join(os.path.dirname(origin), "__pycache__") if origin else ""
        pyc = len([n for n in os.listdir(cache) if n.endswith(".pyc")]) if os.path.isdir(cache) else 0
        modules[module] = {"origin": origin, "pyc": pyc}
    report = {
        "python": platform.python_version(),
        "prefix": sys.prefix,
        "distributions": dists,
        "providers": packages_distributions(),
        "modules": modules,
    }
    sys.stdout.write(json.dumps(report) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
