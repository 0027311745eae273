"""``ClineCliAgent``: Cline CLI as an Entire CLI external agent, wired to the modules that know it.

Imported for every call, so it imports nothing heavy: each method imports what it needs. A session's
transcript is its journal (``journal``: Cline's rewritten messages document as a file that only
grows), handed to the CLI as a bounded view of it (``view``); positions are lines of both.
"""

from __future__ import annotations

from entire_core.agent import (
    DELIVERED,
    Agent,
    Command,
    HookResponseWriter,
    HookSupport,
    LineTranscript,
    SubagentAwareExtractor,
    TextGenerator,
    TokenCalculator,
    TranscriptPreparer,
)

from entire_agent_cline_cli import __version__
from entire_agent_cline_cli.hooks import NATIVE_EVENTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

    from entire_core.protocol import AgentSession
    from entire_core.types import Event, TokenUsage
    from entire_core.views import ViewFormat

    from entire_agent_cline_cli.hooks import HookFiles


class ClineCliAgent(
    HookSupport,
    LineTranscript,
    TokenCalculator,
    SubagentAwareExtractor,
    TranscriptPreparer,
    TextGenerator,
    HookResponseWriter,
    Agent,
):
    """Cline CLI (``cline``) through its hook files and its session messages."""

    name = "cline-cli"
    type = "Cline CLI"
    description = "Cline CLI (external plugin)"
    version = __version__
    transcript_module = "entire_agent_cline_cli.transcript"
    protected_dirs = (".cline",)
    session_file_suffix = ".jsonl"
    hook_names = tuple(NATIVE_EVENTS)
    commands: ClassVar[Mapping[str, Command]] = {
        "doctor": Command(
            "entire_agent_cline_cli.doctor:doctor", "report whether Cline CLI runs Entire's hooks here"
        ),
        "delivered": DELIVERED,
    }

    def detect(self) -> bool:
        import os

        return os.path.isdir(os.path.join(self.repo_root, ".cline"))

    def sessions_dir(self) -> str:
        """Cline's sessions directory (``CLINE_SESSION_DATA_DIR``, ``CLINE_DATA_DIR``, ``CLINE_DIR`` honoured)."""
        from entire_agent_cline_cli import paths

        return paths.sessions_dir(self.env, self.home())

    def native_session_file(self, session_id: str) -> str:
        from entire_core import validate

        from entire_agent_cline_cli import journal

        return journal.path(self.repo_root, self.name, validate.session_id(session_id))

    def view_format(self) -> ViewFormat:
        """Journals are handed over as wrapped generic JSONL views, bounded (``entire_agent_cline_cli.view``)."""
        from entire_agent_cline_cli.view import ClineView

        return ClineView()

    def restore_native(self, session: AgentSession) -> str:
        """Write the session back as Cline's own files, where ``cline --id <id>`` finds it, and its journal."""
        from entire_core import fsutil, validate

        from entire_agent_cline_cli import journal

        session_id = validate.session_id(session.session_id)
        data = session.native_data or b""
        journal.restore(data, self.sessions_dir(), session_id)
        target = journal.path(session.repo_path or self.repo_root, self.name, session_id)
        fsutil.atomic_write(target, data, durable=False)
        return target

    def format_resume_command(self, session_id: str) -> str:
        from entire_core import shell

        return shell.join(["cline", "--id", session_id])

    # -- hooks ------------------------------------------------------------------------------------------

    def _hook_files(self) -> HookFiles:
        from entire_agent_cline_cli.hooks import HookFiles

        return HookFiles(self.repo_root, self.name, self.env)

    def install_hooks(self, *, force: bool = False) -> int:
        from entire_core.versions import refuse_older

        from entire_agent_cline_cli.versions import BINARY, WINDOW

        refuse_older(WINDOW, BINARY, self.env)
        return self._hook_files().install(force=force)

    def uninstall_hooks(self) -> None:
        self._hook_files().uninstall()

    def are_hooks_installed(self) -> bool:
        return bool(self._hook_files().installed())

    def write_hook_response(self, message: str) -> bytes:
        """Control JSON with no control key: Cline shows hooks' output to no one, and acts only on
        ``cancel``, ``review``, ``context``, ``errorMessage`` and ``overrideInput`` (README)."""
        return self.system_message(message)

    def generate_text(self, prompt: str, model: str) -> str:
        from entire_agent_cline_cli import textgen

        return textgen.generate(prompt, model, env=self.env, home=self.home())

    def parse_hook(self, hook: str, payload: Any) -> Event | None:
        from entire_agent_cline_cli import events

        return events.parse(self, hook, payload)

    def prepare_transcript(self, session_ref: str) -> None:
        """Bring the session's journal up to Cline's messages (the view follows it) while a turn is open;
        after a turn's end, only its header's fields: nothing of the next turn before its start (``events``)."""
        import os

        from entire_core import views
        from entire_core.scratch import Scratch

        from entire_agent_cline_cli import events, journal, paths

        native = views.native_of(self, session_ref)
        name = os.path.basename(native)
        if name.startswith("journal-") and name.endswith(".jsonl"):
            session_id = name[len("journal-") : -len(".jsonl")]
            messages_file = paths.messages_file(self.sessions_dir(), session_id)
            turn_open = Scratch(self.repo_root, self.name).load(events.KIND, session_id).get("open", True)
            journal.sync(messages_file, native, None if turn_open else 0)

    # -- transcripts ------------------------------------------------------------------------------------

    def _subagents(self, items: list[dict[str, Any]], native: str) -> list[list[dict[str, Any]]]:
        """The messages of the subagents ``items`` started, from the session folder behind ``native``."""
        import os

        from entire_agent_cline_cli import paths, transcript

        name = os.path.basename(native)
        session_id = name[len("journal-") : -len(".jsonl")] if name.startswith("journal-") else ""
        tasks = transcript.subagent_tasks(items)
        if not session_id or not tasks:
            return []
        messages_file = paths.messages_file(self.sessions_dir(), session_id)
        return transcript.subagent_messages(paths.subagent_files(messages_file), tasks)

    def _files(self, items: list[dict[str, Any]], native: str) -> list[str]:
        from entire_core.paths import repo_files

        from entire_agent_cline_cli import transcript

        files = transcript.modified_files(items)
        for sub in self._subagents(items, native):
            files += transcript.modified_files(sub)
        return repo_files(files, self.repo_root)

    def extract_modified_files(self, path: str, offset: int) -> tuple[list[str], int]:
        from entire_core.views import native_of

        from entire_agent_cline_cli import transcript

        data = self._data(path)
        items = transcript.scope(data, offset)
        return self._files(items, native_of(self, path)), len(transcript.lines_of(data))

    def calculate_tokens(self, transcript: bytes, offset: int) -> TokenUsage:
        from entire_agent_cline_cli import transcript as cline

        return cline.tokens(cline.scope(transcript, offset))

    def extract_all_modified_files(self, transcript: bytes, offset: int, subagents_dir: str) -> list[str]:
        from entire_agent_cline_cli import transcript as cline

        return self._files(cline.scope(transcript, offset), self._native_of_dir(subagents_dir))

    def calculate_total_tokens(self, transcript: bytes, offset: int, subagents_dir: str) -> TokenUsage:
        """The turn's calls, with the subagents it started as ``subagent_tokens``."""
        from entire_agent_cline_cli import transcript as cline

        items = cline.scope(transcript, offset)
        subs = self._subagents(items, self._native_of_dir(subagents_dir))
        return cline.tokens(items).with_subagents(cline.tokens(s) for s in subs)

    def _native_of_dir(self, subagents_dir: str) -> str:
        """The journal behind ``--subagents-dir`` (``<dir of native>/<session>/subagents``, core translated)."""
        import os

        if not subagents_dir:
            return ""
        norm = os.path.normpath(subagents_dir)
        session_dir = os.path.dirname(norm) if os.path.basename(norm) == "subagents" else norm
        return f"journal-{os.path.basename(session_dir)}.jsonl"
