"""Bounded transcript views: what the Entire CLI sees of a session, whatever the size of the agent's file.

The CLI refuses any answer over 10 MiB, and ``read-transcript`` must print the whole transcript, so a
session past that size would get no checkpoint ever again. Instead of the agent's native file the CLI
is handed a *view*: a file in the agent's own format, kept beside the plugin's other state (outside
the repository), that never grows past a budget (``ENTIRE_VIEW_BUDGET``, 8 MiB by default).

- The view is brought up to date incrementally: each call reads only the native bytes written since
  the last one. The native file is only ever read.
- A record larger than the per-record budget (``ENTIRE_VIEW_RECORD_BUDGET``) is shortened as it is
  copied, by the agent, with a visible marker that says what was cut.
- At a turn boundary, a view holding more than half its budget is *re-based*: what earlier
  checkpoints already stored is replaced by the agent's own snapshot of the conversation's effective
  history (Codex's ``compacted`` record, Gemini's ``$set.messages`` checkpoint). Within a turn the
  view only grows, so a position taken at TurnStart still holds at TurnEnd. A turn too large for the
  budget on its own has its largest records shortened, largest first.

Positions stay monotonic across re-bases. A view's header (the snapshot records) ends with a *tag*,
``entire-view:v1:<base>:<crc>``, that the agent writes into the last header record; ``base`` is the
position at which the header's body starts. A view position is ``base + (local - head)``, where
``head`` is the header's length and ``local`` the agent's own position in the view file (bytes or
lines, the agent's unit). The tag travels with the bytes, so the bytes on ``calculate-tokens``' stdin
and a view restored by ``write-session`` on another machine carry their own frame. A file without a
tag has ``base = head = 0``: positions are the agent's own.

An agent supplies a ``ViewFormat``: how to write its snapshot and how to shorten a record. Core does
the rest: location, locking, the incremental copy, budgets, re-base scheduling and positions.

Crash safety: the view's metadata (``.meta/<key>.json``) is the commit point. An append that was not
committed is cut off again; a rewritten view is prepared as ``<view>.next``, the metadata names it,
and only then is it renamed into place, so a process killed anywhere leaves a view that the next
call repairs. Concurrent hooks are serialised by ``.meta/<key>.lock``.
"""

from __future__ import annotations

import os

from entire_core import offsets

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

    from entire_core.agent import Agent as ViewOwner

    # The tools a ViewFormat cuts with, re-exported (loaded on first use by ``__getattr__`` below).
    from entire_core.cutting import MARKER as MARKER
    from entire_core.cutting import MIN_KEEP as MIN_KEEP
    from entire_core.cutting import Path as Path
    from entire_core.cutting import StringCutter as StringCutter
    from entire_core.cutting import TextCutter as TextCutter
    from entire_core.cutting import cut_text as cut_text
    from entire_core.cutting import shorten_json as shorten_json
    from entire_core.cutting import shorten_value as shorten_value

BUDGET_ENV = "ENTIRE_VIEW_BUDGET"
RECORD_BUDGET_ENV = "ENTIRE_VIEW_RECORD_BUDGET"
DEFAULT_BUDGET = 8 << 20
"""Under the CLI's 10 MiB answer limit, with room for the records a turn appends after a sync."""
DEFAULT_RECORD_BUDGET = 1 << 20
MIN_BUDGET = 4 << 10
REBASE_AT = 2
"""At a turn boundary, a view holding more than ``budget // REBASE_AT`` bytes is re-based."""
HUGE_RECORD = 8 << 20
"""A record larger than this is cut as it is read (``StringCutter``, ``TextCutter``), never held whole."""
HUGE_KEEP = 4 << 10
"""What each long string of such a record keeps: a record that size restates bulk (a whole history)."""
SNAPSHOT_SHARE = 4
"""A snapshot may take a quarter of the budget, so that a re-based view has room for turns to come."""
HARD_LIMIT = (10 << 20) - (256 << 10)
"""Past the budget, a turn's own records are kept whole up to this size, just under the CLI's limit."""
SHRINK_TO = 2 << 10
"""What a record is shortened to when a turn alone does not fit the budget."""
KEEP_SECONDS = 14 * 24 * 3600
"""Views untouched this long belong to sessions long over and are removed."""
TAG_PREFIX = b"entire-view:v1:"
TAG_LINES = 8
"""The tag is looked for in the first lines only: a header is a few records long."""
_BLOCK = 1 << 20
_FLUSH = 4 << 20
BYTES, LINES = "bytes", "lines"


class ViewFormat:
    """What an agent tells core about its transcript format: a snapshot and a way to shorten."""

    unit: ClassVar[str] = BYTES
    """The agent's position unit: ``"bytes"`` (offsets after a complete line) or ``"lines"``."""
    json_records: ClassVar[bool] = True
    """Records are JSON (one per line): a record too large to parse has its long strings cut as it is read."""
    header_lines: ClassVar[int] = TAG_LINES
    """How many records a snapshot may have: the tag is looked for in that many first lines."""

    def snapshot(self, path: str, end: int, tag: str, limit: int) -> list[bytes]:
        """Header records (complete lines without their newline) restating ``path[:end]``.

        The first record must be the file's own first line (its session header). ``tag`` must appear,
        verbatim and once, in the last record. The records together should stay under ``limit``
        bytes: shorten what they restate if needed. ``end`` is a byte offset at a line start.
        """
        raise NotImplementedError

    def shorten(self, record: bytes, limit: int) -> bytes | None:
        """``record`` cut to at most about ``limit`` bytes with a visible marker, or None when it may not be cut.

        Prompts, file changes, token counters, summaries and subagent links are never cut.
        """
        raise NotImplementedError

    def accepts(self, native: str) -> bool:
        """Whether ``native`` can be viewed; a file it cannot is mirrored whole (``whole``)."""
        return True

    def whole(self, native: str) -> bytes | None:
        """The bytes of a file this format does not view, for its mirror (None: none yet)."""
        try:
            with open(native, "rb") as f:
                return f.read()
        except OSError:
            return None


class Budget:
    """The view's byte budget and the per-record budget, from the environment."""

    __slots__ = ("record", "total")

    def __init__(self, env: Mapping[str, str]) -> None:
        self.total = max(MIN_BUDGET, _env_int(env, BUDGET_ENV, DEFAULT_BUDGET))
        self.record = max(
            MIN_BUDGET // 4, _env_int(env, RECORD_BUDGET_ENV, min(DEFAULT_RECORD_BUDGET, self.total // 8))
        )


def _env_int(env: Mapping[str, str], name: str, default: int) -> int:
    value = env.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        from entire_core.errors import InvalidInput

        raise InvalidInput(f"{name} must be a number of bytes, got {value!r}") from None
    return number if number > 0 else default


_CUTTING = frozenset(
    ["MARKER", "MIN_KEEP", "Path", "StringCutter", "TextCutter", "cut_text", "shorten_json", "shorten_value"]
)


def __getattr__(name: str) -> object:
    """The cutting tools, re-exported so that an agent imports ``views`` alone, loaded only when a record is cut."""
    if name in _CUTTING:
        from entire_core import cutting

        return getattr(cutting, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# -- frames: from view positions to the agent's own, and back -------------------------------------------


class Frame:
    """Where a view's body starts: its ``base`` position and its header length (bytes and units)."""

    __slots__ = ("base", "head_bytes", "head_units")

    def __init__(self, base: int = 0, head_bytes: int = 0, head_units: int = 0) -> None:
        self.base = base
        self.head_bytes = head_bytes
        self.head_units = head_units

    def local(self, position: int) -> int:
        """The agent's own position in the view file for a view position (an older one: the body's start)."""
        if position <= self.base:
            return self.head_units
        return self.head_units + (position - self.base)

    def position(self, local: int) -> int:
        """The view position of the agent's own position ``local``."""
        return self.base + max(0, local - self.head_units)


def make_tag(base: int, first_line: bytes) -> str:
    """The tag a header ends with: its base position, tied to the file's first line by a checksum."""
    import zlib

    return f"{TAG_PREFIX.decode()}{base}:{zlib.crc32(first_line) & 0xFFFFFFFF:08x}"


def frame_of(data: bytes, unit: str, lines: int = TAG_LINES) -> Frame:
    """The frame of view bytes (the stdin of ``calculate-tokens``); no tag means no header.

    The tag is looked for in the first ``lines`` lines (the format's ``header_lines``).
    """
    if TAG_PREFIX not in data:
        return Frame()
    import zlib

    first_end = data.find(b"\n")
    first = data if first_end < 0 else data[:first_end]
    position = 0
    for _ in range(lines):
        end = data.find(b"\n", position)
        if end < 0:
            return Frame()
        line = data[position:end]
        at = line.find(TAG_PREFIX)
        if at >= 0:
            base, _, check = line[at + len(TAG_PREFIX) : at + len(TAG_PREFIX) + 29].partition(b":")
            if base.isdigit() and check[:8] == b"%08x" % (zlib.crc32(first.removesuffix(b"\r")) & 0xFFFFFFFF):
                head = end + 1
                units = head if unit == BYTES else data.count(b"\n", 0, head)
                return Frame(int(base), head, units)
        position = end + 1
    return Frame()


def frame_of_file(path: str, unit: str, lines: int = TAG_LINES) -> Frame:
    """The frame of a view file, reading only its first ``lines`` lines."""
    try:
        with open(path, "rb") as f:
            head = [f.readline() for _ in range(lines)]
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return Frame()
    return frame_of(b"".join(head), unit, lines)


# -- where views live -----------------------------------------------------------------------------------


def views_dir(env: Mapping[str, str], agent_name: str, repo_root: str) -> str:
    """The directory of one repository's views (``get-session-dir``): outside the repository."""
    from entire_core._digest import sha256_hex
    from entire_core.paths import state_dir

    real = os.path.normcase(os.path.realpath(repo_root))
    digest = sha256_hex(real.encode("utf-8", "surrogateescape"))[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in os.path.basename(real))[:40]
    return os.path.join(state_dir(env, agent_name), "views", f"{name}-{digest}")


def is_view_path(agent: ViewOwner, path: str) -> bool:
    """True when ``path`` names a file in one of this plugin's view directories."""
    from entire_core.paths import state_dir

    root = os.path.join(state_dir(agent.env, agent.name), "views")
    parent = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    return os.path.normcase(parent) == os.path.normcase(os.path.abspath(root))


# -- the view -------------------------------------------------------------------------------------------


class View:
    """One session's view file and its metadata. Use as ``with View(...) as view:`` (holds the lock)."""

    def __init__(self, agent: ViewOwner, fmt: ViewFormat, path: str) -> None:
        self.agent = agent
        self.fmt = fmt
        self.path = path
        directory, name = os.path.split(path)
        key = name[: -len(agent.session_file_suffix)] if name.endswith(agent.session_file_suffix) else name
        self.meta_path = os.path.join(directory, ".meta", key + ".json")
        self.next_path = path + ".next"
        self.budget = Budget(agent.env)
        self.meta: dict[str, Any] = {}
        self._lock: Any = None

    @classmethod
    def for_session(cls, agent: ViewOwner, fmt: ViewFormat, session_id: str) -> View:
        from entire_core import validate

        directory = views_dir(agent.env, agent.name, agent.repo_root)
        return cls(
            agent, fmt, os.path.join(directory, validate.session_id(session_id) + agent.session_file_suffix)
        )

    def __enter__(self) -> View:
        from entire_core import locks

        self._lock = locks.exclusive(self.meta_path[: -len(".json")] + ".lock")
        self._lock.__enter__()
        self.meta = self._load()
        return self

    def __exit__(self, *exc: object) -> None:
        self._lock.__exit__(*exc)

    # -- metadata ----------------------------------------------------------------------------------------

    def _load(self) -> dict[str, Any]:
        from entire_core import _json, jsonvalues

        try:
            with open(self.meta_path, "rb") as f:
                meta = jsonvalues.obj(_json.loads(f.read()))
        except (OSError, ValueError):
            return {}
        return meta if meta.get("v") == 1 else {}

    def _save(self, *, durable: bool = False) -> None:
        """Commit the metadata. Appends need not survive a power loss: the next call copies them again
        from the native file; a rewrite's commit (``durable``) does, since it names ``<view>.next``."""
        import time

        from entire_core import _json, fsutil

        self.meta["v"] = 1
        self.meta["touched"] = int(time.time())
        fsutil.atomic_write(self.meta_path, _json.dumps_state(self.meta).encode("utf-8"), durable=durable)

    @property
    def exists(self) -> bool:
        return bool(self.meta)

    @property
    def native(self) -> str:
        return str(self.meta.get("native") or "")

    def frame(self) -> Frame:
        m = self.meta
        if not m:
            return frame_of_file(self.path, self.fmt.unit, self.fmt.header_lines)
        return Frame(int(m["base"]), int(m["head_bytes"]), int(m["head_units"]))

    def end(self) -> int:
        """The view position of the view's end."""
        return self.frame().position(int(self.meta.get("view_units", 0)))

    # -- keeping the view consistent -------------------------------------------------------------------

    def _recover(self) -> bool:
        """Repair what a killed process left; False when only a rebuild can help."""
        m = self.meta
        want = m.get("view_id")
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            st = None
        if st is None or [st.st_dev, st.st_ino] != want:
            try:
                nxt = os.stat(self.next_path)
            except FileNotFoundError:
                return False
            if [nxt.st_dev, nxt.st_ino] != want:
                return False
            os.replace(self.next_path, self.path)
            st = os.stat(self.path)
        size = int(m.get("view_size", 0))
        if st.st_size < size:
            return False
        if st.st_size > size:  # an append that was never committed
            with open(self.path, "r+b") as f:
                f.truncate(size)
        return True

    def sync(
        self, native: str | None = None, *, start: int = 0, upto: int | None = None, commit: bool = True
    ) -> None:
        """Bring the view up to date with ``native`` (the recorded native file and start when None).

        ``start`` is where the session begins in the native file and ``upto`` where to stop (the
        default: its last complete line); a view kept ``upto`` a point does not follow the file later.
        ``commit=False`` leaves an append's commit (``_save``) to the caller's next step, which must save.
        """
        m = self.meta
        if native is None:
            if not m or not m.get("follow", True):
                return
            native, start = self.native, int(m["native_start"])
        native = os.path.abspath(native)
        if m and not self._recover():
            self._rebuild(native, start, upto, reason="repair")
            return
        if not m or m.get("native") != native or int(m.get("native_start", 0)) != start:
            self._rebuild(native, start, upto, reason="new")
            return
        try:
            st = os.stat(native)
        except FileNotFoundError:
            return  # the agent may not have written it yet, or deleted it: keep what we have
        if m.get("mirror"):
            self._mirror(native, st)
            return
        consumed = int(m["native_end"])
        # The same file goes on where we stopped: its bytes there are the ones we read (an inode
        # can be reused at once by a recreated file; an atomic rewrite keeps the bytes, not the inode).
        mark = m.get("native_mark")
        same = st.st_size >= consumed and mark == _mark(native, start, consumed, crc=_is_crc_mark(mark))
        if not same:
            self._rebuild(native, start, upto, reason="replaced")
            return
        end = offsets.complete_end(native) if upto is None else min(upto, st.st_size)
        if (
            end <= consumed
            and m.get("follow", True) == (upto is None)
            and m.get("native_id") == [st.st_dev, st.st_ino]
        ):
            return
        m["follow"] = upto is None
        m["native_id"] = [st.st_dev, st.st_ino]
        if end > consumed:
            self._append(native, consumed, end)
        m["native_mark"] = _mark(native, start, int(m["native_end"]))
        self._fit()
        if commit:
            self._save()

    def _mirror(self, native: str, st: os.stat_result | None) -> None:
        """A native file in a format the agent does not view: the view is a whole copy of it."""
        import zlib

        m = self.meta
        data = self.fmt.whole(native) if st is not None else None
        if data is None:
            if m.get("mirror"):
                return  # nothing readable now: keep what we have
            data = b""  # a first mirror of a file not readable yet: empty until it is
        stamp = [st.st_dev, st.st_ino, len(data), zlib.crc32(data)]  # pyright: ignore[reportOptionalMemberAccess]
        if m.get("mirror") and m.get("native_id") == stamp:
            return
        m.update(mirror=True, native_id=stamp, native_end=len(data), base=0, head_bytes=0, head_units=0)
        self._write_whole(data, len(data) if self.fmt.unit == BYTES else data.count(b"\n"))

    def _rebuild(self, native: str, start: int, upto: int | None, *, reason: str) -> None:
        """Make the view anew from ``native``: a snapshot of what no longer fits, then the recent tail.

        Positions go on from where the old view ended, so the CLI's stored positions stay comparable.
        """
        old_end = self.end() if self.meta else 0
        m: dict[str, Any] = {"native": native, "native_start": start, "follow": upto is None, "turn": -1}
        self.meta = m
        st: os.stat_result | None
        try:
            st = os.stat(native)
        except FileNotFoundError:
            st = None
        end = 0 if st is None else (offsets.complete_end(native) if upto is None else min(upto, st.st_size))
        if st is not None and not self.fmt.accepts(native):
            self._mirror(native, st)
            self._save()
            return
        m["native_id"] = [st.st_dev, st.st_ino] if st is not None else None
        cut = start
        if end - start > self.budget.total // REBASE_AT:
            cut = offsets.complete_end(native, max(start, end - self.budget.total // (2 * REBASE_AT)))
        opening = _first_line(native, start) if st is not None and (cut > start or old_end > 0) else None
        header: list[bytes] = []
        base = 0
        if opening is not None:
            # The header restates the session's first line: the body starts after it (and its \r\n).
            first = opening[:-1].removesuffix(b"\r")
            cut = max(cut, start + len(opening))
            # Any base at least the native position at the cut keeps positions growing from the
            # agent's own (a line count never exceeds the byte offset): no need to count lines.
            base = max(old_end, cut - start)
            header = self._snapshot(native, cut, base, first)
        else:
            cut = start
        head = b"".join(line + b"\n" for line in header)
        head_units = len(head) if self.fmt.unit == BYTES else len(header)
        m.update(base=base, head_bytes=len(head), head_units=head_units, native_end=cut)
        self._write_whole(head, head_units)
        if end > cut:
            self._append(native, cut, end)
        m["native_mark"] = _mark(native, start, int(m["native_end"]))
        self._fit()
        self._save()
        if reason == "new":
            self._sweep()

    def _snapshot(self, path: str, end: int, base: int, first: bytes) -> list[bytes]:
        tag = make_tag(base, first)
        header = self.fmt.snapshot(path, end, tag, self.budget.total // SNAPSHOT_SHARE)
        if (
            not header
            or header[0] != first
            or tag.encode() not in header[-1]
            or len(header) > self.fmt.header_lines
        ):
            from entire_core.errors import AgentError

            raise AgentError(
                f"{self.agent.name}: the view snapshot does not start with the session header and end with"
                f" its tag within {self.fmt.header_lines} records"
            )
        return header

    def _write_whole(self, data: bytes, units: int) -> None:
        """Replace the view with ``data`` through ``<view>.next``, committing through the metadata."""
        from entire_core import fsutil

        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fsutil.remove_file(self.next_path)
        fd = os.open(self.next_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
            st = os.fstat(fd)
        finally:
            os.close(fd)
        self.meta.update(view_id=[st.st_dev, st.st_ino], view_size=len(data), view_units=units)
        self._save(durable=True)
        os.replace(self.next_path, self.path)

    def _append(self, native: str, begin: int, end: int) -> None:
        """Copy native lines ``[begin, end)`` to the view, shortening oversized records, in bounded memory.

        Every full ``_FLUSH`` of records is committed as it is written; the last, short one is left
        for the caller to commit with the rest of its update (until then the next call cuts it off).
        """
        m = self.meta
        record_limit = self.budget.record
        pending: list[bytes] = []
        size = lines = 0

        def flush(*, commit: bool) -> None:
            nonlocal size, lines
            if not pending:
                return
            with open(self.path, "r+b") as f:
                f.seek(int(m["view_size"]))
                f.writelines(pending)
                f.truncate()
            m["view_size"] = int(m["view_size"]) + size
            m["view_units"] = int(m["view_units"]) + lines if self.fmt.unit == LINES else m["view_size"]
            # What a commit from here on says was read: without it the next call takes the file for another.
            m["native_mark"] = _mark(native, int(m["native_start"]), int(m["native_end"]))
            pending.clear()
            size = lines = 0
            if commit:
                self._save()
            if int(m["view_size"]) > self.budget.total:
                self._fit()

        def cutter() -> object:  # only for a record over HUGE_RECORD
            from entire_core.cutting import MIN_KEEP, StringCutter, TextCutter

            keep = min(max(MIN_KEEP, record_limit // 4), HUGE_KEEP)
            return StringCutter(keep) if self.fmt.json_records else TextCutter(keep)

        for line, stop in offsets.lines_between(native, begin, end, huge=HUGE_RECORD, cutter=cutter):
            if len(line) > record_limit:
                short = self.fmt.shorten(line.removesuffix(b"\r"), record_limit)
                if short is not None and len(short) < len(line):
                    line = short
            pending += (line, b"\n")
            size += len(line) + 1
            lines += 1
            m["native_end"] = stop
            del line
            if size >= _FLUSH:
                flush(commit=True)
        flush(commit=False)
        m["native_end"] = max(int(m["native_end"]), begin)

    # -- the budget ----------------------------------------------------------------------------------------

    def turn_started(self) -> None:
        """A turn starts: re-base when the view holds more than half its budget, then mark the turn."""
        m = self.meta
        if m.get("mirror"):
            return  # a whole copy of a file the format does not view: nothing to re-base
        if int(m.get("view_size", 0)) > self.budget.total // REBASE_AT:
            self._rebase(int(m["view_size"]))
        m["turn"] = int(m["view_size"])
        self._save()

    def _fit(self) -> None:
        """Keep the view within its budget: re-base at the turn's start, then shorten the turn's largest records."""
        m = self.meta
        if m.get("mirror") or int(m["view_size"]) <= self.budget.total:
            return
        turn = int(m.get("turn", -1))
        if turn > int(m["head_bytes"]):
            self._rebase(turn)
        if int(m["view_size"]) > self.budget.total:
            self._shrink()
        if int(m["view_size"]) > max(self.budget.total, HARD_LIMIT):
            # Not even shortening helps (a turn of countless small records): keep the newest part.
            cut = offsets.complete_end(
                self.path, max(int(m["head_bytes"]), int(m["view_size"]) - self.budget.total // REBASE_AT)
            )
            if cut > int(m["head_bytes"]):
                self._rebase(cut)

    def _rebase(self, cut: int) -> None:
        """Replace the view's bytes before ``cut`` (a line start) with the agent's snapshot of them."""
        m = self.meta
        frame = self.frame()
        with open(self.path, "rb") as f:
            first = f.readline().removesuffix(b"\n").removesuffix(b"\r")
        local = cut if self.fmt.unit == BYTES else _units_between(self.path, 0, cut, LINES)
        base = frame.position(local)
        header = self._snapshot(self.path, cut, base, first)
        head = b"".join(line + b"\n" for line in header)
        with open(self.path, "rb") as f:
            f.seek(cut)
            body = f.read()
        head_units = len(head) if self.fmt.unit == BYTES else len(header)
        body_units = len(body) if self.fmt.unit == BYTES else body.count(b"\n")
        turn = int(m.get("turn", -1))
        m.update(base=base, head_bytes=len(head), head_units=head_units)
        m["turn"] = len(head) + (turn - cut) if turn >= cut else -1
        self._write_whole(head + body, head_units + body_units)

    def _shrink(self) -> None:
        """Shorten the largest records after the turn's start (or the header), largest first, until the view fits."""
        m = self.meta
        start = max(int(m["head_bytes"]), int(m.get("turn", -1)))
        with open(self.path, "rb") as f:
            data = f.read()
        lines = data[start:].split(b"\n")
        trailing = lines.pop()  # b"" after the last newline
        over = len(data) - self.budget.total
        order = sorted(range(len(lines)), key=lambda i: len(lines[i]), reverse=True)
        for i in order:
            if over <= 0 or len(lines[i]) <= SHRINK_TO:
                break
            short = self.fmt.shorten(lines[i], SHRINK_TO)
            if short is not None and len(short) < len(lines[i]):
                over -= len(lines[i]) - len(short)
                lines[i] = short
        body = b"\n".join([*lines, trailing])
        new = data[:start] + body
        if len(new) < len(data):
            units = len(new) if self.fmt.unit == BYTES else int(m["view_units"])
            self._write_whole(new, units)

    # -- maintenance ------------------------------------------------------------------------------------

    def _sweep(self) -> None:
        """Remove views of sessions untouched for ``KEEP_SECONDS`` (best effort)."""
        import time

        from entire_core import fsutil

        meta_dir = os.path.dirname(self.meta_path)
        cutoff = time.time() - KEEP_SECONDS
        try:
            names = os.listdir(meta_dir)
        except OSError:
            return
        for name in names:
            if not name.endswith(".json") or os.path.join(meta_dir, name) == self.meta_path:
                continue
            meta = os.path.join(meta_dir, name)
            try:
                if os.stat(meta).st_mtime >= cutoff:
                    continue
                key = name[: -len(".json")]
                view = os.path.join(os.path.dirname(meta_dir), key + self.agent.session_file_suffix)
                for path in (view, view + ".next", meta, meta[: -len(".json")] + ".lock"):
                    fsutil.remove_file(path)
            except OSError:
                continue

    def adopt(self, native: str, data: bytes) -> None:
        """After ``write-session``: the view holds ``data``, which was just written to ``native`` too."""
        frame = frame_of(data, self.fmt.unit, self.fmt.header_lines)
        end = len(data)
        try:
            st = os.stat(native)
            native_id: list[int] | None = [st.st_dev, st.st_ino]
        except FileNotFoundError:
            native_id = None
        units = end if self.fmt.unit == BYTES else data.count(b"\n")
        self.meta = {
            # Bytes that do not end a line cannot be followed: the agent's next record would join them.
            "native": os.path.abspath(native), "native_id": native_id, "native_start": 0,
            "follow": data.endswith(b"\n") or not data,
            "native_end": end, "turn": -1,
            "base": frame.base, "head_bytes": frame.head_bytes, "head_units": frame.head_units,
        }  # fmt: skip
        self.meta["native_mark"] = _mark(native, 0, end)
        if native_id is not None and not self.fmt.accepts(native):
            import zlib

            self.meta.update(mirror=True, native_id=[*native_id, len(data), zlib.crc32(data)])
        self._write_whole(data, units)


# -- reading native files ---------------------------------------------------------------------------------


def _mark(path: str, start: int, end: int, *, crc: bool = False) -> str:
    """A fingerprint of ``path`` up to ``end``: its session's first bytes and the bytes before ``end``.

    ``crc`` makes the form that views of 0.1 stored, CRC-32s; it loads zlib, which most Python builds
    keep in a shared library, so a hook paid that on every call. Today's form needs no module.
    """
    try:
        with open(path, "rb") as f:
            f.seek(start)
            head = f.read(min(4096, end - start))
            f.seek(max(start, end - 4096))
            tail = f.read(end - max(start, end - 4096))
    except OSError:
        return ""
    if crc:
        import zlib

        return f"{end}:{zlib.crc32(head):08x}:{zlib.crc32(tail):08x}"
    return f"{end}:{_fingerprint(head):016x}:{_fingerprint(tail):016x}"


_MERSENNE_61 = (1 << 61) - 1


def _fingerprint(data: bytes) -> int:
    """``data`` as a number modulo a 61-bit prime: two different blocks agree by chance once in 2**61.

    The leading 1 keeps leading zero bytes, so blocks of different lengths differ.
    """
    return int.from_bytes(b"\x01" + data, "big") % _MERSENNE_61


def _is_crc_mark(mark: object) -> bool:
    """Whether a stored mark has the 0.1 form (8 hex digits a part), checked with that form until renewed."""
    return isinstance(mark, str) and len(mark.rpartition(":")[2]) == 8


def _units_between(path: str, begin: int, end: int, unit: str) -> int:
    if unit == BYTES:
        return end - begin
    count = 0
    with open(path, "rb") as f:
        f.seek(begin)
        remaining = end - begin
        while remaining > 0:
            block = f.read(min(_BLOCK, remaining))
            if not block:
                break
            remaining -= len(block)
            count += block.count(b"\n")
    return count


def _first_line(path: str, start: int) -> bytes | None:
    """The complete line at ``start``, newline included; None when there is none within 64 MiB."""
    try:
        with open(path, "rb") as f:
            f.seek(start)
            line = f.readline(1 << 26)
    except OSError:
        return None
    return line if line.endswith(b"\n") else None


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
        return view.path


def refreshed(agent: ViewOwner, path: str) -> View | None:
    """For a subcommand given a view path: the view, brought up to date (None for any other path)."""
    fmt = agent.view_format()
    if fmt is None or not is_view_path(agent, path):
        return None
    view = View(agent, fmt, path)
    with view:
        if view.exists:
            view.sync()
    return view


def native_of(agent: ViewOwner, path: str) -> str:
    """The native file behind a view path (the path itself for anything else)."""
    fmt = agent.view_format()
    if fmt is None or not is_view_path(agent, path):
        return path
    view = View(agent, fmt, path)
    meta = view._load()  # pyright: ignore[reportPrivateUsage]
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
