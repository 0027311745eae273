"""``QwenCodeAgent``: Qwen Code as an Entire CLI external agent, wired to the modules that know it.

Imported for every call, so it imports nothing heavy: each method imports what it needs. The session's
transcript is Qwen's own chat recording (``<runtime>/projects/<project>/chats/<id>.jsonl``), handed to the
CLI as a bounded view of it (``view``, ``entire_core.views``), read whole (its tree needs the whole file
to know the live branch) and scoped by line offsets.
"""

from __future__ import annotations

from entire_core.agent import (
    Agent,
    Command,
    HookResponseWriter,
    HookSupport,
    LineTranscript,
    SubagentAwareExtractor,
    TextGenerator,
    TokenCalculator,
    TranscriptCompactor,
    TranscriptPreparer,
)

from entire_agent_qwen_code import __version__
from entire_agent_qwen_code.events import HOOK_EVENTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

    from entire_core.hookfile import HookGroupsFile
    from entire_core.protocol import AgentSession
    from entire_core.types import CompactTranscript, Event, TokenUsage
    from entire_core.views import ViewFormat


class QwenCodeAgent(
    HookSupport,
    LineTranscript,
    TokenCalculator,
    TranscriptCompactor,
    TextGenerator,
    SubagentAwareExtractor,
    TranscriptPreparer,
    HookResponseWriter,
    Agent,
):
    """Qwen Code (``qwen``) through its hooks and its own chat recordings."""

    name = "qwen-code"
    type = "Qwen Code"
    description = "Qwen Code (external plugin)"
    version = __version__
    transcript_module = "entire_agent_qwen_code.transcript"
    protected_dirs = (".qwen",)
    caller_env_vars = ("QWEN_CODE",)  # Qwen sets QWEN_CODE=1 for the shell commands it runs
    session_file_suffix = ".jsonl"
    hook_names = tuple(HOOK_EVENTS)
    commands: ClassVar[Mapping[str, Command]] = {
        "doctor": Command(
            "entire_agent_qwen_code.doctor:doctor", "report whether Qwen Code runs Entire's hooks here"
        ),
    }

    def detect(self) -> bool:
        import os

        from entire_agent_qwen_code import paths

        return os.path.isdir(os.path.dirname(paths.config_file(self.repo_root)))

    def chats_dir(self) -> str:
        """Qwen's chats directory for this repository, where ``qwen --resume`` looks."""
        from entire_agent_qwen_code import paths

        return paths.chats_dir(self.env, self.home(), self.repo_root)

    def native_session_file(self, session_id: str) -> str:
        import os

        from entire_core import validate

        return os.path.join(self.chats_dir(), validate.session_id(session_id) + ".jsonl")

    def view_format(self) -> ViewFormat:
        """Chats are handed over as wrapped generic JSONL views, bounded (``entire_agent_qwen_code.view``)."""
        from entire_agent_qwen_code.view import QwenView

        return QwenView()

    def restore_native(self, session: AgentSession) -> str:
        """Write the chat (the view unwrapped) where ``qwen --resume <id>`` finds it: the repository's chats."""
        import os

        from entire_core import fsutil, validate

        from entire_agent_qwen_code import paths

        repo = session.repo_path or self.repo_root
        chats = paths.chats_dir(self.env, self.home(), repo)
        target = os.path.join(chats, validate.session_id(session.session_id) + ".jsonl")
        fsutil.atomic_write(target, session.native_data or b"")
        return target

    def format_resume_command(self, session_id: str) -> str:
        from entire_core import shell

        return shell.join(["qwen", "--resume", session_id])

    # -- hooks ------------------------------------------------------------------------------------------

    def _hooks_file(self) -> HookGroupsFile:
        from entire_agent_qwen_code import hooks

        return hooks.hooks_file(self.repo_root, self.name, self.env)

    def install_hooks(self, *, force: bool = False) -> int:
        from entire_core.versions import refuse_older

        from entire_agent_qwen_code.versions import WINDOW

        refuse_older(WINDOW, "qwen", self.env)
        return self._hooks_file().install(force=force)

    def uninstall_hooks(self) -> None:
        self._hooks_file().uninstall()

    def are_hooks_installed(self) -> bool:
        return bool(self._hooks_file().installed())

    def write_hook_response(self, message: str) -> bytes:
        # Qwen shows a hook's systemMessage to the user (plain text would go to the model)
        return self.system_message(message)

    def prepare_transcript(self, session_ref: str) -> None:
        """Wait (up to 2 s) until the chat's last line is complete: Qwen writes each record whole, and
        the recording is complete when Stop fires, so this waits only for a write in progress."""
        import time

        for _ in range(20):
            data = self._data(session_ref)
            if not data or data.endswith(b"\n"):
                return
            time.sleep(0.1)

    def parse_hook(self, hook: str, payload: Any) -> Event | None:
        from entire_agent_qwen_code import events

        return events.parse(hook, payload)

    # -- transcripts ------------------------------------------------------------------------------------

    def _files(self, items: list[dict[str, Any]], subagents_dir: str) -> list[str]:
        """Files written by the records and by the subagents they started, repo-relative, once each."""
        from entire_core.paths import repo_files

        from entire_agent_qwen_code import paths, transcript

        files = transcript.modified_files(items)
        recorded = paths.subagent_files(subagents_dir, transcript.subagent_calls(items))
        for sub in recorded:
            files += transcript.modified_files(self._scope(sub, 0))
        if not recorded:
            files += transcript.telemetry_subagents(items)[0]
        return repo_files(files, self.repo_root)

    def _subagents_dir(self, subagents_dir: str, chat: str = "") -> str:
        """Qwen's subagents folder: the CLI's ``<chats>/<id>/subagents`` maps to ``<project>/subagents/<id>``."""
        import os

        from entire_agent_qwen_code import paths

        parent = os.path.dirname(subagents_dir.rstrip(os.sep))
        if subagents_dir and os.path.basename(os.path.dirname(parent)) == "chats":
            return paths.subagents_dir(parent + ".jsonl")
        return subagents_dir or (paths.subagents_dir(chat) if chat else "")

    def extract_modified_files(self, path: str, offset: int) -> tuple[list[str], int]:
        from entire_core.views import native_of

        from entire_agent_qwen_code import transcript

        data = self._data(path)
        items = transcript.scope(data, offset)
        return self._files(items, self._subagents_dir("", native_of(self, path))), len(
            transcript.lines_of(data)
        )

    def calculate_tokens(self, transcript: bytes, offset: int) -> TokenUsage:
        from entire_agent_qwen_code import transcript as chats

        before, items = chats.split(transcript, offset)
        return chats.tokens(items, chats.backends(before))

    def extract_all_modified_files(self, transcript: bytes, offset: int, subagents_dir: str) -> list[str]:
        from entire_agent_qwen_code import transcript as chats

        return self._files(chats.scope(transcript, offset), self._subagents_dir(subagents_dir))

    def calculate_total_tokens(self, transcript: bytes, offset: int, subagents_dir: str) -> TokenUsage:
        """The turn's calls, with the subagents it started (in the background too) as ``subagent_tokens``."""
        from entire_agent_qwen_code import paths
        from entire_agent_qwen_code import transcript as chats

        before, items = chats.split(transcript, offset)
        known = chats.backends(before)
        own = chats.tokens(items, known)
        recorded = paths.subagent_files(self._subagents_dir(subagents_dir), chats.subagent_calls(items))
        if not recorded:  # before 0.23: the subagents' calls are telemetry of this file
            return own.with_subagents([chats.telemetry_subagents(items)[1]])
        # A subagent's recording logs no calls: their backends are logged in this file.
        logged = chats.backends(items, known)
        return own.with_subagents(chats.tokens(self._scope(sub, 0), logged) for sub in recorded)

    def compact_transcript(self, session_ref: str) -> CompactTranscript:
        from entire_agent_qwen_code import compact

        cli_version = self.env.get("ENTIRE_CLI_VERSION", "")
        return compact.compact(self._data(session_ref), agent_name=self.name, cli_version=cli_version)

    def generate_text(self, prompt: str, model: str) -> str:
        from entire_agent_qwen_code import textgen

        return textgen.generate(prompt, model, env=self.env, home=self.home())
