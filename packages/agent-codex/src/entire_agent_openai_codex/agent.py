"""``OpenAICodexAgent``: the Entire CLI's view of OpenAI's Codex CLI, wired to the modules that know Codex.

Imported for every call, so it imports nothing heavy: each method imports what it needs.
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

from entire_agent_openai_codex import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

    from entire_core.protocol import AgentSession
    from entire_core.types import CompactTranscript, Event, TokenUsage
    from entire_core.views import ViewFormat


class OpenAICodexAgent(
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
    """OpenAI Codex CLI (0.130 and later, tested on 0.171.0) through its hooks and rollout files."""

    name = "openai-codex"
    type = "OpenAI Codex"
    description = "OpenAI Codex CLI"
    version = __version__
    protected_dirs = (".codex",)
    session_file_suffix = ".jsonl"
    # The order ``hooks.HOOK_EVENTS`` installs them in (a test holds the two together); spelled out here so
    # that ``info`` and every hook need not load the config module.
    hook_names = ("session-start", "user-prompt-submit", "stop", "pre-compact", "post-compact", "session-end",
                  "subagent-start", "subagent-stop")  # fmt: skip
    commands: ClassVar[Mapping[str, Command]] = {
        "doctor": Command(
            "entire_agent_openai_codex.doctor:doctor", "report whether Codex runs Entire's hooks here"
        ),
        "trust": Command(
            "entire_agent_openai_codex.trust:trust_command",
            "trust Entire's hooks in Codex's config.toml",
            flags={
                "--project": "also mark this repository a trusted project (Codex ignores .codex/ otherwise)",
                "--remove": "remove the trust entries of Entire's hooks instead (before uninstalling)",
            },
        ),
    }

    def detect(self) -> bool:
        """Codex is in use here when the repository has project configuration (``.codex/``)."""
        return os.path.isdir(os.path.join(self.repo_root, ".codex"))

    # -- sessions: the CLI records a bounded view; rollouts live in Codex's own tree ------------------

    def view_format(self) -> ViewFormat:
        """Rollouts are viewed through ``compacted`` snapshots (``entire_agent_openai_codex.view``)."""
        from entire_agent_openai_codex.view import CodexView

        return CodexView()

    def native_session_file(self, session_id: str) -> str:
        """The session's rollout in ``$CODEX_HOME/sessions``, else where Codex would have created it."""
        from datetime import UTC, datetime

        from entire_core import validate

        from entire_agent_openai_codex import paths

        validate.session_id(session_id)
        root = paths.sessions_dir(self.env)
        for day in paths.candidate_days(session_id):
            found = paths.match_in(os.path.join(root, day), session_id)
            if found:
                return found
        created = paths.uuid7_time(session_id) or datetime.now(UTC)
        return paths.rollout_path(root, session_id, created)

    def restore_native(self, session: AgentSession) -> str:
        """Write the rollout where ``codex resume <id>`` finds it (the dated sessions tree).

        On the machine that recorded the session, that is the rollout its view was following (its name
        carries Codex's own creation second, which the thread id's timestamp may miss by one).
        """
        from entire_core import followed, fsutil, validate

        from entire_agent_openai_codex import paths

        session_id = validate.session_id(session.session_id)
        native = followed.native_file(self, session, paths.sessions_dir(self.env))
        target = self.native_session_file(session_id)
        if native is not None and os.path.basename(native).endswith(f"-{session_id}{paths.ROLLOUT_SUFFIX}"):
            target = native
        fsutil.atomic_write(target, session.native_data or b"")
        return target

    def format_resume_command(self, session_id: str) -> str:
        """``codex resume <id>``, quoted for the shell it is pasted into."""
        from entire_core import shell

        return shell.join(["codex", "resume", session_id])

    # -- hooks ----------------------------------------------------------------------------------------------

    def parse_hook(self, hook: str, payload: Any) -> Event | None:
        """The lifecycle event of a Codex hook payload (see ``events.parse``)."""
        from entire_agent_openai_codex import events

        return events.parse(self, hook, payload)

    def install_hooks(self, *, force: bool = False) -> int:
        """Install our handlers into ``.codex/hooks.json``; trust is left to ``doctor``/``trust``.

        Refused when the ``codex`` on PATH is older than the support window.
        """
        from entire_core.versions import refuse_older

        from entire_agent_openai_codex import hooks
        from entire_agent_openai_codex.versions import WINDOW

        refuse_older(WINDOW, "codex", self.env)
        return hooks.install(self, force=force)

    def uninstall_hooks(self) -> None:
        """Remove our handlers and nothing else."""
        from entire_agent_openai_codex import hooks

        hooks.uninstall(self)

    def are_hooks_installed(self) -> bool:
        """True if any of our handlers is in ``.codex/hooks.json``."""
        from entire_agent_openai_codex import hooks

        return hooks.installed(self)

    # -- transcripts ----------------------------------------------------------------------------------------

    def get_transcript_position(self, path: str) -> int:
        """How many complete lines the rollout has (the CLI's line count of a view)."""
        from entire_agent_openai_codex import transcript

        return transcript.position(path)

    def extract_modified_files(self, path: str, offset: int) -> tuple[list[str], int]:
        """Files this thread changed after ``offset`` (a subagent's edits live in its own rollout)."""
        from entire_core.paths import repo_files

        from entire_agent_openai_codex import file_changes, transcript

        lines, end = transcript.read_range(path, offset)
        cwd = transcript.cwd_of(transcript.head(path))
        return repo_files(file_changes.changed_paths(lines, cwd=cwd), self.repo_root), end

    def extract_prompts(self, session_ref: str, offset: int) -> list[str]:
        """What the user typed after ``offset``."""
        from entire_agent_openai_codex import messages, transcript

        lines, _ = transcript.read_range(session_ref, offset)
        return messages.user_prompts(lines)

    def extract_summary(self, session_ref: str) -> str | None:
        """The last assistant message."""
        from entire_agent_openai_codex import messages

        return messages.summary(session_ref)

    def prepare_transcript(self, session_ref: str) -> None:
        """Wait, bounded, until the rollout holds the end of the turn the Stop hook announced."""
        from entire_agent_openai_codex import state, turn_end

        expected = state.pending_turn_end(self, session_ref)
        done = turn_end.wait_for_turn_end(
            session_ref, expected.get("turn_id", ""), expected.get("message", "")
        )
        if done and expected:
            state.clear_turn_end(self, session_ref)
        if not os.path.exists(session_ref):
            from entire_core.errors import AgentError

            raise AgentError(f"Codex has not written the rollout {session_ref} (yet)")

    def calculate_tokens(self, transcript: bytes, offset: int) -> TokenUsage:
        """Token usage after line ``offset`` from Codex's cumulative counters."""
        from entire_core.offsets import line_start

        from entire_agent_openai_codex import tokens

        return tokens.token_usage(transcript, line_start(transcript, offset))

    def extract_all_modified_files(self, transcript: bytes, offset: int, subagents_dir: str) -> list[str]:
        """This session's files after line ``offset`` plus those of every subagent it spawned there."""
        from entire_core.offsets import line_start, lines_after
        from entire_core.paths import repo_files

        from entire_agent_openai_codex import file_changes, subagents
        from entire_agent_openai_codex import transcript as rollout

        lines = lines_after(transcript, line_start(transcript, offset))
        cwd = rollout.cwd_of(rollout.first_line(transcript))
        changed = file_changes.changed_paths(lines, cwd=cwd)
        for child in subagents.subagent_rollouts(lines, self.env, subagents.parent_dir(subagents_dir)):
            child_lines, _ = rollout.read_range(child, 0)
            child_cwd = rollout.cwd_of(child_lines[0] if child_lines else b"") or cwd
            changed += file_changes.changed_paths(child_lines, cwd=child_cwd)
        return repo_files(changed, self.repo_root)

    def calculate_total_tokens(self, transcript: bytes, offset: int, subagents_dir: str) -> TokenUsage:
        """Token usage after line ``offset``, with the usage of the subagents spawned there nested."""
        from entire_core.offsets import line_start, lines_after
        from entire_core.types import TokenUsage

        from entire_agent_openai_codex import subagents, tokens

        offset = line_start(transcript, offset)
        usage = tokens.token_usage(transcript, offset)
        children = subagents.subagent_rollouts(
            lines_after(transcript, offset), self.env, subagents.parent_dir(subagents_dir)
        )
        sub = TokenUsage()
        for child in children:
            sub += tokens.file_usage(child)
        if children:
            usage.subagent_tokens = sub
        return usage

    def compact_transcript(self, session_ref: str) -> CompactTranscript:
        """The rollout in the Entire Transcript Format."""
        from entire_core.types import CompactTranscript

        from entire_agent_openai_codex import compact

        version = self.env.get("ENTIRE_CLI_VERSION", "").strip() or "unknown"
        return CompactTranscript(
            compact.compact(session_ref, agent=self.name, cli_version=version, repo_root=self.repo_root)
        )

    # -- text and hook output ---------------------------------------------------------------------------------

    def generate_text(self, prompt: str, model: str) -> str:
        """Codex's answer from ``codex exec`` (read-only, ephemeral, hooks off)."""
        from entire_agent_openai_codex import textgen

        return textgen.generate(prompt, model, self.env)

    def write_hook_response(self, message: str) -> bytes:
        """Codex's hook output JSON: ``systemMessage`` is shown to the user."""
        return self.system_message(message, ensure_ascii=False)
