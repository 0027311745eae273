"""Where Gemini keeps a project's chats, and restoring a session where `gemini --resume` finds it."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path

import pytest
from entire_agent_google_gemini import paths
from entire_agent_google_gemini.agent import GeminiAgent
from entire_core.errors import InvalidInput
from entire_core.protocol import AgentSession
from gemini_fixtures import RUN1_CHAT


def register(home: Path, root: Path, slug: str, *, marker: str | None = None) -> Path:
    gemini = home / ".gemini"
    gemini.mkdir(exist_ok=True)
    (gemini / "projects.json").write_text(json.dumps({"projects": {str(root): slug}}))
    project = gemini / "tmp" / slug
    project.mkdir(parents=True)
    (project / ".project_root").write_text(marker if marker is not None else str(root))
    return project


def test_session_dir_comes_from_projects_json(agent: GeminiAgent, home: Path, repo: Path) -> None:
    project = register(home, repo, "repo-2")
    assert agent.chats_dir(str(repo)) == str(project / "chats")


def test_a_slug_owned_by_another_project_is_not_ours(agent: GeminiAgent, home: Path, repo: Path) -> None:
    register(home, repo, "repo", marker="/somewhere/else/repo")
    # Gemini would claim the next free slug for this project
    assert agent.chats_dir(str(repo)) == str(home / ".gemini/tmp/repo-1/chats")


def test_legacy_sha256_directory(agent: GeminiAgent, home: Path, repo: Path) -> None:
    legacy = home / ".gemini/tmp" / hashlib.sha256(str(repo).encode()).hexdigest()
    legacy.mkdir(parents=True)
    assert agent.chats_dir(str(repo)) == str(legacy / "chats")


def test_project_root_marker_without_registry(agent: GeminiAgent, home: Path, repo: Path) -> None:
    marked = home / ".gemini/tmp/my-checkout"
    marked.mkdir(parents=True)
    (marked / ".project_root").write_text(str(repo) + "\n")
    assert agent.chats_dir(str(repo)) == str(marked / "chats")


def test_gemini_cli_home_relocates_everything(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "gemini-home"
    agent = GeminiAgent(env={"ENTIRE_REPO_ROOT": str(repo), "HOME": str(tmp_path / "home"),
                             "GEMINI_CLI_HOME": str(elsewhere)})  # fmt: skip
    assert agent.chats_dir("") == str(elsewhere / ".gemini/tmp/repo/chats")
    relative = GeminiAgent(
        env={"ENTIRE_REPO_ROOT": str(repo), "HOME": str(tmp_path / "home"), "GEMINI_CLI_HOME": "x"}
    )
    assert relative.chats_dir("") == str(tmp_path / "home/.gemini/tmp/repo/chats")


def test_slugs_follow_geminis_rules() -> None:
    assert paths.slugify("My Project (v2)") == "my-project-v2"
    assert paths.slugify("--Ünïcode--") == "n-code"
    assert paths.slugify("日本") == "project"


def test_native_session_file_prefers_the_existing_chat(agent: GeminiAgent, repo: Path) -> None:
    chats = Path(agent.chats_dir())
    chats.mkdir(parents=True)
    (chats / RUN1_CHAT.name).write_bytes(RUN1_CHAT.read_bytes())
    sid = "e7a78f69-f494-40ba-bbfa-6dcf2126e6e0"
    assert agent.native_session_file(sid) == str(chats / RUN1_CHAT.name)
    other = "e7a78f69-0000-4000-8000-000000000000"  # same 8-character prefix, another session
    name = os.path.basename(agent.native_session_file(other))
    assert name.startswith("session-") and name.endswith(f"-{other}.jsonl")
    with pytest.raises(InvalidInput):
        agent.native_session_file("../evil")


def test_the_cli_records_views_outside_the_repository(agent: GeminiAgent, home: Path, repo: Path) -> None:
    views = agent.get_session_dir(str(repo))
    assert views.startswith(str(home / ".local/state/entire-agent-google-gemini/views/"))
    sid = "e7a78f69-f494-40ba-bbfa-6dcf2126e6e0"
    assert agent.resolve_session_file(views, sid) == os.path.join(views, f"{sid}.jsonl")


def test_restore_writes_the_bytes_and_lets_gemini_adopt_the_directory(
    agent: GeminiAgent, home: Path, repo: Path
) -> None:
    views = agent.get_session_dir(str(repo))
    sid = "e7a78f69-f494-40ba-bbfa-6dcf2126e6e0"
    target = agent.resolve_session_file(views, sid)
    data = RUN1_CHAT.read_bytes()
    agent.write_session(AgentSession(session_id=sid, agent_name="google-gemini", repo_path=str(repo),
                                     session_ref=target, native_data=data))  # fmt: skip
    assert Path(target).read_bytes() == data  # the view the CLI recorded
    chat = Path(agent.native_session_file(sid))
    assert chat.parent == home / ".gemini/tmp/repo/chats" and chat.read_bytes() == data  # where Gemini looks
    assert (home / ".gemini/tmp/repo/.project_root").read_text() == str(repo)
    # Gemini finds the slug by that marker, and so do we
    assert paths.marked_slug(str(home / ".gemini"), str(repo)) == "repo"
    assert agent.format_resume_command(sid) == f"gemini --resume {sid}"
    # the next hook follows the restored chat incrementally: the view's positions go on from it
    extra = b'{"$set":{"lastUpdated":"later"}}\n'
    with chat.open("ab") as f:
        f.write(extra)
    assert agent.get_transcript_position(target) == 24  # core's view of it is refreshed by the subcommand


def test_restore_puts_a_chat_gemini_deleted_back_under_its_own_name(
    agent: GeminiAgent, home: Path, repo: Path
) -> None:
    """The chat this machine's view followed, not a new name: Gemini's clean-up deleted it, --resume lists it."""
    from entire_core import views
    from entire_core.types import EventType

    sid = "e7a78f69-f494-40ba-bbfa-6dcf2126e6e0"
    data = RUN1_CHAT.read_bytes()
    chats = Path(agent.chats_dir())
    chats.mkdir(parents=True)
    original = chats / f"{paths.SESSION_PREFIX}2025-01-01T00-00-{sid[:8]}.jsonl"  # not this minute's name
    original.write_bytes(data)
    view = views.attach(agent, sid, str(original), EventType.TURN_END)
    original.unlink()
    agent.write_session(AgentSession(session_id=sid, agent_name="google-gemini", repo_path=str(repo),
                                     session_ref=view, native_data=data))  # fmt: skip
    assert original.read_bytes() == data and os.listdir(chats) == [original.name]
    assert agent.native_session_file(sid) == str(original)


def test_restore_as_the_cli_sends_it(agent: GeminiAgent, repo: Path, home: Path) -> None:
    """Null file lists, Go's zero time, base64 native data: through the real subcommand."""
    from entire_core.commands import write_session

    views = agent.get_session_dir(str(repo))
    sid = "e7a78f69-f494-40ba-bbfa-6dcf2126e6e0"
    target = os.path.join(views, f"{sid}.jsonl")
    stdin = json.dumps({"session_id": sid, "agent_name": "google-gemini",
                        "repo_path": str(repo), "session_ref": target, "start_time": "0001-01-01T00:00:00Z",
                        "native_data": base64.b64encode(RUN1_CHAT.read_bytes()).decode(),
                        "modified_files": None, "new_files": None, "deleted_files": None}).encode()  # fmt: skip
    write_session(agent, None, stdin)  # pyright: ignore[reportArgumentType]
    assert Path(target).read_bytes() == RUN1_CHAT.read_bytes()
    assert Path(agent.native_session_file(sid)).read_bytes() == RUN1_CHAT.read_bytes()


def test_modified_files_are_repo_relative_once_each(agent: GeminiAgent, tmp_path: Path) -> None:
    root = Path(agent.repo_root)
    (root / "src").mkdir(parents=True)
    link = tmp_path / "link"
    link.symlink_to(root)
    files = [str(root / "a.txt"), str(link / "src/b.txt"), "./c.txt", str(root / "a.txt"), "/elsewhere/d.txt",
             "../e.txt"]  # fmt: skip
    calls = [{"name": "write_file", "args": {"file_path": f}, "status": "success"} for f in files]
    chat = {"id": "g1", "type": "gemini", "content": "", "toolCalls": calls}
    data = (json.dumps({"sessionId": "s", "projectHash": "h"}) + "\n" + json.dumps(chat) + "\n").encode()
    assert agent.extract_all_modified_files(data, 0, "") == ["a.txt", "src/b.txt", "c.txt", "/elsewhere/d.txt",
                                                             "../e.txt"]  # fmt: skip
