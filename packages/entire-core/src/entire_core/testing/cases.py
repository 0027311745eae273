"""What the contract kit runs agents over: recorded cases, hostile ids, built-in names, tricky config files.

An agent's tests hand its own ``TranscriptCase``s and ``HookCase``s to ``AgentContract``; the rest is
the kit's own data, the same for every agent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from entire_core.testing.hostile import CANARY_PAYLOADS

BUILTIN_NAMES = frozenset(
    [
        "claude-code",
        "codex",
        "gemini",
        "gemini-cli",
        "cursor",
        "opencode",
        "copilot-cli",
        "factoryai-droid",
        "pi",
    ]
)
BUILTIN_TYPES = frozenset(
    [
        "Claude Code",
        "Codex",
        "Gemini CLI",
        "Gemini",
        "Cursor",
        "OpenCode",
        "Copilot CLI",
        "Factory AI Droid",
        "Pi",
    ]
)
HOSTILE_IDS = [
    "../x",
    "a/b",
    "a\\b",
    "..",
    ".",
    "C:evil",
    "a:b",
    "*",
    "a?b",
    "a[b",
    "x\0y",
    "",
    " ",
    "CON",
    "nul.txt",
    # shell metacharacters: the id ends up in the resume command a user pastes into a terminal; each
    # injection only creates the test's canary file if a shell ever runs it
    *CANARY_PAYLOADS,
    "a'b",
    'a"b',
    "$(id)",
    "`id`",
    "a\nb",
    "a b",
    "a&b",
    "a|b",
    "%PATH%",
    "-rf",
    "~root",
]
"""Session ids every subcommand that takes one must refuse (the CLI refuses them, or no agent of ours makes them)."""


class TranscriptCase:
    """A recorded transcript with exact expectations for the analyzer subcommands."""

    def __init__(
        self,
        path: Path,
        *,
        offset: int = 0,
        position: int | None = None,
        modified_files: list[str] | None = None,
        prompts: list[str] | None = None,
        summary: str | None = None,
        tokens: dict[str, Any] | None = None,
        all_modified_files: list[str] | None = None,
        subagents_dir: str = "",
        total_tokens: dict[str, Any] | None = None,
    ) -> None:
        self.path = path
        self.offset = offset
        self.position = position
        self.modified_files = modified_files
        self.prompts = prompts
        self.summary = summary
        self.tokens = tokens
        self.all_modified_files = all_modified_files
        self.subagents_dir = subagents_dir
        self.total_tokens = total_tokens

    def __repr__(self) -> str:
        return f"TranscriptCase({self.path.name}, offset={self.offset})"


class UsageCase:
    """Model calls with cache hits, and cache writes and reasoning where the backend has them, and what
    ``calculate-tokens`` must answer for them in Entire's units (``entire_core.types.TokenUsage``).

    ``transcript`` holds the calls as the agent records them; ``prompt_tokens`` is the prompt size the
    backend reported (summed over the calls), which ``input + cache_read + cache_creation`` must equal;
    ``output_tokens`` every generated token once, the ``reasoning_tokens`` among them included.
    """

    def __init__(
        self,
        transcript: bytes,
        *,
        prompt_tokens: int,
        cache_read_tokens: int,
        cache_creation_tokens: int,
        output_tokens: int,
        reasoning_tokens: int,
        api_calls: int = 1,
        offset: int = 0,
        note: str = "",
    ) -> None:
        self.transcript = transcript
        self.prompt_tokens = prompt_tokens
        self.cache_read_tokens = cache_read_tokens
        self.cache_creation_tokens = cache_creation_tokens
        self.output_tokens = output_tokens
        self.reasoning_tokens = reasoning_tokens
        self.api_calls = api_calls
        self.offset = offset
        self.note = note
        """Which backend and what it reported, for the failure message."""

    def __repr__(self) -> str:
        return f"UsageCase({self.note or 'unnamed'})"


class HookCase:
    """A recorded native hook payload and the exact event (or None) ``parse-hook`` must answer."""

    def __init__(self, hook: str, payload: bytes | Path, expected: dict[str, Any] | None) -> None:
        self.hook = hook
        self.payload = payload.read_bytes() if isinstance(payload, Path) else payload
        self.expected = expected
        self.name = payload.name if isinstance(payload, Path) else hook

    def __repr__(self) -> str:
        return f"HookCase({self.hook}, {self.name})"


USER_HANDLER = '{"hooks": [{"type": "command", "command": "echo mine"}]}'
"""A group of the user's own, which install and uninstall must leave exactly as it was."""

ORIGINALS: dict[str, bytes | None] = {
    "missing": None,
    "empty": b"",
    "only blank lines": b"\n  \n\n",
}
"""The tricky originals of every agent's hook config, whatever its syntax: no file, and a file with nothing in
it, which must come back exactly so (0 bytes, not ``{}``)."""

JSON_ORIGINALS: dict[str, bytes | None] = {
    **ORIGINALS,
    "empty object": b"{}\n",
    "comment only": b"// my own settings come here\n",
    "only our container": b'{\n  "hooks": {}\n}\n',
    "the user's entries in our container": b'{\n  "hooks": {\n    "{event}": ['
    + USER_HANDLER.encode()
    + b"]\n  }\n}\n",
    "CRLF": b'{\r\n  "hooks": {\r\n    "{event}": [' + USER_HANDLER.encode() + b"]\r\n  }\r\n}\r\n",
    "BOM": b'\xef\xbb\xbf{"hooks": {"{event}": [' + USER_HANDLER.encode() + b"]}}\n",
    "tabs": b'{\n\t"hooks": {\n\t\t"{event}": [' + USER_HANDLER.encode() + b"]\n\t}\n}\n",
}
"""The tricky originals of a JSON hooks file (``hook_config_syntax = "json"``); ``{event}`` is replaced by
one of the events our install writes. A file the agent refuses (a comment where JSON has none) must be
left as it was, like every other."""


class DeliveryCase:
    """A ``parse-hook`` call that answers an event from the agent's queue (``entire_core.eventqueue``), for
    the kit's test of the deliverer's acknowledgement: ``hook``, its ``payload``, and the ``files`` it reads
    (path -> bytes). ``{repo}`` and ``{home}`` in the payload and in the files' paths and contents are the
    sandbox's repository and home."""

    def __init__(self, hook: str, payload: bytes, files: dict[str, bytes] | None = None) -> None:
        self.hook = hook
        self.payload = payload
        self.files = files or {}

    def __repr__(self) -> str:
        return f"DeliveryCase({self.hook!r})"
