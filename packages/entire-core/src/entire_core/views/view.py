"""The view of one session, kept up with the agent's native file, and what the subcommands call.

A hook brings the view up to date (``attach``: ``View.sync``, then ``turn_started`` or ``turn_ended``);
a transcript subcommand given a view path does the same first (``refreshed``). The view reads only what
the agent appended since the last call, and is made anew from the native file when it is not the
one the view followed any more.
"""

from __future__ import annotations

import os

from entire_core.views.format import REBASE_AT, Budget
from entire_core.views.store import ViewFile, is_view_path, views_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.views.format import ViewFormat, ViewOwner
    from entire_core.views.frames import Frame


class View:
    """One session's view file and its metadata. Use as ``with View(...) as view:`` (holds the lock).

    Its parts: the file and its metadata (``ViewFile``), what follows the agent's file into it, copying
    what is new or making it anew (``Follower``), and what keeps it within its budget (``Fitter``); the
    two make its headers alike (``views.header``).
    """

    def __init__(self, agent: ViewOwner, fmt: ViewFormat, path: str) -> None:
        # Loaded with the first view: a subcommand handed another path needs none of it.
        from entire_core.views.follow import Follower
        from entire_core.views.rebase import Fitter

        self.agent = agent
        self.fmt = fmt
        self.file = ViewFile(path, agent.session_file_suffix)
        self.budget = Budget(agent.env)
        fmt.record_budget = self.budget.record
        self.fitter = Fitter(self.file, fmt, self.budget, agent)
        self.follower = Follower(self.file, fmt, self.budget, agent, self.fitter)
        self._lock: Any = None

    @classmethod
    def for_session(cls, agent: ViewOwner, fmt: ViewFormat, session_id: str) -> View:
        """The view of ``session_id`` in the repository's view directory."""
        from entire_core import validate

        directory = views_dir(agent.env, agent.name, agent.repo_root)
        return cls(
            agent, fmt, os.path.join(directory, validate.session_id(session_id) + agent.session_file_suffix)
        )

    def __enter__(self) -> View:
        from entire_core import locks

        self._lock = locks.exclusive(self.file.meta_path[: -len(".json")] + ".lock")
        self._lock.__enter__()
        self.file.meta = self.file.load()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.__exit__(*exc)

    @property
    def path(self) -> str:
        """The view file: the transcript path the CLI is handed."""
        return self.file.path

    @property
    def meta(self) -> dict[str, Any]:
        """The view's metadata (``ViewFile.meta``)."""
        return self.file.meta

    @property
    def legacy(self) -> dict[str, Any]:
        """The metadata of a v1 view, until it is rebuilt (``views.legacy``)."""
        return self.file.legacy

    @property
    def exists(self) -> bool:
        """Whether the view has metadata (of v2, or of v1 still to rebuild)."""
        return bool(self.file.meta) or bool(self.file.legacy)

    @property
    def native(self) -> str:
        """The native file the view follows."""
        return str(self.file.meta.get("native") or self.file.legacy.get("native") or "")

    def frame(self) -> Frame:
        """The view's frame: its body's start, its end, where old offsets resume."""
        from entire_core.views.frames import Frame, file_starts, frame_of_file

        m = self.file.meta
        if not m:
            return frame_of_file(self.file.path, self.fmt.unit)
        resume = m.get("resume")
        return Frame(
            int(m.get("head_lines", 0)),
            self.file.lines(),
            int(resume) if isinstance(resume, int) else None,
            file_starts(self.file.path, self.fmt.unit),
        )

    def lines(self) -> int:
        """The view's length in lines, as the CLI counts them (a view ending in blank lines: without them)."""
        return self.file.lines()

    def end(self) -> int:
        """The view position of the view's end (its line count)."""
        return self.file.lines()

    def host_start(self) -> int | None:
        """The ``checkpoint_transcript_start`` the CLI stored for this session, when it is about this view."""
        return self.file.host_start(self.agent.repo_root)

    # -- keeping up with the native file -----------------------------------------------------------------

    def sync(
        self, native: str | None = None, *, start: int = 0, upto: int | None = None, commit: bool = True
    ) -> None:
        """Bring the view up to date with ``native`` (the recorded native file and start when None).

        ``start`` is where the session begins in the native file and ``upto`` where to stop (the
        default: its last complete line); a view kept ``upto`` a point does not follow the file later.
        ``commit=False`` leaves an append's commit (``save``) to the caller's next step, which must save.
        """
        if self.file.legacy:
            self._upgrade(native, start, upto)
            return
        if native is not None and not self.file.meta:  # lost, or never made: read back when there is a view
            from entire_core.views.reclaim import reclaim

            native = os.path.abspath(native)
            if self.fmt.accepts(native):
                reclaim(self.follower, native, start, upto)
        self.follower.catch_up(native, start=start, upto=upto, commit=commit)

    def _upgrade(self, native: str | None, start: int, upto: int | None) -> None:
        """A v1 view: rebuilt as v2, keeping a turn in progress (offsets the CLI took in v1 resume there)."""
        old = self.file.legacy
        if native is None:
            native, start = str(old.get("native") or ""), int(old.get("native_start", 0))
        if not native:
            return
        from entire_core.views import legacy

        native = os.path.abspath(native)
        self.file.legacy = {}
        resume_at = legacy.resume_at(self.file.path, old, native, start)
        self.follower.rebuild(native, start, upto, new=True, resume_at=resume_at)

    # -- turns ------------------------------------------------------------------------------------------

    def turn_started(self) -> None:
        """A turn starts: re-base when the view holds more than half its budget, then mark the turn.

        A wrapped view that holds nothing yet (the agent writes its file after the prompt's hook) gets
        ``LEAD`` as its first line, so that the turn starts at line 1: the CLI reads a start of 0 as none
        and counts the turn from its ``checkpoint_transcript_start``, which a commit the agent makes in
        that turn moves past the turn's prompt. A native view's lines are all the agent's own.
        """
        m = self.file.meta
        if m.get("mirror"):
            return  # a whole copy of a file the format does not view: nothing to re-base
        if int(m.get("view_size", 0)) > self.budget.total // REBASE_AT:
            self.fitter.rebase(int(m["view_size"]))
        if self.fmt.wrap and int(m.get("view_size", 0)) == 0 and m:
            from entire_core.views.wire import LEAD

            m["lead"] = 1
            self.file.write_whole(LEAD + b"\n")
        m["turn"] = int(m["view_size"])
        self.file.save()

    def turn_ended(self) -> None:
        """A turn ends: keep the view larger in bytes than the CLI last stored it, when it has lines since.

        The CLI copies the view at TurnEnd, and at a later commit of an idle or ended session finds new
        work only when that copy is larger in *bytes* than the view at its last condensation
        (``checkpoint_transcript_size``; v0.10.3, ``sessionHasNewContent``). A view re-based since is
        shorter in bytes though longer in lines, and that commit would name a checkpoint the CLI never
        writes. So the view is followed by just enough spaces (``pad``) after its last line: the CLI
        counts no line there (trailing blank lines are dropped), its readers skip blank lines, and the
        next append writes over them. Set anew at every TurnEnd, the padding keeps the view a byte a
        turn past its size at the last commit, never more: the budget still bounds it.
        """
        file = self.file
        m = file.meta
        if m.get("mirror") or not m:
            return
        pad = 0
        state = file.host_state(self.agent.repo_root)
        if state is not None:
            start, stored = state.get("checkpoint_transcript_start"), state.get("checkpoint_transcript_size")
            if isinstance(start, int) and isinstance(stored, int) and stored > 0 and file.lines() > start:
                pad = max(0, stored + 1 - int(m["view_size"]))
        if pad != int(m.get("pad", 0)):
            with open(file.path, "r+b") as f:
                f.seek(int(m["view_size"]))
                f.write(b" " * pad)
                f.truncate()
            m["pad"] = pad
            file.save()

    def adopt(self, native: str, data: bytes, *, native_end: int | None = None) -> None:
        """After ``write-session``: the view holds ``data``; ``native`` was just written from it (``native_bytes``).

        ``native_end``: where in ``native`` what ``data`` holds ends, when more follows (the next sync copies it).
        """
        from entire_core import offsets
        from entire_core.views.follow import native_mark
        from entire_core.views.wire import LEAD, head_lines_of, unpadded

        data = unpadded(data)  # a checkpoint of a padded view: its spaces are no part of the session
        try:
            st = os.stat(native)
            native_id: list[int] | None = [st.st_dev, st.st_ino]
            native_size = st.st_size if native_end is None else min(native_end, st.st_size)
        except FileNotFoundError:
            native_id = None
            native_size = 0
        head = head_lines_of(data)
        file = self.file
        file.legacy = {}
        lead = data.split(b"\n", 1)[0].removesuffix(b"\r") == LEAD
        file.meta = {
            # Bytes that do not end a line cannot be followed: the agent's next record would join them.
            "native": os.path.abspath(native), "native_id": native_id, "native_start": 0,
            "follow": data.endswith(b"\n") or not data,
            "native_end": native_size, "turn": -1,
            "head_lines": head, "head_bytes": offsets.line_start(data, head),
            **({"lead": 1} if lead else {}),
        }  # fmt: skip
        file.meta["native_mark"] = native_mark(native, 0, native_size)
        if native_id is not None and not self.fmt.accepts(native):
            import zlib

            file.meta.update(mirror=True, native_id=[*native_id, len(data), zlib.crc32(data)])
        file.write_whole(data)


# -- what the subcommands call ----------------------------------------------------------------------------


def attach(
    agent: ViewOwner, session_id: str, native: str, kind: int, *, start: int = 0, upto: int | None = None
) -> str:
    """The view path to hand the CLI for a hook event on ``native``, brought up to date for it."""
    from entire_core.types import EventType

    fmt = agent.view_format()
    if fmt is None or not native:
        return native
    with View.for_session(agent, fmt, session_id) as view:
        turn_start = kind == EventType.TURN_START
        view.sync(native, start=start, upto=upto, commit=not turn_start)
        if turn_start:
            view.turn_started()  # commits the sync's update with its own
        elif kind == EventType.TURN_END:
            view.turn_ended()
        return view.path


def refreshed(agent: ViewOwner, path: str, *, sync: bool = True) -> View | None:
    """For a subcommand given a view path: the view, brought up to date (None for any other path).

    ``sync=False`` (``get-transcript-position``) answers the view as it stands: a v1 view is still
    rebuilt, but nothing the agent wrote since the last hook is taken in.
    """
    fmt = agent.view_format()
    if fmt is None or not is_view_path(agent, path):
        return None
    view = View(agent, fmt, path)
    with view:
        if view.exists and (sync or view.legacy):
            view.sync()
    return view


def native_of(agent: ViewOwner, path: str) -> str:
    """The native file behind a view path (the path itself for anything else)."""
    fmt = agent.view_format()
    if fmt is None or not is_view_path(agent, path):
        return path
    file = View(agent, fmt, path).file
    meta = file.load() or file.legacy
    return str(meta.get("native") or path)


def native_subagents_dir(agent: ViewOwner, subagents_dir: str) -> str:
    """``<views>/<session>/subagents`` (what the CLI derives from a view) as ``<dir of native>/<session>/subagents``."""
    norm = os.path.normpath(subagents_dir)
    session_dir = os.path.dirname(norm) if os.path.basename(norm) == "subagents" else norm
    view = os.path.join(
        os.path.dirname(session_dir), os.path.basename(session_dir) + agent.session_file_suffix
    )
    if not is_view_path(agent, view):
        return subagents_dir
    native = native_of(agent, view)
    if native == view:
        return subagents_dir
    return os.path.join(os.path.dirname(native), os.path.basename(session_dir), "subagents")
