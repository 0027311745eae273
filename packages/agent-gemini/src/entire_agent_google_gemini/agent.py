"""``GeminiAgent``: Gemini CLI as an Entire CLI external agent, wired from the modules that know it.

Imported on every hook, so it imports nothing at module level beyond the core's light base classes:
each method imports the module it needs.
"""

from __future__ import annotations

import os

from entire_core.agent import (
    Agent,
    Command,
    HookResponseWriter,
    HookSupport,
    SubagentAwareExtractor,
    TextGenerator,
    TokenCalculator,
    TranscriptAnalyzer,
    TranscriptCompactor,
    TranscriptPreparer,
)

from entire_agent_google_gemini import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

    from entire_core.protocol import AgentSession
    from entire_core.types import CompactTranscript, Event, TokenUsage
    from entire_core.views import ViewFormat

    from entire_agent_google_gemini.transcript import Chat

_VIEWED_EVENTS = frozenset([1, 2, 3, 4, 5])
"""SessionStart to SessionEnd: the events whose chat core hands the CLI as a view."""


class GeminiAgent(
    HookSupport,
    TranscriptAnalyzer,
    TranscriptPreparer,
    TokenCalculator,
    TranscriptCompactor,
    TextGenerator,
    HookResponseWriter,
    SubagentAwareExtractor,
    Agent,
):
    """Google Gemini CLI (``gemini``), 0.39+ JSONL chats and the older single-JSON ones."""

    name = "google-gemini"
    type = "Google Gemini CLI"
    description = "Google Gemini CLI (external plugin)"
    version = __version__
    protected_dirs = (".gemini",)
    caller_env_vars = ("GEMINI_CLI",)  # Gemini sets GEMINI_CLI=1 for the shell commands it runs
    session_file_suffix = ".jsonl"
    hook_names = ("session-start", "before-agent", "after-agent", "pre-compress", "session-end",
                  "before-tool", "after-tool")  # fmt: skip
    commands: ClassVar[Mapping[str, Command]] = {
        "doctor": Command(
            "entire_agent_google_gemini.doctor:run", "check hooks, trust and settings for Gemini CLI"
        ),
    }

    # -- where things are ---------------------------------------------------------------------------

    def gemini_home(self) -> str:
        """Gemini's ``.gemini`` directory (``GEMINI_CLI_HOME`` honoured)."""
        from entire_agent_google_gemini import paths

        return paths.gemini_home(self.env, self.home())

    def detect(self) -> bool:
        return os.path.isdir(os.path.join(self.repo_root, ".gemini"))

    def chats_dir(self, repo_path: str = "") -> str:
        """Gemini's own chats directory for the repository, where ``gemini --resume`` looks."""
        from entire_agent_google_gemini import paths

        return paths.chats_dir(self.gemini_home(), repo_path or self.repo_root)

    # -- sessions: the CLI records a bounded view; chats live in Gemini's own tree ----------------------

    def view_format(self) -> ViewFormat:
        """JSONL chats are viewed through ``$set.messages`` checkpoints (``entire_agent_google_gemini.view``)."""
        from entire_agent_google_gemini.view import GeminiView

        return GeminiView(self.scratch())

    def native_session_file(self, session_id: str) -> str:
        """The session's chat file in Gemini's chats directory, else a new name ``gemini --resume`` lists."""
        from entire_core import validate

        from entire_agent_google_gemini import sessions

        return sessions.session_file(self.chats_dir(), validate.session_id(session_id))

    def restore_native(self, session: AgentSession) -> str:
        """Write the chat where ``gemini --resume <id>`` finds it; Gemini adopts the project directory."""
        from entire_agent_google_gemini import sessions

        return sessions.restore_native(self, session, self.gemini_home())

    def _is_view(self, path: str) -> bool:
        from entire_core import views

        return views.is_view_path(self, path)

    def _is_jsonl_view(self, path: str) -> bool:
        """A view of a JSONL chat: lines are positions (a pre-0.39 chat's view is a copy of one JSON document)."""
        from entire_agent_google_gemini.view import GeminiView

        return self._is_view(path) and GeminiView().accepts(path)

    def read_transcript(self, session_ref: str) -> bytes:
        """The chat as ``_read`` gives it; the dispatcher checks the path and the size limit."""
        data = self._read(session_ref)
        if data is None:
            from entire_core.errors import AgentError

            raise AgentError(f"transcript {session_ref} does not exist")
        return data

    def _read(self, path: str) -> bytes | None:
        """A view as it is (always a healthy chat), any other chat file repaired by ``sessionfile.read``."""
        from entire_agent_google_gemini import sessionfile

        if self._is_view(path):
            try:
                with open(path, "rb") as f:
                    return f.read()
            except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
                return None
        return sessionfile.read(path, self.scratch())

    def format_resume_command(self, session_id: str) -> str:
        from entire_core import shell

        return shell.join(["gemini", "--resume", session_id])

    # -- hooks ----------------------------------------------------------------------------------------

    def parse_hook(self, hook: str, payload: Any) -> Event | None:
        """The event for a hook; a chat Gemini recreated without its history is put back first.

        Core then hands the CLI the session's view of that chat (``entire_core.views``).
        """
        from entire_core.types import EventType

        from entire_agent_google_gemini import events

        event = events.to_event(hook, payload, self.scratch())
        if event is not None and event.session_ref and event.type in _VIEWED_EVENTS:
            from entire_agent_google_gemini import repair

            missing = event.type in (EventType.TURN_START, EventType.TURN_END)
            repair.put_back(
                self, repair.view_path(self, event.session_id), event.session_ref, missing=missing
            )
        return event

    def install_hooks(self, *, force: bool = False) -> int:
        from entire_core.versions import refuse_older

        from entire_agent_google_gemini import hooks
        from entire_agent_google_gemini.versions import WINDOW

        refuse_older(WINDOW, "gemini", {**self.env, "GEMINI_CLI_NO_RELAUNCH": "true"})
        return hooks.settings_file(self).install(force=force)

    def uninstall_hooks(self) -> None:
        from entire_agent_google_gemini import hooks

        hooks.settings_file(self).uninstall()

    def are_hooks_installed(self) -> bool:
        from entire_agent_google_gemini import hooks

        return bool(hooks.installed(self))

    def write_hook_response(self, message: str) -> bytes:
        return self.system_message(message)  # Gemini shows a hook's systemMessage to the user

    # -- transcripts ------------------------------------------------------------------------------------

    def _chat(self, path: str) -> Chat:
        from entire_agent_google_gemini import transcript

        return transcript.parse(self._read(path) or b"")

    def _relative(self, files: list[str]) -> list[str]:
        """Repo-relative, once each: Gemini 0.61 records absolute paths, older builds relative ones."""
        from entire_core.paths import repo_files

        return repo_files(files, self.repo_root)

    def _messages_after(self, path: str, offset: int) -> tuple[list[dict[str, Any]], int]:
        """The messages written after line ``offset`` and the position read up to.

        Reads only the bytes after that line of a healthy chat (``sessionfile.tail_lines``); otherwise
        the whole chat, repaired as ``sessionfile.read`` does.
        """
        from entire_agent_google_gemini import sessionfile, transcript

        lines = sessionfile.tail_lines(path, self.scratch(), offset, trusted=self._is_jsonl_view(path))
        if lines is not None:
            return transcript.replay(transcript.decode(line) for line in lines), offset + len(lines)
        chat = self._chat(path)
        return chat.messages(offset), chat.position

    def get_transcript_position(self, path: str) -> int:
        from entire_agent_google_gemini import sessionfile

        quick = sessionfile.quick_position(path, trusted=self._is_jsonl_view(path))
        return quick if quick is not None else self._chat(path).position

    def extract_modified_files(self, path: str, offset: int) -> tuple[list[str], int]:
        from entire_agent_google_gemini import transcript

        messages, position = self._messages_after(path, offset)
        return self._relative(transcript.modified_files(messages)), position

    def extract_prompts(self, session_ref: str, offset: int) -> list[str]:
        from entire_agent_google_gemini import transcript

        return transcript.prompts(self._messages_after(session_ref, offset)[0])

    def extract_summary(self, session_ref: str) -> str | None:
        """The last model text; in a re-based view with none since, the last one its checkpoint restates."""
        from entire_agent_google_gemini import transcript

        chat = self._chat(session_ref)
        return transcript.summary(chat.messages()) or transcript.summary(chat.checkpoint()) or None

    def prepare_transcript(self, session_ref: str) -> None:
        """Make sure the chat file exists and is whole before the CLI reads the transcript.

        A viewed chat is put back from its view when Gemini deleted or recreated it (``repair``); the
        view itself is the copy kept of it. Any other chat is repaired by ``sessionfile.prepare``.
        """
        from entire_agent_google_gemini import repair, sessionfile

        view = repair.view_following(self, session_ref)
        if view is not None and self.view_format().accepts(session_ref):
            repair.put_back(self, view, session_ref, missing=True)
            return
        sessionfile.prepare(session_ref, self.scratch())  # a pre-0.39 chat: its view is a copy of this

    def calculate_tokens(self, transcript: bytes, offset: int) -> TokenUsage:
        from entire_agent_google_gemini import transcript as chats

        return chats.usage(chats.parse(transcript).messages(offset))

    def extract_all_modified_files(self, transcript: bytes, offset: int, subagents_dir: str) -> list[str]:
        from entire_agent_google_gemini import sessions
        from entire_agent_google_gemini import transcript as chats

        messages = chats.parse(transcript).messages(offset)
        files = chats.modified_files(messages)
        for sub in sessions.subagents_of(subagents_dir, messages):
            files += chats.modified_files(sub.messages())
        return self._relative(files)

    def calculate_total_tokens(self, transcript: bytes, offset: int, subagents_dir: str) -> TokenUsage:
        from entire_agent_google_gemini import sessions
        from entire_agent_google_gemini import transcript as chats

        messages = chats.parse(transcript).messages(offset)
        subagents = sessions.subagents_of(subagents_dir, messages)
        return chats.usage(messages).with_subagents(chats.usage(sub.messages()) for sub in subagents)

    def compact_transcript(self, session_ref: str) -> CompactTranscript:
        from entire_agent_google_gemini import compact

        cli_version = self.env.get("ENTIRE_CLI_VERSION", "")
        return compact.compact(self._chat(session_ref), agent=self.name, cli_version=cli_version)

    def generate_text(self, prompt: str, model: str) -> str:
        from entire_agent_google_gemini import textgen

        return textgen.generate(prompt, model, self.env)
