"""Every agent package runs the simulator's full lifecycle on its bundled real session, cleanly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agent_scripts import installed_agents
from entire_sim import demo

AGENTS = installed_agents()
MANIFESTS = {json.loads(m.read_text())["agent"]: m for m in demo.manifests()}


@pytest.mark.parametrize("name", [a.name for a in AGENTS])
def test_bundled_session_replays_without_violations(name: str, tmp_path: Path) -> None:
    assert name in MANIFESTS, f"packages/*/demo/replay.json is missing for {name}"
    sim, _ = demo.Replay(MANIFESTS[name], tmp_path).run()
    assert sim.violations() == []
    assert [r for r in sim.hook_calls() if r["error"]] == []
    turns = [c for c in sim.checkpoints() if c["kind"] == "turn"]
    assert turns, "the replay recorded no turn"
    assert all(t["prompt"] for t in turns), "every turn has a prompt"
    assert any(t["transcript_files"] for t in turns), "the transcript named the files the agent changed"
    assert any(t["tokens"] and t["tokens"]["api_call_count"] > 0 for t in turns), "token usage was computed"


def test_the_report_figures_add_up(tmp_path: Path) -> None:
    """Per session, what each turn says it stored adds up to the session's total (turns without a changed
    file store nothing: the CLI saves no checkpoint for them)."""
    import re

    from entire_sim.report import render

    sim, _ = demo.Replay(MANIFESTS["aider"], tmp_path).run()
    text = render("aider", "demo", sim.hook_calls(), sim.checkpoints(), sim.violations())
    sessions = text.split("   session ")[1:]
    assert sessions
    for block in sessions:
        turns = [
            int(n.replace(",", "")) for n in re.findall(r"\n {13}stored  ([\d,]+) transcript bytes", block)
        ]
        total = re.search(r"\n {5}stored  ([\d,]+) transcript bytes in all, across (\d+) checkpoint", block)
        if not turns:
            assert total is None and "stored  nothing: no file changed" in block, block
            continue
        assert total is not None, block
        assert (sum(turns), len(turns)) == (int(total[1].replace(",", "")), int(total[2])), block
    assert re.search(
        r"stored  nothing: no file changed, so no checkpoint \(the transcript read was [\d,]+ bytes\)", text
    )
