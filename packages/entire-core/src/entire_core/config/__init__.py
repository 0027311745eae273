"""Editors for other tools' config files that keep every byte the user wrote.

Each editor is a context manager that locks the file, parses it, yields a document to mutate, and on a
clean exit writes only what changed, after re-parsing the result to validate it:

- ``from entire_core.config.json import edit_json``: JSON and JSONC (Codex hooks.json, Gemini settings.json).
- ``from entire_core.config.toml import edit_toml``: TOML through tomlkit (Codex config.toml).
- ``from entire_core.config.textblock import edit_text_block``: a marked block of lines (Aider's YAML).

Nothing is imported here, so importing this package stays free.
"""
