"""The agent's own file a session's view followed: where a restored session goes back on this machine.

A view (``entire_core.views``) records which native file it follows. Restoring a checkpoint on the
machine that recorded it writes the agent's bytes back to that very file rather than to a name made
from the session id: the name may hold what the id does not (Codex's creation second), and after the
agent's own clean-up deleted the file, ``--resume`` still looks for it under its old name (Gemini).
Apart from ``views``, whose workings this does not need, so that an agent's ``restore_native`` asks
one question.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent
    from entire_core.protocol import AgentSession


def native_file(agent: Agent, session: AgentSession, within: str) -> str | None:
    """The native file this machine's view of ``session`` followed, when it lies inside ``within``.

    The view is the one ``write-session`` restores (``sessions.restore_target``). None for an agent
    without views, when this machine has no view of the session or it names no native file, and when
    that file is outside ``within`` (the agent's own tree here): then the agent names the file itself.
    The file need not exist any more. The agent checks the name is one of its own session files.
    """
    if agent.view_format() is None:
        return None
    from entire_core import sessions, validate, views
    from entire_core.errors import InvalidInput

    view = sessions.restore_target(agent, session)
    native = views.native_of(agent, view)
    if native == view:
        return None
    try:
        validate.path_within(within, native)
    except InvalidInput:
        return None
    return native
