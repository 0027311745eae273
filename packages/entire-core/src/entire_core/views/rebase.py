"""Keeping a view within its budget: re-based at a turn's start, its largest records shortened, and what a
re-base cuts from the CLI's count carried in the new header's marker.

A re-base keeps line numbers: the view's first K lines become a header of exactly K lines
(``views.header``). It never cuts below the ``checkpoint_transcript_start`` the CLI stored for the
session while what follows it fits the budget; when it must, the marker carries the token usage a
count from that start loses (``"cut"``), which ``calculate-tokens`` adds back.
"""

from __future__ import annotations

import os

from entire_core import offsets
from entire_core.views.format import HARD_LIMIT, REBASE_AT, SHRINK_TO
from entire_core.views.wire import MARKER_PREFIX, marker, rewrap, unwrap, with_resume, wrap

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.types import TokenUsage
    from entire_core.views.format import Budget, ViewFormat, ViewOwner
    from entire_core.views.store import ViewFile


class Fitter:
    """Keeps one view file within its budget (``fit``), re-basing it (``rebase``) and shortening records."""

    def __init__(self, file: ViewFile, fmt: ViewFormat, budget: Budget, owner: ViewOwner) -> None:
        self.file = file
        self.fmt = fmt
        self.budget = budget
        self.owner = owner
        """The agent: where the CLI keeps its state, and its token counts (``ViewOwner``)."""

    def fit(self) -> None:
        """Keep the view within its budget: re-base at the turn's start, then shorten the turn's largest records."""
        m = self.file.meta
        if m.get("mirror") or int(m["view_size"]) <= self.budget.total:
            return
        turn = int(m.get("turn", -1))
        if turn > int(m["head_bytes"]):
            self.rebase(turn)
        if int(m["view_size"]) > self.budget.total:
            self._shrink()
        if int(m["view_size"]) > max(self.budget.total, HARD_LIMIT):
            # Not even shortening helps (a turn of countless small records): keep the newest part.
            cut = offsets.complete_end(
                self.file.path,
                max(int(m["head_bytes"]), int(m["view_size"]) - self.budget.total // REBASE_AT),
            )
            if cut > int(m["head_bytes"]):
                self.rebase(cut, forced=True)

    def rebase(self, cut: int, *, forced: bool = False) -> None:
        """Replace the view's lines before ``cut`` (a line start) with a header of as many lines.

        Never below the CLI's stored ``checkpoint_transcript_start`` while what follows it fits the budget.
        """
        file = self.file
        m = file.meta
        size = int(m["view_size"])
        lines = offsets.count_newlines(file.path, 0, cut)
        stored = file.host_start(self.owner.repo_root)
        if stored is not None and stored < lines and not forced:
            at = offsets.line_start_in(file.path, 0, stored)
            # What the view would hold: the lines after the stored start and a header before them.
            head = (
                int(m["head_bytes"]) if stored <= int(m.get("head_lines", 0)) else self.budget.snapshot_room
            )
            if size - at + head <= self.budget.total:
                cut, lines = at, stored
        lead = bool(m.get("lead"))
        if lines < 2 + lead or lines <= int(m.get("head_lines", 0)):
            return  # (after LEAD, a header holds at least the session's first line)
        carried_from = stored if stored is not None and stored < lines else None
        before = None
        if carried_from is not None:
            before = self._counted(file.read(), carried_from)
        with open(file.path, "rb") as f:
            first = f.readline().removesuffix(b"\n").removesuffix(b"\r")
        header = self._header(cut, lines, first, lead)
        with open(file.path, "rb") as f:
            f.seek(cut)
            body = f.read(int(m["view_size"]) - cut)
        if carried_from is not None:
            self._carry(header, body, before, carried_from)
        head = b"".join(line + b"\n" for line in header)
        turn = int(m.get("turn", -1))
        resume = m.get("resume")
        if isinstance(resume, int) and resume < lines:
            m.pop("resume", None)
        elif isinstance(resume, int):  # the new header's marker names it, as the one it replaces did
            head = with_resume(head, resume)
        m.update(head_lines=len(header), head_bytes=len(head))
        m["turn"] = len(head) + (turn - cut) if turn >= cut else -1
        file.write_whole(head + body)

    def _header(self, cut: int, lines: int, first: bytes, lead: bool) -> list[bytes]:
        """The header of ``lines`` lines that replaces the view's lines before ``cut`` (``first`` the first)."""
        from entire_core.views.header import Headers

        path = self.file.path
        headers = Headers(self.fmt, self.budget, path, self.owner.name)
        if not self.fmt.wrap:
            return headers.fitted(
                lines,
                first,
                lambda limit: headers.snapshot(path, 0, cut, first, limit),
                wrapped_first=True,
            )
        # The format's snapshot reads its own lines: the wrapped ones unwrapped into a file of their own.
        scratch = path + ".native"
        with open(scratch, "wb") as out:
            for line, _ in offsets.lines_between(path, 0, cut):
                native = unwrap(line)
                if native is not None:
                    out.write(native + b"\n")
        try:
            if lead:  # the session's first line follows LEAD
                native_first = (offsets.line_at(scratch, 0) or b"\n")[:-1].removesuffix(b"\r")
            else:
                native_first = unwrap(first) or b""
            size = os.path.getsize(scratch)
            return headers.fitted(
                lines,
                first,
                lambda limit: headers.snapshot(scratch, 0, size, native_first, limit, keep_first=lead),
                wrapped_first=True,
                lead=lead,
            )
        finally:
            from entire_core import fsutil

            fsutil.remove_file(scratch)

    def _counted(self, data: bytes, stored: int) -> tuple[TokenUsage, TokenUsage] | None:
        """What ``calculate-tokens`` and ``calculate-total-tokens --offset stored`` answer on view bytes
        ``data`` (None for an agent that counts no tokens, or bytes it cannot count)."""
        from entire_core.errors import AgentError
        from entire_core.views.frames import frame_of

        frame = frame_of(data, self.fmt.unit)
        try:
            counts = self.owner.token_counts(data, frame.local(stored))
        except (AgentError, ValueError):
            return None
        if counts is None:
            return None
        tokens = counts[0] + (frame.carried(stored) or _no_usage())
        if counts[1] is None:
            return tokens, tokens
        return tokens, counts[1] + (frame.carried(stored, total=True) or _no_usage())

    def _carry(
        self, header: list[bytes], body: bytes, before: tuple[TokenUsage, TokenUsage] | None, stored: int
    ) -> None:
        """Put into the new header's marker what a count from the CLI's stored ``stored`` loses to the
        re-base (``before``: the counts on the view being replaced), so that it answers the same on the
        new view: a session committed only at its end, past the budget, keeps its earlier turns' usage.
        The difference, not a count of the dropped lines: where a range's count depends on what precedes
        it (Codex's cumulative ``token_count``, Gemini's messages rewritten by id), those would differ."""
        at = next((i for i, line in enumerate(header) if line.startswith(MARKER_PREFIX)), None)
        if before is None or at is None:
            return
        after = self._counted(b"".join(line + b"\n" for line in header) + body, stored)
        if after is None:
            return
        tokens, total = before[0] - after[0], before[1] - after[1]
        if not (tokens.is_zero() and total.is_zero()):
            header[at] = marker(
                len(header), cut={"from": stored, "tokens": tokens.to_wire(), "total": total.to_wire()}
            )

    def _shrink(self) -> None:
        """Shorten the largest records after the turn's start (or the header), largest first, until the view fits."""
        m = self.file.meta
        start = max(int(m["head_bytes"]), int(m.get("turn", -1)))
        data = self.file.read()
        lines = data[start:].split(b"\n")
        trailing = lines.pop()  # b"" after the last newline
        over = len(data) - self.budget.total
        order = sorted(range(len(lines)), key=lambda i: len(lines[i]), reverse=True)
        for i in order:
            if over <= 0 or len(lines[i]) <= SHRINK_TO:
                break
            short = self._shorten_view_line(lines[i], SHRINK_TO)
            if short is not None and len(short) < len(lines[i]):
                over -= len(lines[i]) - len(short)
                lines[i] = short
        body = b"\n".join([*lines, trailing])
        new = data[:start] + body
        if len(new) < len(data):
            self.file.write_whole(new)

    def shrunk(self, line: bytes) -> bytes | None:
        """A view line as ``_shrink`` shortens it when its turn does not fit (None: it cannot be)."""
        return self._shorten_view_line(line, SHRINK_TO)

    def _shorten_view_line(self, line: bytes, limit: int) -> bytes | None:
        if not self.fmt.wrap:
            return self.fmt.shorten(line, limit)
        native = unwrap(line)
        if native is None:
            return None
        short = self.fmt.shorten(native, limit // 2)  # the wrapped line restates what it maps
        if short is None:
            return None
        return wrap(self.fmt, short) if self.fmt.json_records else rewrap(line, short)


def _no_usage() -> TokenUsage:
    from entire_core.types import TokenUsage

    return TokenUsage()
