"""Default session storage: where sessions live, reading them, and restoring them for resume."""

from __future__ import annotations

import os

from entire_core import MAX_TRANSCRIPT_BYTES, validate
from entire_core.errors import AgentError, InvalidInput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from entire_core.protocol import AgentSession, HookInput

    class SessionOwner(Protocol):
        """What session storage needs of its agent (``entire_core.agent.Agent`` has it all)."""

        @property
        def name(self) -> str: ...
        @property
        def repo_root(self) -> str: ...
        def get_session_dir(self, repo_path: str) -> str: ...
        def resolve_session_file(self, session_dir: str, session_id: str) -> str: ...


_MAX_NATIVE_DATA = MAX_TRANSCRIPT_BYTES * 3 // 4
"""Base64 grows data by 4/3 and the CLI reads at most 10 MiB of our stdout."""


def default_session_dir(repo_path: str, agent_name: str) -> str:
    """``<repo>/.entire/tmp/entire-agent-<name>``: inside Entire's git-ignored scratch directory."""
    from entire_core import scratch

    return scratch.directory(repo_path, agent_name)


def read_session(agent: SessionOwner, hook_input: HookInput) -> AgentSession:
    """The session a hook input names, with its transcript bytes when the file exists."""
    from entire_core.protocol import AgentSession

    session_id = hook_input.session_id
    if session_id:
        validate.session_id(session_id)
    ref = hook_input.session_ref
    if ref:
        validate.external_path(ref, "session_ref")
    elif session_id:
        ref = agent.resolve_session_file(agent.get_session_dir(agent.repo_root), session_id)
    else:
        raise InvalidInput("read-session needs a session_id or a session_ref")
    data: bytes | None = None
    try:
        with open(ref, "rb") as f:
            if os.fstat(f.fileno()).st_size > _MAX_NATIVE_DATA:
                raise AgentError(f"session file {ref} is too large to return within the CLI's 10 MiB limit")
            data = f.read()
    except FileNotFoundError:
        data = None
    return AgentSession(
        session_id=session_id,
        agent_name=agent.name,
        repo_path=agent.repo_root,
        session_ref=ref,
        native_data=data,
    )


def restore_target(agent: SessionOwner, session: AgentSession) -> str:
    """The file ``write-session`` may write: always inside the agent's session directory.

    The CLI sends the transcript path it recorded, or one the plugin resolved. A relative reference is
    a key inside the session directory. An absolute one inside it is used as given (echoed, never
    resolved). An absolute one outside it is refused when the CLI names the repository (its own
    pre-flight refuses that too), and otherwise (a rewind that recorded a path on another machine)
    replaced by where this machine's agent keeps the session: nothing is written outside the base.
    """
    session_id = validate.session_id(session.session_id)
    base = agent.get_session_dir(session.repo_path or agent.repo_root)
    ref = session.session_ref
    if not ref:
        return agent.resolve_session_file(base, session_id)
    validate.external_path(ref, "session_ref")
    if not os.path.isabs(ref):
        return validate.path_within(base, ref)
    try:
        validate.path_within(base, ref)
    except InvalidInput:
        if session.repo_path:
            raise InvalidInput(f"session_ref {ref!r} is outside the session directory {base!r}") from None
        return agent.resolve_session_file(base, session_id)
    return ref


def write_session(agent: SessionOwner, session: AgentSession) -> None:
    """Write the session's native data verbatim and atomically where ``restore_target`` says."""
    target = restore_target(agent, session)
    if session.native_data is None:
        return
    from entire_core import fsutil

    fsutil.atomic_write(target, session.native_data)
