"""Session files for resume and restore, and the chats of a session's subagents."""

from __future__ import annotations

import os

from entire_agent_google_gemini import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from entire_core.agent import Agent
    from entire_core.protocol import AgentSession

    from entire_agent_google_gemini.transcript import Chat


def session_file(chats: str, session_id: str) -> str:
    """The chat file of ``session_id`` in ``chats``: the existing one, else a new name Gemini lists.

    ``gemini --resume <id>`` reads the header of every ``session-*.json(l)`` file, so the name only has
    to keep Gemini's prefix; it carries the whole id (the Entire CLI looks for it in the name).
    """
    from entire_agent_google_gemini import sessionfile, transcript

    for candidate in sessionfile.session_candidates(chats, session_id):
        try:
            with open(candidate, "rb") as f:
                chat = transcript.parse(f.read())
        except OSError:
            continue
        if chat.metadata().get("sessionId") == session_id:  # a resume may $set it anew
            return candidate
    from datetime import UTC, datetime

    minute = datetime.now(UTC).strftime("%Y-%m-%dT%H-%M")
    return os.path.join(chats, f"{paths.SESSION_PREFIX}{minute}-{session_id}.jsonl")


def restore_native(agent: Agent, session: AgentSession, gemini_home: str) -> str:
    """Write a checkpoint's chat bytes where ``gemini --resume <id>`` finds them; return that file.

    The file is the session's existing chat in Gemini's chats directory for the repository, else a new
    name Gemini lists. When Gemini has never seen the project, the slug directory gets the
    ``.project_root`` marker Gemini itself writes, so its next start adopts that directory instead of
    claiming another.
    """
    from entire_core import fsutil

    repo = session.repo_path or agent.repo_root
    project_tmp, owned = paths.project_dir(gemini_home, repo)
    chats = os.path.join(project_tmp, "chats")
    target = _viewed_native(agent, session, chats) or session_file(chats, session.session_id)
    fsutil.atomic_write(target, session.native_data or b"")
    if not owned:
        paths.claim(project_tmp, repo)
    return target


def _viewed_native(agent: Agent, session: AgentSession, chats: str) -> str | None:
    """The chat file this machine's view of the session followed, when it is in ``chats``.

    A session Gemini's clean-up deleted goes back under its own name, as Gemini wrote it.
    """
    from entire_core import followed

    native = followed.native_file(agent, session, chats)
    if native is None or not os.path.basename(native).startswith(paths.SESSION_PREFIX):
        return None
    same = os.path.normcase(os.path.dirname(native)) == os.path.normcase(os.path.abspath(chats))
    return native if same else None


def subagent_chats(subagents_dir: str, agent_ids: Iterable[str]) -> list[Chat]:
    """The chats of the given subagents, looked up next to ``subagents_dir``.

    The Entire CLI passes ``<chats>/<session id>/subagents`` (Claude Code's layout); Gemini writes
    ``<chats>/<session id>/<agent id>.jsonl``, the parent of that directory. An empty
    ``subagents_dir`` means no subagents.
    """
    from entire_agent_google_gemini import transcript

    if not subagents_dir:
        return []
    base = os.path.normpath(subagents_dir)
    directories = [base]
    if os.path.basename(base) == "subagents":
        directories.append(os.path.dirname(base))
    found: list[Chat] = []
    for agent_id in agent_ids:
        for directory in directories:
            path = next(
                (
                    p
                    for n in (f"{agent_id}.jsonl", f"agent-{agent_id}.jsonl")
                    if os.path.isfile(p := os.path.join(directory, n))
                ),
                None,
            )
            if path is not None:
                with open(path, "rb") as f:
                    found.append(transcript.parse(f.read()))
                break
    return found


def legacy_subagent_chats(subagents_dir: str, tasks: Iterable[str]) -> list[Chat]:
    """The chats of subagents Gemini before 0.39 ran, found next to ``subagents_dir`` by their first prompt.

    Those chats are ``<chats>/<session id>/<random id>.json`` with ``kind: "subagent"``; nothing else in
    the main chat names them. Each chat answers one task at most.
    """
    from entire_agent_google_gemini import transcript

    wanted = list(tasks)
    if not subagents_dir or not wanted:
        return []
    base = os.path.normpath(subagents_dir)
    directory = os.path.dirname(base) if os.path.basename(base) == "subagents" else base
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".json"))
    except OSError:
        return []
    candidates: list[tuple[str, Chat]] = []
    for name in names:
        try:
            with open(os.path.join(directory, name), "rb") as f:
                chat = transcript.parse(f.read())
        except OSError:
            continue
        first = transcript.prompts(chat.messages())[:1]
        if chat.metadata().get("kind") == "subagent" and first:
            candidates.append((first[0], chat))
    found: list[Chat] = []
    for task in wanted:
        index = next((i for i, (prompt, _) in enumerate(candidates) if prompt == task), None)
        if index is not None:
            found.append(candidates.pop(index)[1])
    return found


def subagents_of(subagents_dir: str, messages: list[dict[str, Any]]) -> list[Chat]:
    """The chats of every subagent the main agent ran in ``messages``: ``invoke_agent``'s, and before 0.39
    those run as a tool named after the agent."""
    from entire_agent_google_gemini import transcript

    return subagent_chats(subagents_dir, transcript.subagent_ids(messages)) + legacy_subagent_chats(
        subagents_dir, transcript.legacy_subagent_tasks(messages)
    )
