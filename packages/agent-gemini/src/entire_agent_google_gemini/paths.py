"""Where Gemini CLI keeps things: its home, per-project temp directories, chat files and settings.

Since 0.29 a project's directory is a slug (``~/.gemini/tmp/<slug>/``) registered in
``~/.gemini/projects.json`` and claimed by a ``.project_root`` marker; before that it was the sha256 of
the project root. ``GEMINI_CLI_HOME`` replaces the home directory. Chat files are
``chats/session-<YYYY-MM-DDTHH-MM>-<first 8 of the session id>.jsonl`` (``.json`` before 0.39) and a
subagent's are ``chats/<parent session id>/<subagent session id>.jsonl``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

SESSION_PREFIX = "session-"
SETTINGS = "settings.json"


def gemini_home(env: Mapping[str, str], home: str) -> str:
    """``$GEMINI_CLI_HOME/.gemini`` when that is an absolute path, else ``<home>/.gemini``."""
    override = env.get("GEMINI_CLI_HOME", "")
    base = override if override and os.path.isabs(override) else home
    return os.path.join(base, ".gemini")


def project_settings(project_root: str) -> str:
    """The project's ``.gemini/settings.json``."""
    return os.path.join(project_root, ".gemini", SETTINGS)


def system_settings(env: Mapping[str, str]) -> str:
    """Gemini's system-wide settings file (``GEMINI_CLI_SYSTEM_SETTINGS_PATH`` overrides it)."""
    override = env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH", "")
    if override:
        return override
    import sys

    if sys.platform == "darwin":
        return "/Library/Application Support/GeminiCli/settings.json"
    if sys.platform == "win32":
        return "C:\\ProgramData\\gemini-cli\\settings.json"
    return "/etc/gemini-cli/settings.json"


def _same_root(a: str, b: str) -> bool:
    """Gemini compares resolved paths (case-insensitively on Windows); links may differ on either side."""
    if os.name == "nt":
        a, b = a.lower(), b.lower()
    if os.path.normpath(a) == os.path.normpath(b):
        return True
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def _read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def _owner(tmp: str, slug: str) -> str | None:
    text = _read_text(os.path.join(tmp, slug, ".project_root"))
    return text.strip() if text is not None else None


def _projects(gemini: str) -> dict[str, Any]:
    """The ``projects`` map of ``projects.json``: absolute project root -> slug."""
    from entire_core import _json
    from entire_core.jsonvalues import obj

    text = _read_text(os.path.join(gemini, "projects.json"))
    try:
        return obj(obj(_json.loads(text)).get("projects")) if text is not None else {}
    except (ValueError, RecursionError):
        return {}


def registered_slug(gemini: str, project_root: str) -> str | None:
    """The slug ``projects.json`` maps ``project_root`` to, if its ``.project_root`` marker agrees."""
    tmp = os.path.join(gemini, "tmp")
    for root, slug in _projects(gemini).items():
        if isinstance(slug, str) and _is_slug(slug) and _same_root(root, project_root):
            owner = _owner(tmp, slug)
            if owner is None or _same_root(owner, project_root):
                return slug
    return None


def _is_slug(text: str) -> bool:
    return bool(text) and all(c.isascii() and (c.isdigit() or c.islower() or c == "-") for c in text)


def legacy_hash(project_root: str) -> str:
    """The pre-0.29 project directory name, still written as ``projectHash`` in chat headers."""
    from entire_core._digest import sha256_hex

    return sha256_hex(project_root.encode("utf-8", "surrogateescape"))


def marked_slug(gemini: str, project_root: str) -> str | None:
    """A ``tmp/<slug>`` whose ``.project_root`` marker names ``project_root`` (Gemini scans for these too)."""
    tmp = os.path.join(gemini, "tmp")
    try:
        names = sorted(os.listdir(tmp))
    except OSError:
        return None
    for name in names:
        owner = _owner(tmp, name)
        if owner is not None and _same_root(owner, project_root):
            return name
    return None


def slugify(name: str) -> str:
    """Gemini's slug of a directory name: lower case, runs of other characters become one ``-``."""
    out: list[str] = []
    for c in name.lower():
        keep = c.isascii() and (c.isdigit() or c.islower())
        if keep:
            out.append(c)
        elif out and out[-1] != "-":
            out.append("-")
    return "".join(out).strip("-") or "project"


def new_slug(gemini: str, project_root: str) -> str:
    """The slug Gemini would claim for a project it has never seen (``name``, ``name-1``, ...)."""
    base = slugify(os.path.basename(os.path.normpath(project_root)))
    taken = {str(slug) for slug in _projects(gemini).values()}
    tmp = os.path.join(gemini, "tmp")
    counter = 0
    while True:
        candidate = base if counter == 0 else f"{base}-{counter}"
        counter += 1
        owner = _owner(tmp, candidate)
        if candidate not in taken and (owner is None or _same_root(owner, project_root)):
            return candidate


def project_dir(gemini: str, project_root: str) -> tuple[str, bool]:
    """Gemini's temp directory for ``project_root`` and whether it already belongs to the project.

    Resolution order: the ``projects.json`` slug, the legacy sha256 directory, a ``.project_root``
    marker; otherwise the slug Gemini would claim (``False``: the caller must claim it).
    """
    tmp = os.path.join(gemini, "tmp")
    slug = registered_slug(gemini, project_root)
    if slug is not None:
        return os.path.join(tmp, slug), True
    legacy = os.path.join(tmp, legacy_hash(project_root))
    if os.path.isdir(legacy):
        return legacy, True
    slug = marked_slug(gemini, project_root)
    if slug is not None:
        return os.path.join(tmp, slug), True
    return os.path.join(tmp, new_slug(gemini, project_root)), False


def chats_dir(gemini: str, project_root: str) -> str:
    """Gemini's chats directory for ``project_root``, where ``gemini --resume`` looks."""
    project_tmp, _ = project_dir(gemini, project_root)
    return os.path.join(project_tmp, "chats")


def claim(project_tmp: str, project_root: str) -> None:
    """Write the ``.project_root`` marker Gemini uses to adopt a slug directory, if it has none."""
    marker = os.path.join(project_tmp, ".project_root")
    if os.path.exists(marker) or len(os.path.basename(project_tmp)) == 64:  # legacy hash dirs have none
        return
    from entire_core import fsutil

    fsutil.atomic_write(marker, project_root.encode("utf-8", "surrogateescape"))


def short_id(session_id: str) -> str:
    """The first 8 characters of a session id, as Gemini puts them in chat file names."""
    return session_id[:8]
