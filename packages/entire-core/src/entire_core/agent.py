"""The ``Agent`` base class and one mixin per protocol capability.

An agent package subclasses ``Agent`` and the mixins for what it supports; ``info.capabilities`` is
computed from the mixins, so a declaration can never drift from what is implemented. The base class
carries the defaults of every always-required subcommand (session storage, transcript reading,
chunking, resume command). This module is imported on every call, so it imports nothing heavy.
"""

from __future__ import annotations

import os

from entire_core import MAX_TRANSCRIPT_BYTES as MAX_TRANSCRIPT_BYTES  # where agents have imported it from

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, ClassVar

    from entire_core.cli_flags import Flags
    from entire_core.protocol import AgentSession, HookInput
    from entire_core.scratch import Scratch
    from entire_core.types import CompactTranscript, Event, TokenUsage
    from entire_core.views import ViewFormat


class Command:
    """A human command an agent adds beside the protocol subcommands (``doctor``, ``trust``, ...).

    ``flags`` maps each flag the command accepts (``"--project"``, ``"--aider PATH"``) to one line of
    help; ``<command> --help`` and the plugin's ``--help`` print them, so declare every flag here. A
    flag spelled with a value takes a string, one without is a bool; ``kinds`` names the int ones
    (``{"aider-pid": INT}``). Core parses the command line against them (``parse``) and calls the
    target with the parsed ``Flags``: no command reads its raw arguments. ``args`` (what follows the
    flags in the usage line, such as ``"[--] [aider arguments...]"``) lets the command take more than
    its flags; they are ``Flags.args``.
    """

    __slots__ = ("_kinds", "args", "flags", "summary", "target")

    def __init__(
        self,
        target: str,
        summary: str,
        *,
        flags: Mapping[str, str] | None = None,
        args: str = "",
        kinds: Mapping[str, str] | None = None,
    ) -> None:
        self.target = target  # "package.module:function"; the function takes (agent, flags: Flags) -> int
        self.summary = summary
        self.flags: Mapping[str, str] = flags or {}
        self.args = args
        self._kinds: Mapping[str, str] = kinds or {}
        unknown = set(self._kinds) - {flag.split()[0].lstrip("-") for flag in self.flags}
        if unknown:
            raise ValueError(f"kinds of flags that are not declared: {sorted(unknown)}")

    @property
    def kinds(self) -> dict[str, str]:
        """Each flag's name and kind, as ``cli_flags.parse_flags`` takes them."""
        # Imported here: an agent's module declares its commands, and a hook needs none of this.
        from entire_core.cli_flags import BOOL, STR

        names = {flag.split()[0].lstrip("-"): STR if " " in flag else BOOL for flag in self.flags}
        return {**names, **self._kinds}

    def parse(self, args: Sequence[str], program: str = "") -> Flags:
        """``args`` parsed against the declared flags (``cli_flags.parse_flags``); usage errors name ``program``."""
        from entire_core.cli_flags import parse_flags

        return parse_flags(args, self.kinds, program=program, rest=bool(self.args))

    def usage(self, program: str, name: str) -> str:
        """The ``--help`` text of this command."""
        synopsis = " ".join(
            [f"{program} {name}", *(f"[{f}]" for f in self.flags), *([self.args] if self.args else [])]
        )
        lines = [f"usage: {synopsis}", "", self.summary]
        if self.flags:
            lines.append("")
            lines += [f"  {flag:<26} {text}" for flag, text in self.flags.items()]
        return "\n".join(lines) + "\n"


DELIVERED = Command(
    "entire_core.eventqueue:delivered",
    "(run by our deliverer after each `entire hooks` call) the event it delivered leaves, or is kept",
    flags={
        "--delivery TOKEN": "the deliverer's process token the call ran with",
        "--status N": "the exit status of `entire hooks`",
    },
    kinds={"status": "int"},  # cli_flags.INT, which only a command's parse needs imported
)
"""Core's ``delivered`` command (``entire_core.eventqueue.delivered``), for every agent whose hooks queue
events (``entire_core.eventqueue``) that a deliverer of ours acknowledges: such an agent lists it in its
``commands`` as ``"delivered"``, and the contract kit then holds it to the acknowledgement."""


class Agent:
    """Base of every plugin: ``info`` metadata plus the defaults of the always-required subcommands."""

    # No ClassVar on ``name`` and ``session_file_suffix``: what views and sessions need of an agent is a
    # protocol (``views.ViewOwner``, ``sessions.SessionOwner``), which a subclass's ``name = ...`` matches
    # only as a plain attribute.
    name: str
    """Registry name; the console script is ``entire-agent-<name>``. Never a built-in's name."""
    type: ClassVar[str]
    """Display name and the agent type key in checkpoint metadata. Never a built-in's type."""
    description: ClassVar[str]
    version: ClassVar[str] = "0"
    is_preview: ClassVar[bool] = False
    protected_dirs: ClassVar[tuple[str, ...]] = ()
    protected_files: ClassVar[tuple[str, ...]] = ()
    caller_env_vars: ClassVar[tuple[str, ...]] = ()
    session_file_suffix: str = ".json"
    commands: ClassVar[Mapping[str, Command]] = {}

    def __init__(self, env: Mapping[str, str] | None = None, cwd: str | None = None) -> None:
        self.env: Mapping[str, str] = os.environ if env is None else env
        self.cwd = cwd if cwd is not None else os.getcwd()

    @classmethod
    def capabilities(cls) -> dict[str, bool]:
        """The ``info.capabilities`` object, derived from the mixins this class inherits."""
        caps = {mixin.capability: issubclass(cls, mixin) for mixin in CAPABILITY_MIXINS}
        caps["streaming_text_generator"] = False  # the CLI has no plugin method for it
        return caps

    @classmethod
    def has(cls, capability: str) -> bool:
        """True if the agent implements ``capability`` (a wire name such as ``"hooks"``)."""
        return any(m.capability == capability and issubclass(cls, m) for m in CAPABILITY_MIXINS)

    @property
    def repo_root(self) -> str:
        """``ENTIRE_REPO_ROOT`` as given, else the enclosing git worktree of the cwd, else the cwd."""
        root = self.env.get("ENTIRE_REPO_ROOT", "")
        if root:
            return root
        here = self.cwd
        while True:
            if os.path.exists(os.path.join(here, ".git")):
                return here
            parent = os.path.dirname(here)
            if parent == here:
                return self.cwd
            here = parent

    def scratch(self) -> Scratch:
        """This agent's scratch state in its repository (``entire_core.scratch``)."""
        from entire_core.scratch import Scratch

        return Scratch(self.repo_root, self.name)

    def home(self) -> str:
        """The user's home directory as this process's environment gives it (``USERPROFILE`` on Windows)."""
        from entire_core.paths import home_dir

        return home_dir(self.env)

    # -- always-required subcommands ---------------------------------------------------------------

    def detect(self) -> bool:
        """Whether the agent is in use in this repository (``detect``)."""
        return False

    def get_session_id(self, hook_input: HookInput) -> str:
        """The session id of a hook input (``get-session-id``); legacy, unused by new CLIs."""
        return hook_input.session_id

    def view_format(self) -> ViewFormat | None:
        """How this agent's transcripts are viewed within the CLI's size limit (``entire_core.views``).

        None (the default) hands the CLI the agent's files as they are.
        """
        return None

    def token_counts(self, transcript: bytes, offset: int) -> tuple[TokenUsage, TokenUsage | None] | None:
        """What ``calculate-tokens`` and ``calculate-total-tokens`` count of ``transcript`` from the agent's
        own ``offset`` (the second None for an agent that counts no subagents); None for one that counts no
        tokens. A view's re-base asks it, to keep what a count from the CLI's stored start would lose.
        """
        if not isinstance(self, TokenCalculator):
            return None
        tokens = self.calculate_tokens(transcript, offset)
        if not isinstance(self, SubagentAwareExtractor):
            return tokens, None
        return tokens, self.calculate_total_tokens(transcript, offset, "")

    def get_session_dir(self, repo_path: str) -> str:
        """Where the CLI's recorded transcripts live for a repository (``get-session-dir``).

        With a view format that is the repository's view directory, outside the repository: the CLI
        records the view as the transcript path, and restores only inside this directory.
        """
        if self.view_format() is not None:
            from entire_core import views

            return views.views_dir(self.env, self.name, repo_path or self.repo_root)
        from entire_core import sessions

        return sessions.default_session_dir(repo_path or self.repo_root, self.name)

    def resolve_session_file(self, session_dir: str, session_id: str) -> str:
        """The file that holds ``session_id`` inside ``session_dir`` (``resolve-session-file``)."""
        from entire_core import validate

        return os.path.join(session_dir, validate.session_id(session_id) + self.session_file_suffix)

    def read_session(self, hook_input: HookInput) -> AgentSession:
        """The stored session a hook input points at (``read-session``)."""
        from entire_core import sessions

        return sessions.read_session(self, hook_input)

    def write_session(self, session: AgentSession) -> None:
        """Restore a session's native data where the agent will find it (``write-session``).

        With a view format, the agent's own file is written by ``restore_native`` and the view is
        made to match it, so the next turn goes on from the restored checkpoint.
        """
        from entire_core import sessions

        fmt = self.view_format()
        if fmt is None:
            sessions.write_session(self, session)
            return
        from entire_core import views

        target = sessions.restore_target(self, session)
        if session.native_data is None:
            return
        data = views.unpadded(session.native_data)
        # The agent's own file: a wrapped view unwrapped, a JSONL header's padding and marker dropped
        # (a text format keeps them: blank lines and a line of text are its own kind of line).
        restored = views.native_bytes(data, fmt.wrap) if fmt.wrap or fmt.json_records else data
        native = self.restore_native(
            session if restored == data else session.model_copy(update={"native_data": restored})
        )
        with views.View(self, fmt, target) as view:
            view.adopt(native, data)

    def restore_native(self, session: AgentSession) -> str:
        """Write ``session.native_data`` where the agent looks for the session; return that path."""
        raise NotImplementedError

    def read_transcript(self, session_ref: str) -> bytes:
        """The transcript's bytes, exactly as stored (``read-transcript``).

        A file over the CLI's 10 MiB answer limit is an error, never cut short.
        """
        from entire_core import validate

        validate.external_path(session_ref, "session_ref")
        with open(session_ref, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > MAX_TRANSCRIPT_BYTES:
                from entire_core.errors import AgentError

                raise AgentError(
                    f"transcript {session_ref} is {size} bytes, over the Entire CLI's "
                    f"{MAX_TRANSCRIPT_BYTES}-byte limit for one answer"
                )
            return f.read(MAX_TRANSCRIPT_BYTES + 1)

    def chunk_transcript(self, content: bytes, max_size: int) -> list[bytes]:
        """Split a transcript into pieces of at most ``max_size`` bytes (``chunk-transcript``)."""
        from entire_core import chunking

        return chunking.chunk(content, max_size)

    def reassemble_transcript(self, chunks: list[bytes]) -> bytes:
        """Join chunks made by ``chunk_transcript`` back into the original bytes."""
        from entire_core import chunking

        return chunking.reassemble(chunks)

    def format_resume_command(self, session_id: str) -> str:
        """The command a user runs to continue a session (``format-resume-command``), quoted by ``shell.join``."""
        from entire_core import shell

        return shell.join([self.name, "--resume", session_id])


# -- capability mixins -------------------------------------------------------------------------------


class HookSupport:
    """Capability ``hooks``: install hooks into the agent's config and turn its payloads into events."""

    capability: ClassVar[str] = "hooks"
    hook_names: ClassVar[tuple[str, ...]] = ()

    def parse_hook(self, hook: str, payload: Any) -> Event | None:
        """Map a native hook payload (one JSON object, decoded) to an event, or None for no event.

        Core answers stdin that is not one JSON object itself (``commands.parse_hook``), without asking.
        """
        raise NotImplementedError

    def install_hooks(self, *, force: bool = False) -> int:
        """Install our hooks; return how many were added (0 when all were already present)."""
        raise NotImplementedError

    def uninstall_hooks(self) -> None:
        """Remove our hooks and nothing else."""
        raise NotImplementedError

    def are_hooks_installed(self) -> bool:
        """True if any of our hooks is installed."""
        raise NotImplementedError


class TranscriptAnalyzer:
    """Capability ``transcript_analyzer``: positions, modified files, prompts and summary."""

    capability: ClassVar[str] = "transcript_analyzer"

    def get_transcript_position(self, path: str) -> int:
        """The current end of the transcript in this agent's offset unit; 0 for a missing file."""
        raise NotImplementedError

    def extract_modified_files(self, path: str, offset: int) -> tuple[list[str], int]:
        """Files the session changed after ``offset``, and the position they were read up to."""
        raise NotImplementedError

    def extract_prompts(self, session_ref: str, offset: int) -> list[str]:
        """What the user typed after ``offset``, oldest first."""
        raise NotImplementedError

    def extract_summary(self, session_ref: str) -> str | None:
        """The last assistant message, or None when there is none."""
        raise NotImplementedError


class LineTranscript(TranscriptAnalyzer):
    """``TranscriptAnalyzer``'s reading half for a transcript read by lines: positions are line counts, and
    ``transcript_module`` (imported when first needed) reads the records, with ``lines_of(data)``,
    ``scope(data, offset)`` (the records from line ``offset`` on), ``prompts(records)`` and
    ``summary(records)``. The agent still writes ``extract_modified_files``."""

    transcript_module: ClassVar[str] = ""

    def _transcript(self) -> Any:
        import importlib

        return importlib.import_module(self.transcript_module)

    def _data(self, path: str) -> bytes:
        from entire_core.offsets import read_all

        return read_all(path)

    def _scope(self, path: str, offset: int) -> list[dict[str, Any]]:
        return self._transcript().scope(self._data(path), offset)

    def get_transcript_position(self, path: str) -> int:
        return len(self._transcript().lines_of(self._data(path)))

    def extract_prompts(self, session_ref: str, offset: int) -> list[str]:
        return self._transcript().prompts(self._scope(session_ref, offset))

    def extract_summary(self, session_ref: str) -> str | None:
        return self._transcript().summary(self._scope(session_ref, 0)) or None


class TranscriptPreparer:
    """Capability ``transcript_preparer``: make sure the transcript file is complete before it is read."""

    capability: ClassVar[str] = "transcript_preparer"

    def prepare_transcript(self, session_ref: str) -> None:
        """Flush or materialise the transcript at ``session_ref``."""
        raise NotImplementedError


class TokenCalculator:
    """Capability ``token_calculator``: token usage of a transcript range."""

    capability: ClassVar[str] = "token_calculator"

    def calculate_tokens(self, transcript: bytes, offset: int) -> TokenUsage:
        """Token usage of ``transcript`` after ``offset``."""
        raise NotImplementedError


class TranscriptCompactor:
    """Capability ``compact_transcript``: a compact JSONL rendering of the session."""

    capability: ClassVar[str] = "compact_transcript"

    def compact_transcript(self, session_ref: str) -> CompactTranscript:
        """The compact transcript of the session at ``session_ref``."""
        raise NotImplementedError


class TextGenerator:
    """Capability ``text_generator``: run the agent non-interactively to answer a prompt."""

    capability: ClassVar[str] = "text_generator"

    def generate_text(self, prompt: str, model: str) -> str:
        """The agent's final answer to ``prompt``."""
        raise NotImplementedError


class HookResponseWriter:
    """Capability ``hook_response_writer``: a message in the agent's native hook-output format."""

    capability: ClassVar[str] = "hook_response_writer"

    def write_hook_response(self, message: str) -> bytes:
        """The bytes the agent expects on a hook's stdout to show ``message``."""
        raise NotImplementedError

    @staticmethod
    def system_message(message: str, *, ensure_ascii: bool = True) -> bytes:
        """``{"systemMessage": message}`` and a newline: the hook output Codex, Gemini CLI and Qwen Code
        show the user (and Cline CLI takes as control JSON with no control key)."""
        import json

        return (json.dumps({"systemMessage": message}, ensure_ascii=ensure_ascii) + "\n").encode("utf-8")


class SubagentAwareExtractor:
    """Capability ``subagent_aware_extractor``: files and tokens including subagent transcripts."""

    capability: ClassVar[str] = "subagent_aware_extractor"

    def extract_all_modified_files(self, transcript: bytes, offset: int, subagents_dir: str) -> list[str]:
        """Files changed after ``offset`` by the session and every subagent it ran."""
        raise NotImplementedError

    def calculate_total_tokens(self, transcript: bytes, offset: int, subagents_dir: str) -> TokenUsage:
        """Token usage after ``offset``, with subagents' usage in ``subagent_tokens``."""
        raise NotImplementedError


CAPABILITY_MIXINS: tuple[type[Any], ...] = (
    HookSupport,
    TranscriptAnalyzer,
    TranscriptPreparer,
    TokenCalculator,
    TranscriptCompactor,
    TextGenerator,
    HookResponseWriter,
    SubagentAwareExtractor,
)
"""Every capability an agent can declare. ``streaming_text_generator`` has no plugin method in the CLI."""
