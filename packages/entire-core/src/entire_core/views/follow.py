"""Following the agent's native file: one view line per native line, copied as the agent appends them,
in bounded memory; the view made anew when the file is not the one it followed (a header restating what
no longer fits, then the recent tail); a file the format does not view mirrored whole; and the mark that
tells whether the file is still the one the view follows.

A record larger than the per-record budget is shortened as it is copied, by the agent's format, with a
visible marker that says what was cut. A view past its budget is fitted (``views.rebase``) as it grows.
"""

from __future__ import annotations

import os

from entire_core import offsets
from entire_core.views.format import HARD_LIMIT, HUGE_KEEP, HUGE_RECORD, REBASE_AT
from entire_core.views.wire import LEAD, rewrap, wrap

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.views.format import Budget, ViewFormat, ViewOwner
    from entire_core.views.rebase import Fitter
    from entire_core.views.store import ViewFile

_FLUSH = 4 << 20
_MERSENNE_61 = (1 << 61) - 1


def native_mark(path: str, start: int, end: int, *, crc: bool = False) -> str:
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


def _fingerprint(data: bytes) -> int:
    """``data`` as a number modulo a 61-bit prime: two different blocks agree by chance once in 2**61.

    The leading 1 keeps leading zero bytes, so blocks of different lengths differ.
    """
    return int.from_bytes(b"\x01" + data, "big") % _MERSENNE_61


def is_crc_mark(mark: object) -> bool:
    """Whether a stored mark has the 0.1 form (8 hex digits a part), checked with that form until renewed."""
    return isinstance(mark, str) and len(mark.rpartition(":")[2]) == 8


class Follower:
    """Follows the agent's native file into one view file: copies what was appended (``append``), makes
    the view anew when the file is not the one it followed (``rebuild``), or mirrors a file it cannot view."""

    def __init__(
        self,
        file: ViewFile,
        fmt: ViewFormat,
        budget: Budget,
        owner: ViewOwner,
        fitter: Fitter,
    ) -> None:
        self.file = file
        self.fmt = fmt
        self.budget = budget
        self.owner = owner
        """The agent: where the CLI keeps its state (``ViewOwner``)."""
        self.fitter = fitter
        """What keeps the view within its budget as a long append grows it."""

    def catch_up(self, native: str | None, *, start: int, upto: int | None, commit: bool) -> None:
        """Bring the view up to date with ``native`` (the recorded native file and start when None): append
        what is new, or make the view anew when the file is not the one it followed (``View.sync``)."""
        file = self.file
        m = file.meta
        if native is None:
            if not m or not m.get("follow", True):
                return
            native, start = str(m.get("native") or ""), int(m["native_start"])
        native = os.path.abspath(native)
        if m and not file.recover():
            lead = bool(m.get("lead"))
            file.meta = {}  # the same file, the view lost: line N is native line N (N - 1 after LEAD) again
            self.rebuild(native, start, upto, lead=lead)
            return
        if not m or m.get("native") != native or int(m.get("native_start", 0)) != start:
            self.rebuild(native, start, upto, new=True)
            return
        try:
            st = os.stat(native)
        except FileNotFoundError:
            return  # the agent may not have written it yet, or deleted it: keep what we have
        if m.get("mirror"):
            self.mirror(native, st)
            return
        consumed = int(m["native_end"])
        # The same file goes on where we stopped: its bytes there are the ones we read (an inode
        # can be reused at once by a recreated file; an atomic rewrite keeps the bytes, not the inode).
        mark = m.get("native_mark")
        same = st.st_size >= consumed and mark == native_mark(native, start, consumed, crc=is_crc_mark(mark))
        if not same:
            self.rebuild(native, start, upto)
            return
        end = _end_of(native, upto, st)
        if (
            end <= consumed
            and m.get("follow", True) == (upto is None)
            and m.get("native_id") == [st.st_dev, st.st_ino]
        ):
            return
        m["follow"] = upto is None
        m["native_id"] = [st.st_dev, st.st_ino]
        if end > consumed:
            self.append(native, consumed, end)
        m["native_mark"] = native_mark(native, start, int(m["native_end"]))
        self.fitter.fit()
        if commit:
            file.save()

    def rebuild(
        self,
        native: str,
        start: int,
        upto: int | None,
        *,
        new: bool = False,
        resume_at: int | None = None,
        lead: bool | None = None,
    ) -> None:
        """Make the view anew from ``native``: a header restating what no longer fits, then the recent tail.

        Line N of the view is line N of the native file's session (shifted past the old view's end when
        one is replaced), or N - 1 in a view that starts with ``LEAD`` (``lead``; by default, when the
        view replaced did). ``resume_at`` (a v1 upgrade): the
        native byte where a turn in progress starts (-1: none), where offsets past the end resume.
        """
        file = self.file
        # A view made anew after another (the agent replaced its file) starts its body no earlier than
        # where the old one ended: a line the CLI stored for the old view never points into the new body.
        floor = file.lines() if file.meta else 0
        shift = int(bool(file.meta.get("lead")) if lead is None else lead)
        turn_line = self._turn_line(native, start)
        m: dict[str, Any] = {"native": native, "native_start": start, "follow": upto is None, "turn": -1}
        if shift:
            m["lead"] = 1
        file.meta = m
        st: os.stat_result | None
        try:
            st = os.stat(native)
        except FileNotFoundError:
            st = None
        end = _end_of(native, upto, st)
        if st is not None and self.mirror(native, st, unless_viewed=True):
            file.save()
            return
        m["native_id"] = [st.st_dev, st.st_ino] if st is not None else None
        cut = start
        if end - start > self.budget.total // REBASE_AT:
            cut = offsets.complete_end(native, max(start, end - self.budget.total // (2 * REBASE_AT)))
        if resume_at is not None and resume_at >= 0 and end - resume_at <= self.budget.total:
            cut = min(cut, resume_at)  # the turn in progress stays whole
        turn_at = (
            offsets.line_start_in(native, start, max(0, turn_line - shift)) if turn_line is not None else None
        )
        if turn_at is not None and turn_at < cut and end - turn_at <= HARD_LIMIT:
            cut = turn_at  # the turn in progress stays whole (its start is where the CLI counts from)
        lines_before = offsets.count_newlines(native, start, cut) if cut > start else 0
        stored = file.host_start(self.owner.repo_root)
        if stored is not None and stored - shift < lines_before:
            at = offsets.line_start_in(native, start, max(0, stored - shift))
            if end - at + self.budget.snapshot_room <= self.budget.total:
                cut, lines_before = at, max(0, stored - shift)
        header: list[bytes] = [LEAD] if shift else []
        opening = offsets.line_at(native, start) if st is not None and floor > lines_before + shift else None
        if opening is not None:
            cut = max(cut, start + len(opening))
            lines_before = max(offsets.count_newlines(native, start, cut), floor - shift)
        if lines_before >= 2 and st is not None:
            first = (offsets.line_at(native, start) or b"\n")[:-1].removesuffix(b"\r")
            from entire_core.views.header import Headers

            headers = Headers(self.fmt, self.budget, file.path, self.owner.name)
            header = headers.fitted(
                lines_before + shift,
                LEAD if shift else first,
                lambda limit: headers.snapshot(native, start, cut, first, limit, keep_first=bool(shift)),
                wrapped_first=bool(shift),
                lead=bool(shift),
            )
        else:
            cut = start
        head = b"".join(line + b"\n" for line in header)
        # A view of LEAD alone has no header: its body starts at line 0.
        body = len(header) if len(header) > shift else 0
        m.update(head_lines=body, head_bytes=len(head) if body else 0, native_end=cut)
        file.write_whole(head)
        if end > cut:
            self.append(native, cut, end)
        m["native_end"] = max(int(m["native_end"]), cut)
        # A v1 upgrade: the view line where its turn in progress resumes, counted before the mark is taken.
        kept_turn = None
        if resume_at is not None and resume_at >= 0:
            kept_turn = len(header) + offsets.count_newlines(native, cut, max(cut, resume_at))
        m["native_mark"] = native_mark(native, start, int(m["native_end"]))
        if resume_at is not None:
            m["resume"] = resume = file.lines() if kept_turn is None else kept_turn
            if header:  # the marker names it, and grows: the view's byte positions are read after
                file.set_resume(resume)
                m["head_bytes"] = offsets.line_start_in(file.path, 0, body) if body else 0
        if turn_line is not None and turn_line >= len(header):
            m["turn"] = offsets.line_start_in(file.path, 0, turn_line)
        if kept_turn is not None:
            m["turn"] = offsets.line_start_in(file.path, 0, kept_turn)
        self.fitter.fit()
        file.save()
        if new:
            file.sweep()

    def cutter(self) -> object:
        """What reads a record over ``HUGE_RECORD`` (``offsets.lines_between``), keeping what the format keeps."""
        from entire_core.cutting import MIN_KEEP, StringCutter, TextCutter

        keep = min(max(MIN_KEEP, self.budget.record // 4), HUGE_KEEP)
        return StringCutter(keep) if self.fmt.json_records else TextCutter(keep)

    def _turn_line(self, native: str, start: int) -> int | None:
        """The line the turn in progress starts at, when the view being replaced followed the same file."""
        m = self.file.meta
        turn = m.get("turn", -1)
        if not m or m.get("mirror") or m.get("native") != native or m.get("native_start", 0) != start:
            return None
        if not isinstance(turn, int) or turn < 0:
            return None
        try:
            return offsets.count_newlines(self.file.path, 0, turn) if turn else 0
        except OSError:
            return None

    def append(self, native: str, begin: int, end: int) -> None:
        """Copy native lines ``[begin, end)`` to the view, one view line each, in bounded memory.

        Every full ``_FLUSH`` of records is committed as it is written; the last, short one is left
        for the caller to commit with the rest of its update (until then the next call cuts it off).
        """
        file = self.file
        m = file.meta
        record_limit = self.budget.record
        pending: list[bytes] = []
        size = lines = 0

        reads_text = self.fmt.wrap and not self.fmt.json_records
        if reads_text:
            self.fmt.state = m.get("wrap_state")

        def flush(*, commit: bool) -> None:
            nonlocal size, lines
            if not pending:
                return
            if reads_text:
                m["wrap_state"] = self.fmt.state
            committed = int(m["view_size"])
            try:
                with open(file.path, "r+b") as f:
                    f.seek(committed)
                    f.writelines(pending)
                    f.truncate()
            except OSError:  # a full disk: what was written of the append goes, so that no line is left torn
                try:  # noqa: SIM105 - contextlib would be one more import
                    os.truncate(file.path, committed)
                except OSError:
                    pass  # the next call's recover cuts it off
                raise
            m["view_size"] = committed + size
            m["view_lines"] = int(m["view_lines"]) + lines
            m["pad"] = 0  # written over
            # What a commit from here on says was read: without it the next call takes the file for another.
            m["native_mark"] = native_mark(native, int(m["native_start"]), int(m["native_end"]))
            pending.clear()
            size = lines = 0
            if commit:
                file.save()
            if int(m["view_size"]) > self.budget.total:
                self.fitter.fit()

        for line, stop in offsets.lines_between(native, begin, end, huge=HUGE_RECORD, cutter=self.cutter):
            line = self.line_for_view(line, record_limit)
            pending += (line, b"\n")
            size += len(line) + 1
            lines += 1
            m["native_end"] = stop
            del line
            if size >= _FLUSH:
                flush(commit=True)
        flush(commit=False)
        m["native_end"] = max(int(m["native_end"]), begin)

    def line_for_view(self, line: bytes, limit: int) -> bytes:
        """A native line as the view holds it: shortened past ``limit``, wrapped for a wrapped format.

        A wrapped line restates the text it maps next to the native record: the native record is cut
        to half the limit when the wrapped line would be over it.
        """
        if len(line) > limit:
            short = self.fmt.shorten(line.removesuffix(b"\r"), limit)
            if short is not None and len(short) < len(line):
                line = short
        if not self.fmt.wrap:
            return line
        wrapped = wrap(self.fmt, line)
        if len(wrapped) > limit and len(line) > limit // 2:
            short = self.fmt.shorten(line.removesuffix(b"\r"), limit // 2)
            if short is not None and len(short) < len(line):
                wrapped = wrap(self.fmt, short) if self.fmt.json_records else rewrap(wrapped, short)
        return wrapped

    def mirror(self, native: str, st: os.stat_result, *, unless_viewed: bool = False) -> bool:
        """A native file in a format the agent does not view: the view is a whole copy of it.

        ``unless_viewed``: only when the format does not view ``native``. True when the view is a mirror.
        """
        if unless_viewed and self.fmt.accepts(native):
            return False
        import zlib

        m = self.file.meta
        data = self.fmt.whole(native)
        if data is None:
            if m.get("mirror"):
                return True  # nothing readable now: keep what we have
            data = b""  # a first mirror of a file not readable yet: empty until it is
        stamp = [st.st_dev, st.st_ino, len(data), zlib.crc32(data)]
        if m.get("mirror") and m.get("native_id") == stamp:
            return True

        m.update(mirror=True, native_id=stamp, native_end=len(data), head_lines=0, head_bytes=0)
        self.file.write_whole(data)
        return True


def _end_of(native: str, upto: int | None, st: os.stat_result | None) -> int:
    """Where a view's copy of ``native`` stops: after its last complete line, or at ``upto``; 0 without a file."""
    if st is None:
        return 0
    return offsets.complete_end(native) if upto is None else min(upto, st.st_size)
