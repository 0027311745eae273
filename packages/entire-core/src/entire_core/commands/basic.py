"""``info``, ``detect``, ``generate-text`` and ``write-hook-response``."""

from __future__ import annotations

from entire_core import PROTOCOL_VERSION
from entire_core.agent import HookSupport

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent, HookResponseWriter, TextGenerator
    from entire_core.cli_flags import Flags


def info(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Everything the CLI needs to register the agent, computed from its class."""
    cls = type(agent)
    return {
        "protocol_version": PROTOCOL_VERSION,
        "name": cls.name,
        "type": cls.type,
        "description": cls.description,
        "is_preview": cls.is_preview,
        "protected_dirs": list(cls.protected_dirs),
        "protected_files": list(cls.protected_files),
        "hook_names": list(agent.hook_names) if isinstance(agent, HookSupport) else [],
        "capabilities": cls.capabilities(),
        "caller_env_vars": list(cls.caller_env_vars),
    }


def detect(agent: Agent, flags: Flags, stdin: bytes) -> dict[str, object]:
    """Whether the agent is in use in the repository."""
    return {"present": bool(agent.detect())}


def generate_text(agent: TextGenerator, flags: Flags, stdin: bytes) -> dict[str, object]:
    """The agent's answer to the prompt on stdin."""
    prompt = stdin.decode("utf-8", errors="replace")
    if not prompt.strip():
        from entire_core.errors import InvalidInput

        raise InvalidInput("generate-text needs the prompt on stdin")
    return {"text": agent.generate_text(prompt, flags.str_("model"))}


def write_hook_response(agent: HookResponseWriter, flags: Flags, stdin: bytes) -> bytes:
    """The message in the agent's own hook-output format, as raw bytes."""
    return agent.write_hook_response(flags.str_("message"))
