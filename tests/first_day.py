"""The steps a new user's first day is made of, shared by the walkthroughs in ``tests/``.

``test_first_day.py`` runs them on a clean copy of the checkout in ``make test``; ``test_walkthrough.py``
runs them from built wheels and ``uv tool install`` (``make walkthrough``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from entire_sim.demo import Replay, make_repo

USER_HOME_FILES = {
    "codex-home/config.toml": (
        '# my Codex config\nmodel = "gpt-5.5"\n\n# the projects I trust\n[projects."/elsewhere"]\n'
        'trust_level = "trusted"\n\n# my MCP servers\n[mcp_servers.docs]\ncommand = "docs-server"\n'
    ),
    "home/.gemini/settings.json": '{\n  // my look\n  "ui": { "theme": "GitHub" }\n}\n',
    "home/.aider.conf.yml": "# my defaults\nmodel: sonnet\n",
}
"""The user's own config files outside the repository (``codex-home`` is the demo manifests' CODEX_HOME)."""

USER_REPO_FILES = {
    ".gitignore": ".aider*\n",
    ".aider.conf.yml": "# the team's Aider settings\nauto-commits: false\n",
    ".gemini/settings.json": '{\n\t// team settings\n\t"general": {"vimMode": true}\n}\n',
    ".codex/hooks.json": (
        '{\n  "hooks": {\n    "Stop": [\n      {"hooks": [{"type": "command", "command": "echo mine"}]}\n'
        "    ]\n  }\n}\n"
    ),
}
"""Committed config files of the user's repository that the plugins edit and must give back."""


def clean_env(**extra: str) -> dict[str, str]:
    """This process's environment without what would point uv or Python at the checkout, uv offline."""
    drop = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "ENTIRE_SIM_STATE", "ENTIRE_REPO_ROOT")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith(("UV_", "PIP_"))}
    if os.environ.get("UV_CACHE_DIR"):  # the real cache, which the isolated tests keep by name
        env["UV_CACHE_DIR"] = os.environ["UV_CACHE_DIR"]
    env.update(UV_OFFLINE="1", UV_PYTHON_DOWNLOADS="never", UV_NO_CONFIG="1", NO_COLOR="1")
    env.update(extra)
    return env


def sh(command: str, *, cwd: Path, env: dict[str, str], codes: tuple[int, ...] = (0,)) -> str:
    """Run ``command`` with bash; its stdout. The exit status must be one of ``codes``; no traceback."""
    done = run(command, cwd=cwd, env=env)
    assert done.returncode in codes, f"{command}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def run(command: str, *, cwd: Path, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``command`` with bash and return what happened; a traceback on stderr fails the test."""
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, input=stdin, capture_output=True,
                          text=True, timeout=600, check=False)  # fmt: skip
    assert "Traceback" not in done.stderr, f"{command}:\n{done.stderr}"
    return done


def user_world(tmp_path: Path, repo_files: dict[str, str]) -> tuple[Path, Path]:
    """The user's world: a repository with ``repo_files`` committed, and a home with USER_HOME_FILES.

    Returns ``(world, repo)``; the home files lie under ``world`` as their names say.
    """
    world = tmp_path / "world"
    repo = world / "repo"
    make_repo(repo)
    for name, text in repo_files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "-c", "user.name=u", "-c", "user.email=u@example.invalid", "commit", "-qm", "config"],
                   cwd=repo, check=True)  # fmt: skip
    for name, text in USER_HOME_FILES.items():
        (world / name).parent.mkdir(parents=True, exist_ok=True)
        (world / name).write_text(text, encoding="utf-8")
    return world, repo


def snapshot(files: dict[str, str], base: Path) -> dict[str, bytes]:
    """The bytes of each of ``files`` under ``base``."""
    return {name: (base / name).read_bytes() for name in files}


def turns(repo: Path, agent: str) -> list[dict[str, object]]:
    """The turn checkpoints the simulator recorded for ``agent`` in ``repo``."""
    path = repo / ".entire" / "sim" / "checkpoints.jsonl"
    if not path.exists():
        return []
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in records if r["kind"] == "turn" and r["agent"] == agent]


def hook_calls(repo: Path) -> list[dict[str, object]]:
    """Every ``entire hooks`` call the simulator recorded in ``repo``, with each plugin call it made."""
    path = repo / ".entire" / "sim" / "hook-calls.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def one_turn(replay: Replay, env: dict[str, str], edited: set[str], written: set[Path] | None = None) -> None:
    """The agent's captured session, step by step through the ``entire`` shim, up to its first checkpoint.

    ``edited`` gets the repository files the "agent" changed; ``written``, every file it wrote (its own
    transcripts and logs, which are the agent's, not the plugin's).
    """
    agent = replay.spec["agent"]
    agent_env = {**env, **{k: replay.expand(v) for k, v in replay.spec.get("env", {}).items()}}
    for step in replay.spec["steps"]:
        if "write" in step:
            data = replay.read(step["from"])
            if "lines" in step:
                data = b"".join(data.splitlines(keepends=True)[: step["lines"]])
            target = Path(replay.expand(step["write"]))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            if written is not None:
                written.add(target)
        elif "files" in step:
            for name, content in step["files"].items():
                (replay.repo / name).write_text(content, encoding="utf-8")
                edited.add(name)
        elif "hook" in step:
            done = subprocess.run(
                ["entire", "hooks", agent, step["hook"]], input=replay.read(step["payload"]),
                cwd=replay.repo, env=agent_env, capture_output=True, timeout=120, check=False,
            )  # fmt: skip
            assert done.returncode == 0, f"entire hooks {agent} {step['hook']}: {done.stderr!r}"
            if turns(replay.repo, agent):
                return
    raise AssertionError(f"{agent}: the captured session recorded no turn")


def agent_loads_its_config(repo: Path, agent: str) -> None:
    """What the real agent does to the config our hooks are in when it loads it: Qwen Code 0.23+ adds its
    ``"$version"`` after the last member (seen in the e2e runs); the others leave theirs alone."""
    if agent != "qwen-code":
        return
    settings = repo / ".qwen" / "settings.json"
    text = settings.read_text(encoding="utf-8").rstrip()
    assert text.endswith("}") and '"$version"' not in text, text
    settings.write_text(text[:-1].rstrip() + ',\n  "$version": 4\n}\n', encoding="utf-8")


_ROW = re.compile(r"^\| `([^`]+)`")


def listed_outside(readme: Path) -> list[str]:
    """The paths a README's "What it writes outside the repository" table names, as written there."""
    text = readme.read_text(encoding="utf-8")
    section = text.split("### What it writes outside the repository", 1)[1].split("\n#", 1)[0]
    return [m[1] for line in section.splitlines() if (m := _ROW.match(line))]


def expand_listed(path: str, env: dict[str, str]) -> Path:
    """A listed path as a directory or file prefix in ``env``: variables and ``~`` expanded, cut before
    the first placeholder (``<repository>-<hash>``, ``*``, ``YYYY``)."""
    names = {"~": env["HOME"], "$XDG_DATA_HOME": env["XDG_DATA_HOME"], "$XDG_STATE_HOME": env["XDG_STATE_HOME"],
             "$XDG_CACHE_HOME": env["XDG_CACHE_HOME"], "$TMPDIR": env["TMPDIR"],
             "$CODEX_HOME": env["CODEX_HOME"]}  # fmt: skip
    head = path.split(" ", 1)[0]
    for name, value in names.items():
        if head == name or head.startswith(name + "/"):
            head = value + head[len(name) :]
            break
    else:
        raise AssertionError(f"a listed path that is not under a known root: {path}")
    kept: list[str] = []
    for part in head.split("/"):
        if any(mark in part for mark in ("<", "*", "YYYY", "…")):
            break
        kept.append(part)
    return Path("/".join(kept))
