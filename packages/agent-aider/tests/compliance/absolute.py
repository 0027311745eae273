"""Print fixtures.json with its paths made absolute (the Go suite resolves relative paths elsewhere).

usage: python absolute.py > /tmp/aider-fixtures.json
"""

import json
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
fixtures = json.loads((here / "fixtures.json").read_text())
for section, key in (
    ("detect", "present_repo"),
    ("detect", "absent_repo"),
    ("transcript_analyzer", "session_ref"),
):
    fixtures[section][key] = str((here / fixtures[section][key]).resolve())
json.dump(fixtures, sys.stdout, indent=2)
sys.stdout.write("\n")
