"""Runs inside a loopback-only network namespace: one launched Aider session of chat commands.

usage: chat_commands_driver.py CONFIG.json (the keys of ``test_e2e_aider.py``'s config, and
``scenario``). Writes what the simulator recorded to ``config["out"]``.

- ``ask``: Aider logs ``/ask <text>`` twice in its chat history (as typed, then the text alone before
  the reply); Entire must see one prompt. The turns: ``/ask``, then the same question as plain text.
- ``lint-help``: ``/lint`` on a file flake8 finds an error in, then ``/help <question>``. Aider logs the
  lint errors as an input block of their own when its lint coder takes them (``Coder.run``), and
  ``/help`` hands its help coder the question with the docs found, as another input block: each is
  one prompt for Entire, as typed. ``/help`` runs against ``help_stub/`` (a stand-in for the
  llama-index extra, which needs the network) on Aider's ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import model_server
from driver import AGENT, git, run_session
from entire_sim import Simulator

QUESTION = "What does greet do?"
HELP_QUESTION = "How do I add files?"
SCENARIOS = {
    "ask": [(f"/ask {QUESTION}", False), (QUESTION, False)],
    "lint-help": [("/lint", False), (f"/help {HELP_QUESTION}", False)],
}
LINTED = 'def greet(name):\n    return f"Hello, {name}!"\n\n\nprint(greet(nobody))\n'
"""hello.py for ``lint-help``: flake8's F821 (undefined name), one of the errors Aider's linter reports."""


def main() -> None:
    config = json.loads(Path(sys.argv[1]).read_text())
    work = Path(config["work"])
    repo, home = work / "repo", work / "home"
    for path in (repo, home / ".aider" / "caches", work / "tmp"):
        path.mkdir(parents=True, exist_ok=True)
    shutil.copy(config["cost_map"], home / ".aider" / "caches" / "model_prices_and_context_window.json")
    server, port = model_server.start()
    git(repo, "init", "-q", "-b", "main")
    scenario = config.get("scenario", "ask")
    (repo / "hello.py").write_text(
        LINTED if scenario == "lint-help" else 'def greet(name):\n    return f"Hello, {name}!"\n'
    )
    (repo / ".gitignore").write_text(".aider*\n.entire/\n")
    git(repo, "add", "hello.py", ".gitignore")
    git(repo, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial")
    base_env = {
        "PATH": ":".join([config["plugin_bin"], config["aider_bin"], "/usr/bin", "/bin"]),
        "HOME": str(home), "TMPDIR": str(work / "tmp"), "XDG_DATA_HOME": str(work / "xdg-data"),
        "TERM": "xterm-256color", "NO_COLOR": "1", "PROMPT_TOOLKIT_NO_CPR": "1",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LANG": "C.UTF-8",
    }  # fmt: skip
    if scenario == "lint-help":
        base_env["PYTHONPATH"] = str(Path(__file__).parent / "help_stub")
    sim = Simulator(repo, state_dir=work / "entire-state", env=base_env)
    sim.install_shim(work / "bin")
    sim.enable(AGENT)
    # Through the launcher: plain aider reports nothing (it commits before its notification rings).
    argv = [str(Path(config["plugin_bin"]) / "entire-agent-aider"), "run", "--aider",
            str(Path(config["aider_bin"]) / "aider"), "--", "--model", "openai/gpt-4o", "--openai-api-base",
            f"http://127.0.0.1:{port}/v1", "--openai-api-key", "fake", "--no-check-update", "--no-analytics",
            "--no-show-release-notes", "--no-show-model-warnings", "--yes-always", "--no-pretty", "--no-stream",
            "hello.py"]  # fmt: skip
    run = run_session(scenario, argv, repo, sim.env(), sim, work, SCENARIOS[scenario])
    report = {
        "run": run,
        "hook_calls": sim.hook_calls(),
        "checkpoints": sim.checkpoints(),
        "violations": sim.violations(),
        "requests": [r for r in model_server.Handler.log if r["kind"] != "commit"],
        "history": (repo / ".aider.chat.history.md").read_text(),
    }
    server.shutdown()
    Path(config["out"]).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
