"""Makes ``codex_fixtures`` (the real captures and what they contain) importable by the test modules."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
