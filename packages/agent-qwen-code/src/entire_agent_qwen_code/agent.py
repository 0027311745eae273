"""``QwenCodeAgent``: Qwen Code as an Entire CLI external agent, wired to the modules that know it.

Imported for every call, so it imports nothing heavy: each method imports what it needs. The agent's
own knowledge lives in ``hooks.py`` (its config file), ``events.py`` (its hook payloads) and
``transcript.py`` (its transcript format); this class only connects them to the protocol.
"""

from __future__ import annotations

from entire_core.agent import (
    Agent,
    Command,
    HookSupport,
    TextGenerator,
    TokenCalculator,
    TranscriptAnalyzer,
    TranscriptCompactor,
)

from entire_agent_qwen_code import __version__
from entire_agent_qwen_code.events import HOOK_EVENTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

    from entire_core.hookfile import HookGroupsFile
    from entire_core.types import CompactTranscript, Event, TokenUsage


class QwenCodeAgent(
    HookSupport,
    TranscriptAnalyzer,
    TokenCalculator,
    TranscriptCompactor,
    TextGenerator,
    Agent,
):
    """Qwen Code through its hooks and its transcript files."""

    name = "qwen-code"
    type = "Qwen Code"
    description = "Qwen Code"
    version = __version__
    protected_dirs = (".qwen",)
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

    # -- hooks ------------------------------------------------------------------------------------------

    def _hooks_file(self) -> HookGroupsFile:
        from entire_agent_qwen_code import hooks

        return hooks.hooks_file(self.repo_root, self.name, self.env)

    def install_hooks(self, *, force: bool = False) -> int:
        return self._hooks_file().install(force=force)

    def uninstall_hooks(self) -> None:
        self._hooks_file().uninstall()

    def are_hooks_installed(self) -> bool:
        return bool(self._hooks_file().installed())

    def parse_hook(self, hook: str, payload: Any) -> Event | None:
        from entire_agent_qwen_code import events

        return events.parse(hook, payload)

    # -- transcripts ------------------------------------------------------------------------------------

    def get_transcript_position(self, path: str) -> int:
        from entire_core import offsets

        return offsets.complete_end(path)

    def extract_modified_files(self, path: str, offset: int) -> tuple[list[str], int]:
        from entire_core import offsets
        from entire_core.paths import repo_files

        from entire_agent_qwen_code import transcript

        lines, position = offsets.read_lines(path, offset)
        return repo_files(transcript.modified_files(transcript.records(lines)), self.repo_root), position

    def extract_prompts(self, session_ref: str, offset: int) -> list[str]:
        from entire_core import offsets

        from entire_agent_qwen_code import transcript

        lines, _ = offsets.read_lines(session_ref, offset)
        return transcript.prompts(transcript.records(lines))

    def extract_summary(self, session_ref: str) -> str | None:
        from entire_core import offsets

        from entire_agent_qwen_code import transcript

        lines, _ = offsets.read_lines(session_ref, 0)
        return transcript.summary(transcript.records(lines))

    def calculate_tokens(self, transcript: bytes, offset: int) -> TokenUsage:
        from entire_core import offsets

        from entire_agent_qwen_code.transcript import records, tokens

        return tokens(records(offsets.lines_after(transcript, offset)))

    def compact_transcript(self, session_ref: str) -> CompactTranscript:
        from entire_agent_qwen_code import compact

        return compact.compact(
            session_ref, agent_name=self.name, cli_version=self.env.get("ENTIRE_CLI_VERSION", "")
        )

    def generate_text(self, prompt: str, model: str) -> str:
        from entire_agent_qwen_code import textgen

        return textgen.generate(prompt, model, env=self.env)
