"""Session subcommands: ids, directories, files, reading and restoring, the resume command."""

from __future__ import annotations

from entire_core import validate
from entire_core.errors import InvalidInput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags


def get_session_id(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The session id of the HookInput on stdin."""
    from entire_core.protocol import HookInput, parse_json

    session_id = agent.get_session_id(parse_json(HookInput, stdin, "hook input"))
    if session_id:
        validate.session_id(session_id)
    return {"session_id": session_id}


def get_session_dir(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The directory that holds this agent's sessions for ``--repo-path``."""
    repo_path = flags.str_("repo-path")
    if repo_path:
        validate.external_path(repo_path, "--repo-path")
    return {"session_dir": agent.get_session_dir(repo_path)}


def resolve_session_file(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The file of ``--session-id`` inside ``--session-dir``."""
    session_dir = validate.external_path(flags.str_("session-dir"), "--session-dir")
    session_id = validate.session_id(flags.str_("session-id"))
    return {"session_file": agent.resolve_session_file(session_dir, session_id)}


def read_session(agent: Agent, flags: Flags, stdin: bytes) -> bytes:
    """The AgentSession the HookInput on stdin points at."""
    from entire_core.protocol import HookInput, parse_json

    session = agent.read_session(parse_json(HookInput, stdin, "hook input"))
    return (session.model_dump_json() + "\n").encode("utf-8")


def write_session(agent: Agent, flags: Flags, stdin: bytes) -> None:
    """Restore the AgentSession on stdin."""
    from entire_core.protocol import AgentSession, parse_json

    agent.write_session(parse_json(AgentSession, stdin, "agent session"))


def format_resume_command(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The command that continues ``--session-id``."""
    session_id = flags.str_("session-id")
    if not session_id:
        raise InvalidInput("--session-id is required")
    return {"command": agent.format_resume_command(validate.session_id(session_id))}
