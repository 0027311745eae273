"""``parse-hook``, ``install-hooks``, ``uninstall-hooks`` and ``are-hooks-installed``."""

from __future__ import annotations

from entire_core import validate
from entire_core.agent import HookSupport

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent
    from entire_core.cli_flags import Flags

NO_EVENT = b"null\n"
"""The CLI needs the literal ``null`` for "no event"; empty stdout is an error there."""


def decode_payload(stdin: bytes) -> object:
    """The hook payload as JSON, or None when stdin is empty or not JSON (never an error)."""
    text = stdin.removeprefix(b"\xef\xbb\xbf").strip()
    if not text:
        return None
    from entire_core import _json

    try:
        return _json.loads(text)
    except (ValueError, RecursionError):
        return None


def parse_hook(agent: Agent, flags: Flags, stdin: bytes) -> bytes | dict[str, object]:
    """Map the hook payload to an event, or ``null`` when the hook means nothing to Entire.

    ``--hook`` is required: without it there is no hook to parse (a usage error). A hook name that is
    not in ``info.hook_names`` answers ``null``, "no event", for every agent: the CLI only calls
    ``parse-hook`` with the names ``info`` declared, so an unknown one comes from a hook config
    written by another version of the plugin, and failing would fail the user's agent hook.
    """
    assert isinstance(agent, HookSupport)
    hook = flags.str_("hook")
    if "hook" not in flags.given or not hook:
        from entire_core.errors import UsageError

        raise UsageError("parse-hook needs --hook <name>, one of: " + ", ".join(agent.hook_names))
    if hook not in agent.hook_names:
        return NO_EVENT
    event = agent.parse_hook(hook, decode_payload(stdin))
    if event is None:
        return NO_EVENT
    if event.session_id:
        validate.session_id(event.session_id)
    validate.tool_id(event.tool_use_id, "tool_use_id")
    validate.tool_id(event.subagent_id, "subagent_id")
    if event.session_ref and event.session_id and event.type in _SESSION_EVENTS and agent.view_format():
        from entire_core import views

        if not views.is_view_path(agent, event.session_ref):
            event.session_ref = views.attach(agent, event.session_id, event.session_ref, event.type)
    return event.to_wire()


_SESSION_EVENTS = frozenset([1, 2, 3, 4, 5])
"""SessionStart to SessionEnd: events on the session's own transcript, which the CLI records (not a subagent's)."""


def install_hooks(agent: HookSupport, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Install our hooks; ``--local-dev`` is accepted and ignored, as newer CLIs never send it."""
    return {"hooks_installed": int(agent.install_hooks(force=flags.bool_("force")))}


def uninstall_hooks(agent: HookSupport, flags: Flags, stdin: bytes) -> None:
    """Remove our hooks."""
    agent.uninstall_hooks()


def are_hooks_installed(agent: HookSupport, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Whether our hooks are installed."""
    return {"installed": bool(agent.are_hooks_installed())}
