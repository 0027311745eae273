"""``generate-text`` and ``write-hook-response``, with a fake ``cline`` that reports how it was run."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from entire_agent_cline_cli.agent import ClineCliAgent
from entire_core.errors import AgentError
from entire_core.testing.pytest_plugin import MakeAgent

FAKE_CLINE = r"""#!/bin/sh
# What cline --json prints (3.0.65): JSON lines, the answer in the last run_result's text.
mkdir -p "$CLINE_DATA_DIR/sessions/s1" && echo '{}' > "$CLINE_DATA_DIR/sessions/s1/s1.messages.json"
printf '{"type":"hook_event","hookEventName":"agent_start"}\n'
python3 - "$@" <<'PY'
import json, os, sys
data = os.environ["CLINE_DATA_DIR"]
seen = {"args": sys.argv[1:], "cwd": os.getcwd(), "home": os.environ["HOME"], "data": data,
        "cline_dir": os.environ["CLINE_DIR"], "sessions": os.environ.get("CLINE_SESSION_DATA_DIR"),
        "backend": os.environ["CLINE_SESSION_BACKEND_MODE"], "cwd_files": os.listdir("."),
        "providers": open(os.path.join(data, "settings", "providers.json")).read()}
print(json.dumps({"type": "run_result", "finishReason": "completed", "text": json.dumps(seen) + "\n"}))
PY
"""


def _fake(tmp_path: Path, script: str) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cline").write_text(script)
    (bin_dir / "cline").chmod(0o755)
    return f"{bin_dir}:/usr/bin:/bin"


def test_generate_text_runs_cline_in_plan_mode_unapproved_in_a_scratch_data_dir(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    agent = make_agent(ClineCliAgent, PATH=_fake(tmp_path, FAKE_CLINE), CLINE_SESSION_DATA_DIR="/nonexistent")
    settings = Path(agent.home()) / ".cline" / "data" / "settings"
    settings.mkdir(parents=True)
    (settings / "providers.json").write_text('{"version": 1}')
    (settings / "secrets.json").write_text("{}")
    before = sorted(str(p) for p in Path(agent.home()).rglob("*"))
    seen = json.loads(agent.generate_text("-say hi", "m1"))
    scratch = seen["home"]
    assert os.path.basename(scratch).startswith("entire-agent-cline-cli-")  # core's Guard's scratch directory
    assert seen["args"] == ["--json", "--plan", "--auto-approve", "false", "--cwd", f"{scratch}/run",
                            "-m", "m1", "--", "-say hi"]  # fmt: skip
    assert (seen["cwd"], seen["cwd_files"]) == (
        f"{scratch}/run",
        [],
    )  # an empty directory, not the repository
    assert (seen["data"], seen["cline_dir"], seen["sessions"]) == (
        f"{scratch}/data",
        f"{scratch}/.cline",
        None,
    )
    assert (seen["providers"], seen["backend"]) == ('{"version": 1}', "local")  # only the provider settings
    assert not os.path.exists(scratch)  # the run's session went with it
    assert sorted(str(p) for p in Path(agent.home()).rglob("*")) == before


def test_generate_text_names_clines_error(make_agent: MakeAgent, tmp_path: Path) -> None:
    script = '#!/bin/sh\necho \'{"type":"error","message":"No API key for provider"}\'\nexit 1\n'
    agent = make_agent(ClineCliAgent, PATH=_fake(tmp_path, script))
    with pytest.raises(AgentError) as caught:
        agent.generate_text("Say hi", "")
    assert str(caught.value) == "cline failed (exit 1): No API key for provider"


def test_generate_text_without_cline_names_the_install_command(agent: ClineCliAgent) -> None:
    with pytest.raises(AgentError) as caught:
        agent.generate_text("Say hi", "")
    assert str(caught.value) == "cline is not on PATH: Cline CLI is not installed"
    assert caught.value.fix == "`npm install -g cline@3.0.65`"


def test_hook_response_is_control_json_cline_acts_on_nothing_of() -> None:
    out = ClineCliAgent.write_hook_response(ClineCliAgent.__new__(ClineCliAgent), "Entire: saved <b>&</b>")
    doc = json.loads(out)
    assert doc == {"systemMessage": "Entire: saved <b>&</b>"} and out.endswith(b"\n")
    # Cline's HookOutputSchema keys, any of which would cancel, review or alter the run: none is set
    assert not {"cancel", "review", "context", "contextModification", "errorMessage", "overrideInput"} & set(
        doc
    )
