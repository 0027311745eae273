"""A viewed chat file that Gemini deleted or recreated without its history, put back from the view.

Gemini's start-up clean-up can delete a running session's chat file, and the running Gemini then
recreates it with ``appendFileSync``: only the lines written since, no header (``sessionfile``'s
docstring). Core follows the native file by identity, so it would rebuild the view from that
recreated file: a view without a header and without the history it held. Before core looks at the
file (in parse-hook, and in prepare-transcript), the plugin puts the chat back instead: the view's
bytes (a complete Gemini chat, re-based on a ``$set.messages`` checkpoint when large) followed by the
lines Gemini wrote to the recreated file, written to the native path and adopted by the view. Gemini
appends to that file from then on, and ``gemini --resume`` finds the session again.

A file that is simply missing is put back the same way at a turn's start and end (as
``sessionfile.prepare`` did before views), but not at other events: Gemini may not have written a
new session's file yet, and a session the user deleted between runs stays deleted.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent


def view_path(agent: Agent, session_id: str) -> str:
    """Where core keeps the view of ``session_id`` for this repository."""
    from entire_core import validate, views

    return os.path.join(
        views.views_dir(agent.env, agent.name, agent.repo_root),
        validate.session_id(session_id) + agent.session_file_suffix,
    )


def meta_path(view: str) -> str:
    """The metadata file core keeps beside ``view``."""
    directory, name = os.path.split(view)
    return os.path.join(directory, ".meta", name.rsplit(".", 1)[0] + ".json")


def view_following(agent: Agent, native: str) -> str | None:
    """The view whose native file is ``native``, if this repository has one."""
    from entire_core import _json, views

    directory = views.views_dir(agent.env, agent.name, agent.repo_root)
    meta_dir = os.path.join(directory, ".meta")
    try:
        names = sorted(n for n in os.listdir(meta_dir) if n.endswith(".json"))
    except OSError:
        return None
    wanted = os.path.abspath(native)
    for name in names:
        try:
            with open(os.path.join(meta_dir, name), "rb") as f:
                meta = _json.loads(f.read())
        except (OSError, ValueError):
            continue
        if isinstance(meta, dict) and meta.get("native") == wanted:  # pyright: ignore[reportUnknownMemberType]
            return os.path.join(directory, name[: -len(".json")] + agent.session_file_suffix)
    return None


def _first_line(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.readline(1 << 16)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def _complete_bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        data = f.read()
    return data[: data.rfind(b"\n") + 1]


def put_back(agent: Agent, view: str, native: str, *, missing: bool) -> bool:
    """Put ``native`` back from ``view`` when Gemini recreated it headless (or, with ``missing``, deleted it).

    True when the chat was put back. Nothing happens unless the view follows ``native`` and starts
    with a session header while the file at ``native`` does not (a Gemini chat always does).
    """
    if not os.path.isfile(meta_path(view)):
        return False
    from entire_core import fsutil, views

    from entire_agent_google_gemini import sessionfile
    from entire_agent_google_gemini.view import is_legacy_head

    fmt = agent.view_format()
    if fmt is None:
        return False
    native = os.path.abspath(native)
    with views.View(agent, fmt, view) as v:
        m = v.meta
        if not m or m.get("native") != native or not int(m.get("view_size", 0)):
            return False
        try:
            st = os.stat(native)
        except FileNotFoundError:
            st = None
        if st is None and not missing:
            return False
        if st is not None:
            # Not by identity: a deleted file's inode is often reused at once for the recreated one.
            first = _first_line(native)
            if first is None or sessionfile.header_session(first) is not None or is_legacy_head(first, b""):
                return False  # a chat of its own (Gemini replaced it): core makes the view anew
        try:
            with open(v.path, "rb") as f:
                data = f.read(int(m["view_size"]))
        except OSError:
            return False
        restored = views.native_bytes(data, fmt.wrap)  # the chat's own lines, out of the view's
        if sessionfile.header_session(restored) is None:
            return False
        appended = _complete_bytes(native) if st is not None else b""
        fsutil.atomic_write(native, restored + appended)
        v.adopt(native, data, native_end=len(restored))
        if appended:
            v.sync(native)  # the lines Gemini wrote since, each as its view line
    return True
