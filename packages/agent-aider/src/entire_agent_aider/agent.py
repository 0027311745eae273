"""``AiderAgent``: the Entire plugin for Aider, wiring the modules that know Aider to the protocol.

This module is imported by every subcommand, so it imports only the core's base classes; each
method imports what it needs.
"""

from __future__ import annotations

import os

from entire_core.agent import (
    DELIVERED,
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
from entire_core.cli_flags import INT

from entire_agent_aider import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.protocol import AgentSession
    from entire_core.types import CompactTranscript, Event, TokenUsage
    from entire_core.views import ViewFormat

    from entire_agent_aider.parser import History

_PKG = "entire_agent_aider."


def _parse_file(path: str, offset: int) -> tuple[History, int]:
    """The complete lines of the view at ``path`` from line ``offset``, parsed, and its line count."""
    from entire_agent_aider import transcript

    lines = _view_lines(path)
    return transcript.parse_lines(lines[offset:]), len(lines)


def _view_lines(path: str) -> list[bytes]:
    from entire_agent_aider.view import view_lines

    with open(path, "rb") as f:
        return view_lines(f.read())


class AiderAgent(
    HookSupport,
    TranscriptAnalyzer,
    TranscriptPreparer,
    TokenCalculator,
    SubagentAwareExtractor,
    TranscriptCompactor,
    TextGenerator,
    HookResponseWriter,
    Agent,
):
    """Aider (aider-chat 0.86): lifecycle from its notification command and chat-history markdown."""

    name = "aider"
    type = "Aider"
    description = "Aider AI pair programming in your terminal"
    version = __version__
    protected_dirs = (".aider.tags.cache.v3", ".aider.tags.cache.v4")
    protected_files = (".aider.chat.history.md", ".aider.input.history", ".aider.conf.yml")
    session_file_suffix = ".md"
    hook_names = ("session-start", "turn-start", "turn-end", "session-end")
    commands = {  # read-only; the base class declares it a ClassVar
        "doctor": Command(_PKG + "doctor:doctor", "check that Aider will run Entire's notification command"),
        "run": Command(
            _PKG + "launcher:run",
            "run Aider with an exact session lifecycle: run -- <aider args>",
            flags={"--aider PATH": "the Aider executable (default: $ENTIRE_AIDER_BINARY, else aider)"},
            args="[--] [aider arguments...]",
        ),
        "sync": Command(
            _PKG + "events:sync",
            "(run by the launcher's Aider before it commits) bring the session's view up to date",
            flags={"--history FILE": "the chat-history file", "--session ID": "the launched session's id"},
        ),
        "delivered": Command(  # core's (DELIVERED), with the --history the launcher has always sent
            DELIVERED.target,
            DELIVERED.summary,
            flags={**DELIVERED.flags, "--history FILE": "accepted and ignored: the launcher names it"},
            kinds={"status": INT},
        ),
        "notify": Command(
            _PKG + "notify:notify",
            "(run by Aider's notifications-command) report to Entire",
            flags={"--aider-pid PID": "Aider's process id (default: this command's parent)"},
            kinds={"aider-pid": INT},
        ),
    }

    def detect(self) -> bool:
        root = self.repo_root
        names = (*self.protected_files, *self.protected_dirs)
        return any(os.path.lexists(os.path.join(root, name)) for name in names)

    # -- sessions: the CLI records a bounded view; a restored session is a history file of its own -----

    def view_format(self) -> ViewFormat:
        """Each session's slice of the history is viewed through restated turns (``entire_agent_aider.view``)."""
        from entire_agent_aider.view import AiderView

        return AiderView()

    def restore_native(self, session: AgentSession) -> str:
        """Write the restored session as a chat-history file of its own, for ``format_resume_command``.

        Aider restores a whole history file and appends to it, and the repository's history file
        holds every session: the restored one goes to Entire's git-ignored scratch area instead.
        """
        from entire_core import fsutil

        target = self._restored_path(session.session_id)
        fsutil.atomic_write(target, session.native_data or b"")
        return target

    def format_resume_command(self, session_id: str) -> str:
        """Aider through the launcher (which records the resumed turns), with the restored session.

        When the CLI keeps an existing local log (its view of the session) and restores nothing
        (``entire session resume`` without ``--force``), the restored file is written here from that
        view, as ``write-session`` would have written it, so the command names a file that exists.
        """
        from entire_core import shell

        restored = self._restored_path(session_id)
        if not os.path.isfile(restored):
            self._restore_from_view(session_id, restored)
        ref = os.path.relpath(restored, self.repo_root)
        return shell.join(
            ["entire-agent-aider", "run", "--", "--chat-history-file", ref, "--restore-chat-history"]
        )

    def _restore_from_view(self, session_id: str, target: str) -> None:
        from entire_core import fsutil, views

        view = self.resolve_session_file(self.get_session_dir(self.repo_root), session_id)
        try:
            with open(view, "rb") as f:
                data = f.read()
        except OSError:
            return  # no local log either: the command names where write-session would restore it
        fsutil.atomic_write(target, views.native_bytes(data, wrapped=True))

    def _restored_path(self, session_id: str) -> str:

        from entire_agent_aider import state

        return state.session_ref(self.scratch(), session_id)

    # -- hooks ----------------------------------------------------------------------------------------

    def parse_hook(self, hook: str, payload: Any) -> Event | None:
        from entire_agent_aider import events

        return events.parse_hook(self, hook, payload)

    def install_hooks(self, *, force: bool = False) -> int:
        from entire_core.versions import refuse_older

        from entire_agent_aider import hooks
        from entire_agent_aider.versions import WINDOW

        refuse_older(WINDOW, "aider", self.env)
        return hooks.install(self, force=force)

    def uninstall_hooks(self) -> None:
        from entire_agent_aider import hooks

        hooks.uninstall(self)

    def are_hooks_installed(self) -> bool:
        from entire_agent_aider import hooks

        return hooks.installed(self.repo_root)

    # -- transcripts ----------------------------------------------------------------------------------

    def get_transcript_position(self, path: str) -> int:
        # Lines, as the CLI counts a view's (a view never ends in blank lines: each line is JSON).
        count = 0
        try:
            with open(path, "rb") as f:
                while block := f.read(1 << 20):
                    count += block.count(b"\n")
        except (FileNotFoundError, NotADirectoryError):
            return 0
        return count

    def extract_modified_files(self, path: str, offset: int) -> tuple[list[str], int]:
        history, position = _parse_file(path, offset)
        return self._repo_files(history), position

    def extract_prompts(self, session_ref: str, offset: int) -> list[str]:
        from entire_agent_aider import transcript

        return transcript.prompts(_parse_file(session_ref, offset)[0])

    def extract_summary(self, session_ref: str) -> str | None:
        sessions = _parse_file(session_ref, 0)[0].sessions
        return next((s.reply for s in reversed(sessions) if s.reply), None)

    def prepare_transcript(self, session_ref: str) -> None:
        # parse-hook already brought the session's file to where its event stands; nothing may be
        # added now, or the turn would take in lines of the next one.
        if not os.path.isfile(session_ref):
            from entire_core.errors import AgentError

            raise AgentError(f"transcript {session_ref} does not exist")

    def extract_all_modified_files(self, transcript: bytes, offset: int, subagents_dir: str) -> list[str]:
        # Aider has no subagent transcripts: architect mode's editor step is logged in the same file.
        from entire_agent_aider import transcript as history
        from entire_agent_aider.view import view_lines

        return self._repo_files(history.parse_lines(view_lines(transcript)[offset:]))

    def _repo_files(self, history: History) -> list[str]:
        # Aider names files relative to the git root (to its working directory with --no-git).
        from entire_core.paths import repo_files

        from entire_agent_aider import transcript

        root = self.repo_root
        return repo_files(transcript.modified_files(history), root, cwd=root)

    def calculate_total_tokens(self, transcript: bytes, offset: int, subagents_dir: str) -> TokenUsage:
        return self.calculate_tokens(transcript, offset)

    def calculate_tokens(self, transcript: bytes, offset: int) -> TokenUsage:
        from entire_agent_aider import tokens

        return tokens.calculate(transcript, offset, self.env, self.repo_root)

    def compact_transcript(self, session_ref: str) -> CompactTranscript:
        from entire_agent_aider import compact

        return compact.compact(session_ref, self.name, self.env.get("ENTIRE_CLI_VERSION", ""))

    def generate_text(self, prompt: str, model: str) -> str:
        from entire_agent_aider import textgen

        return textgen.generate(prompt, model, dict(self.env))

    def write_hook_response(self, message: str) -> bytes:
        # Aider captures the notification command's output and shows nothing of it: plain text it is.
        return message.encode("utf-8") + b"\n"
