"""Views against what a user relies on, read back record by record against the native file.

Each record of the native transcript is ``{"i": n, ...}``. The test format's snapshot says up to which
record it restates (``upto``) and with which limit it was asked; a record it shortens becomes
``{"i": n, "cut": <its length>, "to": <the limit>}``. So after every call the view can be checked
against the native file it follows (``Transcript.check``):

- the frame a call computes from the metadata is the frame the bytes carry (``calculate-tokens`` reads
  the bytes), the view's end is its line count as the CLI counts it, and it never goes back;
- the header is exactly as many lines as it replaced (the first line, blank padding, the marker naming
  the body's start, the snapshot), so a record keeps its line: native record N is view line N;
- the header restates the session's first line and every record before the body, the body holds every
  later record once, in order, up to the native file's last complete line: nothing lost, nothing twice;
- a record is shortened exactly when it is over the record budget, or later, when its turn does not
  fit the budget, to 2 KiB, largest first; a record the format may not cut stays whole;
- a position taken at a turn's start still points at the turn's first record;
- past the budget, only the turn is kept, and nothing in it could be cut more.

The sessions run at tiny budgets, in both position units, with formats that cut, refuse, or give back
a record as long as it was; the numbers a README documents are checked at their exact edges.
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
import socket
from pathlib import Path
from typing import Any

import pytest
from entire_core import offsets, views
from entire_core.errors import AgentError
from entire_core.testing import host
from entire_core.types import EventType, TokenUsage
from entire_core.views.format import MIN_BUDGET
from entire_core.views.header import Headers
from entire_core.views.rebase import Fitter
from entire_core.views.store import ViewFile

SESSION = "m-1"
FIRST = b'{"i": 0, "session": "m-1"}'
HARD_LIMIT = (10 << 20) - (256 << 10)
"""Just under the CLI's 10 MiB answer limit: a turn's own records are kept whole up to this size."""


@pytest.fixture(autouse=True)
def _no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """Durability is checked where it is the point (``test_a_rewrite_is_committed_durably_...``); here a
    shared disk's fsyncs would only make every session slower."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


def record(i: int, size: int, *, keep: bool = False) -> bytes:
    """Record ``i``, exactly ``size`` bytes long; ``keep``: one the format may not cut (a prompt)."""
    fields: dict[str, Any] = {"i": i, "keep": 1} if keep else {"i": i}
    empty = len(json.dumps({**fields, "p": ""}))
    assert size >= empty, size
    return json.dumps({**fields, "p": "x" * (size - empty)}).encode()


def head_bytes(data: bytes) -> int:
    """Where the body of view bytes starts, in bytes."""
    return offsets.line_start(data, views.head_lines_of(data))


def restated(line: bytes) -> int:
    """The last native record a view line stands for."""
    value = json.loads(line)
    return int(value["upto"] if "upto" in value else value["i"])


def shortened(i: int, length: int, limit: int) -> bytes:
    return json.dumps({"i": i, "cut": length, "to": limit}).encode()


class ModelFormat(views.ViewFormat):
    """Snapshots that say what they restate; shortening that says what it cut (or refuses, or fails to)."""

    def __init__(self, unit: str = views.BYTES, mode: str = "cut", *, accepts: bool = True) -> None:
        self.unit = unit  # pyright: ignore[reportAttributeAccessIssue]
        self.mode = mode
        self.accept = accepts
        self.snapshots: list[tuple[str, int, int]] = []
        self.asked: list[tuple[int, int]] = []

    native, start = "", 0
    """Where the session starts in the native file (a view's starts at 0), as Aider's format knows it."""

    def snapshot(self, path: str, end: int, limit: int) -> list[bytes]:
        begin = self.start if path == self.native else 0
        with open(path, "rb") as f:
            f.seek(begin)
            data = f.read(end - begin)
        first, *rest = data.split(b"\n")
        earlier = [line for line in rest if line.strip()]
        self.snapshots.append((path, end, limit))
        upto = restated(earlier[-1]) if earlier else 0
        return [first.removesuffix(b"\r"), json.dumps({"upto": upto, "limit": limit}).encode()]

    def shorten(self, record: bytes, limit: int) -> bytes | None:
        value = json.loads(record)
        self.asked.append((len(record), limit))
        if self.mode == "none" or value.get("keep"):
            return None
        short = shortened(value["i"], len(record), limit)
        return short.ljust(len(record)) if self.mode == "same" else short

    def accepts(self, native: str) -> bool:
        return self.accept


class Owner:
    """What views need of an agent (``ViewOwner``), without the dispatcher."""

    name = "model"
    session_file_suffix = ".jsonl"

    def __init__(self, root: Path, fmt: views.ViewFormat, *, budget: int = 0, record: int = 0) -> None:
        self.env = {"HOME": str(root / "home"), "XDG_STATE_HOME": str(root / "state")}
        if budget:
            self.env[views.BUDGET_ENV] = str(budget)
        if record:
            self.env[views.RECORD_BUDGET_ENV] = str(record)
        self.repo_root = str(root / "repo")
        self.fmt = fmt

    def view_format(self) -> views.ViewFormat:
        return self.fmt

    def token_counts(self, transcript: bytes, offset: int) -> None:
        return None  # counts no tokens


class Transcript:
    """A native transcript growing, the calls the CLI makes on it, and what each must leave."""

    def __init__(self, root: Path, *, unit: str = views.BYTES, budget: int = 4096, record: int = 0,
                 mode: str = "cut", before: bytes = b"", first: bytes = FIRST, accepts: bool = True) -> None:  # fmt: skip
        root.mkdir(parents=True, exist_ok=True)
        self.fmt = ModelFormat(unit, mode, accepts=accepts)
        self.owner = Owner(root, self.fmt, budget=budget, record=record)
        self.limits = views.Budget(self.owner.env)
        self.native = root / "native.jsonl"
        self.start = len(before)  # where the session starts in the native file (Aider keeps them all in one)
        self.fmt.native, self.fmt.start = str(self.native), self.start
        self.first = first
        self.native.write_bytes(before + first + b"\n")
        self.count = 1  # records written, the first line included
        self.upto: int | None = None
        self.partial = False
        self.path = ""
        self.end = 0  # the newest view position handed out
        self.turn_at: tuple[int, int] | None = None  # the position at TurnStart, the turn's first record
        self.synced = 0  # the records the view has seen
        self.shift = (
            0  # how far view lines are from native records (a replaced file goes on after the old view)
        )

    # -- what the agent does ---------------------------------------------------------------------

    def records(self, *sizes: int, keep: bool = False) -> bytes:
        """The next records, one of each size."""
        found = b"".join(record(self.count + n, size, keep=keep) + b"\n" for n, size in enumerate(sizes))
        self.count += len(sizes)
        return found

    def fill(self, size: int, piece: int = 900) -> None:
        """Records (of at most ``piece`` bytes a line) that bring the session to exactly ``size`` bytes."""
        remaining = size - (self.native.stat().st_size - self.start)
        count = -(-remaining // piece)
        lines = [remaining // count + (n < remaining % count) for n in range(count)]
        self.append(*[line - 1 for line in lines])
        assert self.native.stat().st_size - self.start == size

    def append(self, *sizes: int, keep: bool = False) -> None:
        with self.native.open("ab") as f:
            if self.partial:
                f.write(b"\n")
                self.partial = False
            f.write(self.records(*sizes, keep=keep))

    def begin(self, size: int) -> None:
        """A record still being written: no newline yet."""
        self.append()
        with self.native.open("ab") as f:
            f.write(self.records(size)[:-1])
        self.partial = True

    def replace(self, *sizes: int) -> None:
        """The agent starts its file again: a new file at the same path."""
        self.count, self.partial, self.turn_at = 1, False, None
        self.shift = -1  # unknown until the new view is seen
        fresh = self.native.with_suffix(".new")
        fresh.write_bytes(self.native.read_bytes()[: self.start] + self.first + b"\n" + self.records(*sizes))
        os.replace(fresh, self.native)

    # -- what the CLI calls ----------------------------------------------------------------------

    def hook(self, kind: int = EventType.TOOL_USE, *, check: bool = True) -> bytes:
        self.path = views.attach(
            self.owner, SESSION, str(self.native), kind, start=self.start, upto=self.upto
        )
        return self.check() if check else self.view()

    def turn(self) -> bytes:
        """TurnStart, after the hooks before it: a view over half its budget is re-based, others are kept."""
        before = self.hook()
        self.turn_at = None
        data = self.hook(EventType.TURN_START)
        if len(before) > self.limits.total // 2:
            assert data[head_bytes(data) :] == b""
            assert data.startswith(self.first.removesuffix(b"\r") + b"\n")
        else:
            assert data == before
        self.turn_at = (self.end, self.synced)
        return data

    def refresh(self) -> bytes:
        assert views.refreshed(self.owner, self.path) is not None
        return self.check()

    def idle(self) -> None:
        """A call with nothing new writes nothing: no metadata rewrite, the same view."""
        meta, data = self.meta_path.stat(), self.view()
        self.refresh()
        self.hook()
        assert self.view() == data
        after = self.meta_path.stat()
        assert (after.st_ino, after.st_mtime_ns) == (meta.st_ino, meta.st_mtime_ns)

    # -- what the view must hold -----------------------------------------------------------------

    def view(self) -> bytes:
        return Path(self.path).read_bytes()

    @property
    def meta_path(self) -> Path:
        return Path(self.path).parent / ".meta" / (SESSION + ".json")

    def meta(self) -> dict[str, Any]:
        return json.loads(self.meta_path.read_bytes())

    def cuttable(self, original: bytes) -> bool:
        return self.fmt.mode == "cut" and b'"keep"' not in original

    def check(self) -> bytes:
        data = self.view()
        unit = self.fmt.unit
        with views.View(self.owner, self.fmt, self.path) as view:
            frame, end = view.frame(), view.end()
        carried = views.frame_of(data, unit)
        assert frame.body == carried.body and frame.end == views.host_lines(data)
        assert carried.end == (frame.end if frame.body else None)
        assert end == views.host_lines(data)
        last, self.end = self.end, end
        lines = self.native.read_bytes()[self.start : self.upto].split(b"\n")[:-1]
        self.synced = len(lines)
        all_lines = data.split(b"\n")[:-1]
        header, body = all_lines[: frame.body], all_lines[frame.body :]
        first = 0
        if header:
            assert header[0] == lines[0].removesuffix(b"\r")
            mark = next(i for i, line in enumerate(header) if line.startswith(views.MARKER_PREFIX))
            assert all(line == b"" for line in header[1:mark]) and mark >= 1
            assert json.loads(header[mark])["body"] == len(header)
            if mark < len(header) - 1:
                snapshot = json.loads(header[-1])
                assert snapshot["limit"] == self.limits.total // 4
                first = snapshot["upto"] + 1
            else:
                first = restated(body[0]) if body else len(lines)
        elif body:
            assert body.pop(0) == lines[0]  # no header: the session's own first line
            first = 1
        assert [restated(line) for line in body] == list(range(first, len(lines)))
        # Line numbering: a record keeps its line (after a replaced file, shifted by a constant).
        if body:
            shift = frame.body + (0 if header else 1) - restated(body[0])
            if self.shift < 0:
                self.shift = shift
            assert shift == self.shift, "a record keeps its line"
        over = len(data) > self.limits.total
        for line in body:
            value = json.loads(line)
            original = lines[value["i"]]
            if "cut" in value:
                assert self.cuttable(original) and value["cut"] == len(original)
                if value["to"] != self.limits.record:
                    assert value["to"] == 2048 and 2048 < len(original) <= self.limits.record
                else:
                    assert len(original) > self.limits.record
            else:
                assert line == original
                assert len(original) <= self.limits.record or not self.cuttable(original)
                assert not over or len(line) <= 2048 or not self.cuttable(original)
        # Positions (lines) only grow.
        assert end >= last, "positions only grow"
        if self.turn_at is not None:
            position, index = self.turn_at
            line = frame.line(position)
            # (A view of an empty first line alone counts no line, as the CLI counts: the turn's
            # position is then that blank line's.)
            if line == 0 and all_lines[:1] == [b""]:
                line = 1
            after = all_lines[line:]
            turn = list(range(index, len(lines)))
            kept = [restated(line) for line in after]
            # The whole turn, or (past the CLI's limit) its newest records after the header.
            body_start = frame.body or 1  # without a header, the body starts after the session's first line
            assert kept == turn or (line == body_start and kept == turn[len(turn) - len(kept) :])
            assert not over or line == body_start, "past the budget, only the turn is kept"
        return data


# -- every step of many sessions ---------------------------------------------------------------------

CONFIGS = {
    "bytes": {"unit": views.BYTES},
    "lines": {"unit": views.LINES},
    "bytes-8k": {"unit": views.BYTES, "budget": 8192, "record": 3000},
    "lines-8k": {"unit": views.LINES, "budget": 8192, "record": 3000},
    "refusing": {"unit": views.BYTES, "budget": 8192, "record": 3000, "mode": "none"},
    "not-shorter": {"unit": views.LINES, "budget": 8192, "record": 3000, "mode": "same"},
    "after-another": {"unit": views.BYTES, "budget": 8192, "record": 3000, "before": b"other\n" * 9},
    "empty-first": {"unit": views.LINES, "first": b""},
    "crlf-first": {"unit": views.BYTES, "first": FIRST + b"\r"},
}
STEPS = ["append"] * 8 + ["hook"] * 4 + ["turn"] * 3 + ["refresh"] * 2 + ["keep", "begin", "idle", "replace"]


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_every_view_a_session_goes_through_holds_what_it_promises(tmp_path: Path, config: Any) -> None:
    for seed in range(5):
        rng = random.Random(seed)
        t = Transcript(tmp_path / str(seed), **config)
        r = t.limits.record
        sizes = [30, 200, 700, 1000, r - 1, r, r + 1, 2047, 2048, 2049, 2600, 5000]
        t.hook(EventType.SESSION_START)
        for _ in range(40):
            step = rng.choice(STEPS)
            if step == "append":
                t.append(*rng.choices(sizes, k=rng.randint(1, 3)))
            elif step == "keep":
                t.append(rng.choice([2600, 5000]), keep=True)
            elif step == "begin":
                t.begin(rng.choice(sizes))
            elif step == "replace":
                old, seen = t.end, t.native.read_bytes()[: t.meta()["native_end"]]
                t.replace(*rng.choices(sizes, k=rng.randint(0, 2)))
                data = t.hook()
                if not t.native.read_bytes().startswith(seen):  # else the file goes on from what was read
                    assert views.frame_of(data, t.fmt.unit).body >= old, "a new view goes on from the old end"
            elif step == "idle":
                t.hook()
                t.idle()
            else:
                getattr(t, step)()


# -- the documented numbers, at their edges ------------------------------------------------------------


@pytest.mark.parametrize("unit", [views.BYTES, views.LINES])
def test_a_turn_starts_on_a_view_of_half_its_budget_as_it_is_and_re_bases_one_byte_more(
    tmp_path: Path, unit: str
) -> None:
    for extra in (0, 1):
        t = Transcript(tmp_path / str(extra), unit=unit, budget=8192, record=8192)
        t.hook()
        t.fill(4096 + extra)
        data = t.turn()  # which checks: kept as it was, or only a header left
        assert (head_bytes(data) > 0) == bool(extra)


@pytest.mark.parametrize("before", [b"", b"another session\n" * 3], ids=["alone", "after-another"])
def test_a_first_view_of_a_long_session_keeps_the_lines_of_its_last_quarter_budget(
    tmp_path: Path, before: bytes
) -> None:
    """Up to half the budget a session is viewed whole; one byte more, and the body starts at the line
    holding the byte a quarter budget before the end. Positions are the session's own lines."""
    for extra in (0, 1):
        t = Transcript(tmp_path / str(extra), budget=8192, record=8192, before=before)
        t.fill(4096 + extra, piece=500)
        data = t.hook()
        session = t.native.read_bytes()[t.start :]
        frame = views.frame_of(data, views.BYTES)
        cut = session.rfind(b"\n", 0, len(session) - 2048) + 1 if extra else 0
        assert data[head_bytes(data) :] == session[cut:]
        assert (frame.body, t.end) == (session[:cut].count(b"\n"), session.count(b"\n"))


def marker_keeps(text: str) -> int:
    """How many bytes of a string cut by ``views.MARKER`` were kept."""
    cut, total = map(int, re.findall(r"\[entire: (\d+) of (\d+) bytes cut here", text)[0])
    return total - cut


def test_a_record_over_8_mib_is_cut_as_it_is_read_its_fields_kept_its_strings_to_4_kib(
    tmp_path: Path,
) -> None:
    t = Transcript(tmp_path / "default", budget=8 << 20)
    t.hook()
    t.append(8 << 20)  # exactly 8 MiB: shortened by the format, as any record over the record budget
    half = (8 << 20) // 2
    huge = json.dumps({"i": 2, "a": "x" * half, "path": "f.txt", "b": "y" * half}).encode()
    with t.native.open("ab") as f:
        f.write(huge + b"\n")
    lines = t.hook(check=False).split(b"\n")
    assert lines[1] == shortened(1, 8 << 20, 1 << 20)
    value = json.loads(lines[2])
    assert (value["i"], value["path"]) == (2, "f.txt")  # each long string cut, the rest as it was
    assert marker_keeps(value["a"]) == marker_keeps(value["b"]) == 4096
    # With a small record budget, each string keeps a quarter of it: the record fits once cut.
    t = Transcript(tmp_path / "small", budget=8 << 20, record=8192)
    t.hook()
    with t.native.open("ab") as f:
        f.write(huge.replace(b'"i": 2', b'"i": 1') + b"\n")
    value = json.loads(t.hook(check=False).split(b"\n")[1])
    assert marker_keeps(value["a"]) == marker_keeps(value["b"]) == 2048 and value["path"] == "f.txt"


def keep_records(size: int) -> list[int]:
    """Record sizes (lines of at most 1 MiB) that fill ``size`` bytes."""
    count = -(-size // (1 << 20))
    return [size // count + (n < size % count) - 1 for n in range(count)]


@pytest.mark.parametrize("extra", [0, 1])
def test_a_turn_that_may_not_be_cut_is_kept_whole_up_to_just_under_10_mib(tmp_path: Path, extra: int) -> None:
    t = Transcript(tmp_path, budget=4096)
    t.hook()
    t.append(3000, keep=True)
    t.turn()  # re-based: the turn starts right after the header
    last = [3000, 3000, 3000]
    t.append(*keep_records(HARD_LIMIT + extra - len(t.view()) - 3 * 3001), keep=True)
    t.append(*last, keep=True)
    data = t.hook()  # which checks that the header restates every record before the body
    if extra:  # past the limit: only the newest half budget (the line holding its first byte on)
        assert data[head_bytes(data) :] == record(t.count - 1, 3000, keep=True) + b"\n"
    else:
        assert len(data) == HARD_LIMIT


def test_a_hook_killed_while_copying_keeps_each_4_mib_it_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hooks have timeouts: a burst too large to copy in one goes on from what the last one committed."""
    t = Transcript(tmp_path, budget=8 << 20)
    t.hook()
    start = t.native.stat().st_size
    t.append(*[(1 << 20) - 1] * 4, 100, 100)  # exactly 4 MiB of lines, then two more
    real = offsets.lines_between

    def killed(*args: Any, **kwargs: Any) -> Any:
        for n, line in enumerate(real(*args, **kwargs)):
            if n == 5:
                raise KeyboardInterrupt  # while the fifth record waits to be written
            yield line

    monkeypatch.setattr(offsets, "lines_between", killed)
    with pytest.raises(KeyboardInterrupt):
        t.hook()
    committed = start + (4 << 20)
    assert t.meta()["native_end"] == committed
    assert t.view() == t.native.read_bytes()[:committed]
    begins: list[int] = []

    def spied(path: str, begin: int, end: int, **kwargs: Any) -> Any:
        begins.append(begin)
        return real(path, begin, end, **kwargs)

    monkeypatch.setattr(offsets, "lines_between", spied)
    assert t.hook() == t.native.read_bytes()
    assert begins == [committed]


def test_a_huge_burst_is_fitted_as_it_is_copied_so_the_view_never_grows_far_past_its_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = Transcript(tmp_path, budget=4096)
    t.hook()
    t.append(3000, keep=True)
    t.turn()
    t.append(*[(1 << 20) - 1] * 20, keep=True)  # 20 MiB at once, none of it may be cut
    real = offsets.lines_between
    sizes: list[int] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        for line in real(*args, **kwargs):
            sizes.append(os.path.getsize(t.path))
            yield line

    monkeypatch.setattr(offsets, "lines_between", watched)
    data = t.hook()
    assert max(sizes) <= HARD_LIMIT + (5 << 20) and len(data) <= HARD_LIMIT


def test_a_turn_too_large_has_its_largest_records_cut_to_2_kib_only_as_far_as_needed(tmp_path: Path) -> None:
    def turn(name: str) -> Transcript:
        t = Transcript(tmp_path / name, budget=8192, record=8192)
        t.hook()
        t.fill(4097)
        t.turn()  # re-based: the turn starts right after the header
        return t

    for over in (0, 1):  # after the largest is cut, the view fits exactly, or one byte is still over
        t = turn(str(over))
        a = t.count
        saved = 3000 - len(shortened(a, 3000, 2048))  # what cutting the largest saves
        t.append(3000, 2600, 2048)
        t.append(*[n - 1 for n in divmod_lines(8192 + saved + over - len(t.view()) - 3001 - 2601 - 2049)])
        lines = t.hook().split(b"\n")
        head = len(lines) - (t.count - a) - 1
        assert lines[head] == shortened(a, 3000, 2048)
        assert lines[head + 1] == (shortened(a + 1, 2600, 2048) if over else record(a + 1, 2600))
        assert lines[head + 2] == record(a + 2, 2048)
        assert len(t.view()) == (8192 + 1 - (2600 - len(shortened(a + 1, 2600, 2048))) if over else 8192)
    # Still over once all that may be cut is cut: a record of 2 KiB or less is never cut.
    t = turn("keep")
    a = t.count
    t.append(6000, keep=True)
    t.append(2049, 2048)
    lines = t.hook().split(b"\n")
    assert lines[-3:] == [shortened(a + 1, 2049, 2048), record(a + 2, 2048), b""]


def divmod_lines(size: int, piece: int = 1500) -> list[int]:
    """Line lengths of at most ``piece`` bytes that add up to ``size``."""
    count = -(-size // piece)
    return [size // count + (n < size % count) for n in range(count)]


# -- what a killed or interfered-with view comes back as --------------------------------------------


def small_session(root: Path, **config: Any) -> Transcript:
    t = Transcript(root, **config)
    t.hook()
    t.append(100, 200)
    t.hook()
    return t


def made_again(t: Transcript) -> None:
    """The next call makes the view anew: every record after the first line, in its own line again."""
    end = t.end
    data = t.hook()
    assert data == t.native.read_bytes() and views.host_lines(data) >= end


def test_a_view_deleted_truncated_or_left_beside_a_stray_next_is_made_again(tmp_path: Path) -> None:
    t = small_session(tmp_path / "deleted")
    os.remove(t.path)
    made_again(t)
    t = small_session(tmp_path / "truncated")
    with open(t.path, "r+b") as f:
        f.truncate(30)
    made_again(t)
    t = small_session(tmp_path / "stray")
    # Written while the view is still there, so that it cannot have the view's inode; longer than the view.
    Path(t.path + ".next").write_bytes(b'{"not": "the rewrite the metadata names"}\n' * 100)
    os.remove(t.path)
    made_again(t)


def test_an_append_that_was_never_committed_is_cut_off_even_with_nothing_new(tmp_path: Path) -> None:
    t = small_session(tmp_path)
    with open(t.path, "ab") as f:
        f.write(b'{"i": 3, "half')
    assert t.hook() == t.native.read_bytes()


def killed_once(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, when: Any) -> list[bool]:
    """``module.name`` raising KeyboardInterrupt (a kill) the first time ``when(*args)`` holds."""
    real, fired = getattr(module, name), [False]

    def kill(*args: Any, **kwargs: Any) -> Any:
        if not fired[0] and when(*args):
            fired[0] = True
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, kill)
    return fired


def test_a_re_base_killed_between_its_commit_and_its_rename_ends_as_if_it_had_not_been_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def session(name: str, *, killed: bool) -> list[bytes]:
        t = Transcript(tmp_path / name)
        t.hook()
        t.fill(3000)
        t.hook()
        if killed:  # the durable commit names <view>.next; the rename never happens
            with monkeypatch.context() as patch:
                fired = killed_once(patch, os, "replace", lambda src, dst: str(src).endswith(".next"))
                with pytest.raises(KeyboardInterrupt):
                    t.hook(EventType.TURN_START)
            assert fired[0] and os.path.exists(t.path + ".next")
        else:
            t.hook(EventType.TURN_START)
        seen = []
        for _ in range(3):
            t.append(700, 900)
            seen += [t.hook(), t.turn()]
        return seen

    assert session("killed", killed=True) == session("whole", killed=False)


def test_a_hook_killed_after_copying_and_before_committing_copies_again_without_a_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = small_session(tmp_path)
    t.append(300, 400)
    with monkeypatch.context() as patch:
        killed_once(patch, Fitter, "fit", lambda fitter: True)
        with pytest.raises(KeyboardInterrupt):
            t.hook()
    assert t.hook() == t.native.read_bytes()  # no header: the copy was not taken for a replaced file


def test_a_call_with_nothing_new_rewrites_nothing(tmp_path: Path) -> None:
    t = Transcript(tmp_path, budget=4096)
    t.hook()
    t.idle()  # right after the view was made
    t.append(3000, keep=True)
    t.turn()
    t.append(2600, 2600, keep=True)  # over the budget, and nothing may be cut
    t.hook()
    inode = os.stat(t.path).st_ino
    t.idle()
    t.append(100)
    t.hook()
    assert os.stat(t.path).st_ino == inode, "a turn that cannot be cut is not rewritten at every call"


# -- following, or not -------------------------------------------------------------------------------


def test_a_view_kept_upto_a_point_does_not_follow_the_file_until_asked_to(tmp_path: Path) -> None:
    t = Transcript(tmp_path)
    t.append(100, 200, 300)
    t.upto = len(FIRST) + 1 + 101  # the first record only
    assert t.hook().count(b"\n") == 2
    t.append(400)
    assert t.refresh().count(b"\n") == 2  # a refresh keeps it there
    t.upto = None
    assert t.hook() == t.native.read_bytes()
    t.append(500)
    assert t.refresh() == t.native.read_bytes()  # and now it follows


def test_a_view_follows_the_file_between_hooks(tmp_path: Path) -> None:
    t = small_session(tmp_path)
    t.turn()
    t.append(300)
    t.hook()
    t.append(400)
    assert t.refresh() == t.native.read_bytes()


def test_a_restored_view_follows_the_restored_file_only_from_a_line_end(tmp_path: Path) -> None:
    for name, data in [("whole", FIRST + b"\n" + record(1, 50) + b"\n"), ("empty", b""),
                       ("partial", FIRST + b"\n" + record(1, 50))]:  # fmt: skip
        t = Transcript(tmp_path / name)
        t.native.write_bytes(data)
        t.path = str(views.View.for_session(t.owner, t.fmt, SESSION).path)
        with views.View(t.owner, t.fmt, t.path) as view:
            view.adopt(str(t.native), data)
        with t.native.open("ab") as f:
            f.write(b"\n" if name == "partial" else b"")
            f.write((FIRST + b"\n" if name == "empty" else b"") + record(2, 60) + b"\n")
        views.refreshed(t.owner, t.path)
        assert t.view() == (data if name == "partial" else t.native.read_bytes()), name


def test_a_restored_view_grows_past_its_budget_before_any_turn_as_a_view_does(tmp_path: Path) -> None:
    t = Transcript(tmp_path, budget=4096)
    t.path = str(views.View.for_session(t.owner, t.fmt, SESSION).path)
    with views.View(t.owner, t.fmt, t.path) as view:
        view.adopt(str(t.native), t.native.read_bytes())
    for _ in range(4):
        t.append(900, 900)
        t.refresh()  # checked: every record there, cut only as the budgets say


def test_a_restored_view_has_no_turn_in_progress_when_the_agent_starts_its_file_again(tmp_path: Path) -> None:
    t = Transcript(tmp_path, budget=4096)
    t.append(300, 300)
    t.path = str(views.View.for_session(t.owner, t.fmt, SESSION).path)
    with views.View(t.owner, t.fmt, t.path) as view:
        view.adopt(str(t.native), t.native.read_bytes())
    t.replace(900, 900, 900)  # past half the budget: made anew as a first view is, nothing kept whole
    data = t.hook()
    session = t.native.read_bytes()
    assert data[head_bytes(data) :] == session[session.rfind(b"\n", 0, len(session) - 1024) + 1 :]


def test_a_restored_view_whose_file_appears_and_cannot_be_opened_keeps_what_it_restored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The file is missing when the view is restored; then a file of 0 bytes that no one can open (a
    # socket, for root too) is there: nothing of it is read, and the view stays as it was restored.
    t = Transcript(tmp_path, budget=4096)
    t.append(300, 300)
    data = t.native.read_bytes()
    t.native.unlink()
    t.path = str(views.View.for_session(t.owner, t.fmt, SESSION).path)
    with views.View(t.owner, t.fmt, t.path) as view:
        view.adopt(str(t.native), data)
    monkeypatch.chdir(tmp_path)  # a socket's path is bound as given, up to 107 bytes
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(t.native.name)
        views.attach(t.owner, SESSION, str(t.native), EventType.TOOL_USE, upto=len(data))
    assert t.view() == data


# -- files the format does not view ------------------------------------------------------------------


class Unreadable(ModelFormat):
    """A format that mirrors, and whose ``whole`` has nothing to give until ``readable``."""

    readable = False

    def whole(self, native: str) -> bytes | None:
        return super().whole(native) if self.readable else None


def test_a_first_mirror_of_a_file_not_readable_yet_is_empty_until_it_is(tmp_path: Path) -> None:
    t = Transcript(tmp_path, accepts=False)
    t.fmt = t.owner.fmt = fmt = Unreadable(accepts=False)
    t.append(100)
    assert t.hook(EventType.TURN_START, check=False) == b""
    fmt.readable = True
    assert t.hook(check=False) == t.native.read_bytes()
    fmt.readable, mirrored = False, t.view()
    t.append(200)
    assert t.hook(EventType.TURN_START, check=False) == mirrored  # nothing readable: kept as it was


def test_a_mirror_is_never_re_based(tmp_path: Path) -> None:
    t = Transcript(tmp_path, budget=4096, accepts=False)
    t.append(3000, 3000)
    t.hook(check=False)
    assert t.hook(EventType.TURN_START, check=False) == t.native.read_bytes()
    with views.View(t.owner, t.fmt, t.path) as view:  # no header: its positions are the file's own
        frame = view.frame()
        assert (frame.body, view.end()) == (0, t.view().count(b"\n"))


@pytest.mark.parametrize("unit", [views.BYTES, views.LINES])
def test_positions_go_on_from_a_mirror_s_end_when_the_session_moves_to_a_viewed_file(
    tmp_path: Path, unit: str
) -> None:
    t = Transcript(tmp_path, unit=unit, accepts=False)
    t.append(*[40] * 49)
    t.hook(check=False)
    with views.View(t.owner, t.fmt, t.path) as view:
        mirrored = view.end()
    assert mirrored == 50
    t.fmt.accept = True
    t.native = tmp_path / "moved.jsonl"  # the agent names another file for the session
    t.native.write_bytes(FIRST + b"\n" + record(1, 40) + b"\n")
    t.fmt.native, t.count, t.shift = str(t.native), 2, -1
    assert views.frame_of(t.hook(), unit).body == mirrored


def test_a_restored_file_the_format_does_not_view_is_mirrored(tmp_path: Path) -> None:
    t = Transcript(tmp_path, budget=4096, accepts=False)
    t.append(3000, 3000)
    data = t.native.read_bytes()
    t.path = str(views.View.for_session(t.owner, t.fmt, SESSION).path)
    with views.View(t.owner, t.fmt, t.path) as view:
        view.adopt(str(t.native), data)
    assert t.hook(EventType.TURN_START, check=False) == data  # a mirror: never re-based
    with views.View(t.owner, t.fmt, t.path) as view:  # no native file (yet): viewed as it is
        view.adopt(str(tmp_path / "elsewhere.jsonl"), data)
    assert t.view() == data


# -- bugs these tests found --------------------------------------------------------------------------


def test_a_session_header_ending_in_crlf_is_restated_without_an_empty_line(tmp_path: Path) -> None:
    """The body started at the first line's \\n, not after it: a line that is not the agent's."""
    t = Transcript(tmp_path, first=FIRST + b"\r")
    t.append(100)
    t.hook()
    t.replace(200)  # a new file: the view is made anew, its header restating the first line
    data = t.hook()
    assert data[head_bytes(data) :] == record(1, 200) + b"\n"


def test_a_refresh_keeps_the_session_where_it_starts_in_the_file(tmp_path: Path) -> None:
    """A refresh (a subcommand naming the view) made the view anew from the file's first byte."""
    t = Transcript(tmp_path, before=b"an earlier session\n" * 2)
    t.hook()
    t.append(100)
    assert t.refresh() == t.native.read_bytes()[t.start :]


# -- the snapshot's contract -------------------------------------------------------------------------


class Shaped(ModelFormat):
    """A snapshot of a given shape around the model's own restating record."""

    def __init__(self, shape: str) -> None:
        super().__init__()
        self.shape = shape

    def snapshot(self, path: str, end: int, limit: int) -> list[bytes]:
        first, restating = super().snapshot(path, end, limit)
        note = b'{"note": "between"}'
        return {"two": [first, restating], "three": [first, note, restating],
                "many": [first, *[note] * 60, restating],
                "empty": [], "another first line": [b'{"i": 0}', restating]}[self.shape]  # fmt: skip


@pytest.mark.parametrize("shape", ["two", "three", "many"])
def test_a_snapshot_fills_the_header_from_its_end_as_far_as_the_lines_it_replaces(
    tmp_path: Path, shape: str
) -> None:
    t = Transcript(tmp_path, budget=4096)
    t.fmt = t.owner.fmt = Shaped(shape)
    t.fill(3000)
    data = t.hook()  # a first view over half the budget: a header restating what it leaves out
    lines = data.split(b"\n")
    body = views.head_lines_of(data)
    assert body == t.native.read_bytes()[: t.meta()["native_end"]].count(b"\n") - (len(lines) - 1 - body)
    mark = next(i for i, line in enumerate(lines) if line.startswith(views.MARKER_PREFIX))
    records = lines[mark + 1 : body]
    assert records[-1].startswith(b'{"upto"') and len(records) == min(len(records), body - 2)
    assert set(records[:-1]) <= {b'{"note": "between"}'}


@pytest.mark.parametrize("shape", ["empty", "another first line"])
def test_a_snapshot_that_breaks_the_contract_is_an_error(tmp_path: Path, shape: str) -> None:
    t = Transcript(tmp_path, budget=4096)
    t.fmt = t.owner.fmt = Shaped(shape)
    t.fill(3000)
    with pytest.raises(AgentError, match="model: the view snapshot does not start with the session header"):
        t.hook()


class KeepsTwo(views.ViewFormat):
    snapshot_keep_first = 2


class Wrapped(views.ViewFormat):
    wrap = True


def test_a_header_keeps_as_many_snapshot_records_as_its_lines_leave_room_for(tmp_path: Path) -> None:
    """The first line, padding, the marker, then the records: the format's leading ones and the newest;
    after ``LEAD`` (``lead``) the first record is kept whenever there is room for one."""
    r = [b"r1", b"r2", b"r3", b"r4", b"r5", b"r6"]
    cases = [  # format, lead, lines, records kept
        (views.ViewFormat(), False, 2, []), (views.ViewFormat(), False, 3, [b"r6"]),
        (views.ViewFormat(), False, 8, r), (views.ViewFormat(), False, 9, r),
        (views.ViewFormat(), True, 2, []), (views.ViewFormat(), True, 3, [b"r1"]),
        (views.ViewFormat(), True, 4, [b"r1", b"r6"]), (views.ViewFormat(), True, 5, [b"r1", b"r5", b"r6"]),
        (views.ViewFormat(), True, 8, r),
        (KeepsTwo(), False, 3, [b"r6"]), (KeepsTwo(), False, 4, [b"r1", b"r6"]),
        (KeepsTwo(), False, 5, [b"r1", b"r2", b"r6"]), (KeepsTwo(), False, 6, [b"r1", b"r2", b"r5", b"r6"]),
        (KeepsTwo(), True, 5, [b"r1", b"r2", b"r6"]), (KeepsTwo(), True, 6, [b"r1", b"r2", b"r3", b"r6"]),
    ]  # fmt: skip
    for fmt, lead, lines, kept in cases:
        headers = Headers(fmt, views.Budget({}), str(tmp_path / "s.jsonl"), "model")
        header = headers.laid_out(lines, b"first", r, wrapped_first=False, lead=lead)
        padding = [b""] * (lines - 2 - len(kept))
        assert header == [b"first", *padding, views.marker(lines), *kept], (type(fmt), lead, lines)
        if not lead:  # without LEAD unless told
            assert headers.laid_out(lines, b"first", r, wrapped_first=False) == header
            assert headers.fitted(lines, b"first", lambda limit: r, wrapped_first=False) == header


def asking(asked: list[int], room: int, record: bytes, limit: int) -> list[bytes]:
    """A snapshot of ``record`` within the room, of a short one within less; each limit noted in ``asked``."""
    asked.append(limit)
    return [record] if limit == room else [b"short"]


def test_a_wrapped_header_past_its_room_asks_the_snapshot_again_with_room_squared_over_its_size(
    tmp_path: Path,
) -> None:
    """Wrapping makes records longer: past the snapshot's room, they are asked for again with a limit
    as much smaller as the header was over (never under a quarter of the smallest budget)."""
    for total in [MIN_BUDGET, 4 * MIN_BUDGET]:
        budget = views.Budget({views.BUDGET_ENV: str(total)})
        room = budget.snapshot_room
        for fmt in [Wrapped(), views.ViewFormat()]:
            headers = Headers(fmt, budget, str(tmp_path / "s.jsonl"), "model")
            laid_out = [len(line) + 1 for line in headers.laid_out(5, b"first", [b"x"], wrapped_first=False)]
            for over in [0, 1, 300]:
                asked: list[int] = []
                records_for = functools.partial(asking, asked, room, b"x" * (room + over - sum(laid_out) + 1))
                header = headers.fitted(5, b"first", records_for, wrapped_first=False)
                size = sum(
                    len(line) + 1
                    for line in headers.laid_out(5, b"first", records_for(room), wrapped_first=False)
                )
                assert size == room + over
                again = [max(MIN_BUDGET // 4, room * room // size)] if over and fmt.wrap else []
                assert asked == [room, *again, room], (total, fmt.wrap, over)
                assert header == headers.laid_out(5, b"first", records_for(asked[-2]), wrapped_first=False)


class Handed(views.ViewFormat):
    """A format that says which bytes it was handed to restate, up to where, and within what."""

    def __init__(self) -> None:
        self.handed: list[tuple[bytes, int, int]] = []

    def snapshot(self, path: str, end: int, limit: int) -> list[bytes]:
        data = Path(path).read_bytes()
        self.handed.append((data, end, limit))
        return [data.split(b"\n", 1)[0].removesuffix(b"\r"), b"restated"]


def test_a_snapshot_of_a_session_inside_a_file_is_asked_of_a_file_of_the_session_alone(
    tmp_path: Path,
) -> None:
    native = tmp_path / "native.jsonl"
    before, session, after = b"other\n" * 3, FIRST + b"\n" + record(1, 50) + b"\n", record(2, 70) + b"\n"
    native.write_bytes(before + session + after)
    fmt = Handed()
    headers = Headers(fmt, views.Budget({}), str(tmp_path / "s.jsonl"), "model")
    start, end = len(before), len(before) + len(session)
    assert headers.snapshot(str(native), start, end, FIRST, 99) == [b"restated"]  # the first line dropped
    assert headers.snapshot(str(native), start, end, FIRST, 99, keep_first=True) == [FIRST, b"restated"]
    assert fmt.handed == [(session, len(session), 99)] * 2
    assert not os.path.exists(headers.scratch)
    fmt.handed.clear()  # a session of one empty line; one that starts the file is handed as it is
    native.write_bytes(b"x\n\nmore\n")
    assert headers.snapshot(str(native), 2, 3, b"", 99) == [b"restated"]
    assert headers.snapshot(str(native), 0, 2, b"x", 99) == [b"restated"]
    assert fmt.handed == [(b"\n", 1, 99), (b"x\n\nmore\n", 2, 99)]
    fmt.handed.clear()  # a file cut short since it was measured: what there is, and no hang
    assert headers.snapshot(str(native), 2, 50, b"", 99) == [b"restated"]
    assert fmt.handed == [(b"\nmore\n", 48, 99)]


# -- what the subcommands call -----------------------------------------------------------------------


class Unviewed(Owner):
    def view_format(self) -> views.ViewFormat | None:  # pyright: ignore[reportIncompatibleMethodOverride]
        return None


def test_an_agent_without_views_and_a_hook_without_a_transcript_are_handed_on_as_they_are(
    tmp_path: Path,
) -> None:
    t = small_session(tmp_path / "viewed")
    plain = Unviewed(tmp_path / "plain", t.fmt)
    assert views.attach(plain, SESSION, str(t.native), EventType.TURN_START) == str(t.native)
    assert views.attach(t.owner, SESSION, "", EventType.TURN_START) == ""
    assert views.refreshed(plain, t.path) is None
    assert views.native_of(plain, t.path) == t.path
    assert not (tmp_path / "plain").exists()


def test_a_path_that_is_not_a_view_is_left_alone(tmp_path: Path) -> None:
    t = small_session(tmp_path)
    other = tmp_path / "elsewhere" / "s.jsonl"
    other.parent.mkdir()
    other.write_bytes(FIRST + b"\n")
    assert views.refreshed(t.owner, str(other)) is None
    assert views.native_of(t.owner, str(other)) == str(other)
    assert sorted(os.listdir(other.parent)) == ["s.jsonl"]  # no metadata, no lock beside it
    assert views.native_of(t.owner, t.path) == str(t.native)
    unknown = str(Path(t.path).with_name("never-made.jsonl"))  # in the views directory, no metadata
    assert views.native_of(t.owner, unknown) == unknown


def test_subagents_are_looked_for_beside_the_native_file(tmp_path: Path) -> None:
    t = small_session(tmp_path)
    views_dir, native_dir = Path(t.path).parent, t.native.parent
    expected = str(native_dir / SESSION / "subagents")
    assert views.native_subagents_dir(t.owner, str(views_dir / SESSION / "subagents")) == expected
    assert views.native_subagents_dir(t.owner, str(views_dir / SESSION)) == expected
    assert views.native_subagents_dir(t.owner, str(views_dir / SESSION / "subagents") + "/") == expected
    for unchanged in [str(native_dir / SESSION / "subagents"), str(views_dir / "never-made" / "subagents")]:
        assert views.native_subagents_dir(t.owner, unchanged) == unchanged


def test_a_view_file_without_metadata_is_read_in_the_frame_it_carries(tmp_path: Path) -> None:
    t = small_session(tmp_path)
    restored = Path(t.path).with_name("restored.jsonl")
    restored.write_bytes(
        FIRST
        + b"\n\n\n"
        + views.marker(5)
        + b"\n"
        + json.dumps({"upto": 3}).encode()
        + b"\n"
        + record(5, 60)
        + b"\n"
    )
    view = views.refreshed(t.owner, str(restored))
    assert view is not None and not view.exists
    frame = view.frame()
    assert (frame.body, frame.end, frame.line(0), frame.line(99)) == (5, 6, 5, 6)


def test_metadata_that_cannot_be_read_fails_the_call_instead_of_being_taken_as_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Taken as none, the view was rebuilt without its marks and the turn's checkpoint came out a line
    # short (make faults, case unreadable: the metadata mode 000); absent or torn, it is none.
    t = small_session(tmp_path)
    file = views.View.for_session(t.owner, t.fmt, SESSION).file
    assert file.load()["v"] == 2
    real_open = open

    def unreadable(path: Any, *args: Any, **kwargs: Any) -> Any:
        if str(path) == file.meta_path:
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", unreadable)
    with pytest.raises(PermissionError):
        file.load()
    monkeypatch.undo()
    Path(file.meta_path).write_bytes(b'{"v": 2, "view_si')
    assert file.load() == {}
    Path(file.meta_path).unlink()
    assert file.load() == {}


@pytest.mark.parametrize("full_at", ["next", "metadata"])
def test_a_rewrite_on_a_full_disk_leaves_no_next_file_and_the_view_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, full_at: str
) -> None:
    # make faults, case full-disk: ENOSPC while <view>.next was written, or once it was written whole,
    # while the metadata that commits it was saved (Qwen Code and Aider, seed 20261207): either way the
    # uncommitted rewrite stayed beside the view.
    t = small_session(tmp_path)
    file = views.View.for_session(t.owner, t.fmt, SESSION).file
    file.meta = file.load()
    before = Path(t.path).read_bytes(), dict(file.meta)
    real_write = os.write

    def full_write(fd: int, data: Any) -> int:
        if os.readlink(f"/proc/self/fd/{fd}") == file.next_path:
            raise OSError(28, "No space left on device")
        return real_write(fd, data)

    def full_save(*args: Any, **kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    if full_at == "next":
        monkeypatch.setattr(os, "write", full_write)
    else:
        monkeypatch.setattr(type(file), "save", full_save)
    with pytest.raises(OSError, match="No space"):
        file.write_whole(b"x" * 100 + b"\n")
    monkeypatch.undo()
    assert not os.path.exists(file.next_path)
    assert (Path(t.path).read_bytes(), file.load()) == before


def test_an_append_cut_short_by_a_full_disk_leaves_no_torn_line_and_the_next_call_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # make faults, case full-disk (Gemini CLI, seed 20261207): half an append was written before the disk
    # was full, and the view's last line stayed torn until the next call cut it off.
    t = small_session(tmp_path)
    before = Path(t.path).read_bytes()
    t.append(300, 400)
    real_open = open

    class Full:
        def __init__(self, f: Any) -> None:
            self.f = f

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.f.close()

        def __getattr__(self, name: str) -> Any:
            return getattr(self.f, name)

        def writelines(self, pieces: Any) -> None:
            data = b"".join(pieces)
            self.f.write(data[: len(data) // 2])
            self.f.flush()
            raise OSError(28, "No space left on device")

    def full(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        f = real_open(path, mode, *args, **kwargs)
        return Full(f) if str(path) == t.path and mode == "r+b" else f

    monkeypatch.setattr("builtins.open", full)
    with pytest.raises(OSError, match="No space"):
        t.hook()
    monkeypatch.undo()
    assert Path(t.path).read_bytes() == before
    data = t.hook()
    assert data.startswith(before) and data.count(b"\n") == before.count(b"\n") + 2
    for line in data.splitlines():
        json.loads(line)


def test_a_view_s_end_is_its_line_count_as_the_cli_counts_it_whatever_blank_line_it_ends_in(
    tmp_path: Path,
) -> None:
    # A last line of spaces or a CR was counted (the CLI drops it), and a rewrite of a view ending in a
    # blank line recorded a line too few, so that every position after it was a line short.
    for blank in [b"\n", b"\r\n", b"  \n", b"\t\n", b"\n\r\n"]:
        t = Transcript(tmp_path / blank.hex(), budget=8192, record=3000)
        t.hook()
        t.turn()
        t.append(2900, 2900, 2900)
        with t.native.open("ab") as f:
            f.write(blank)
        for step in ["rewritten to fit", "a record after it"]:
            t.hook(check=False)
            data = t.view()
            assert b'"cut"' in data  # the turn did not fit: its records were shortened, the view rewritten
            with views.View(t.owner, t.fmt, t.path) as view:
                assert view.end() == view.frame().end == views.host_lines(data), (blank, step)
            t.append(100)


def test_a_view_file_counts_its_committed_lines_and_reads_them_all_only_after_a_blank_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = ViewFile(str(tmp_path / "views" / "s.jsonl"), ".jsonl")
    counted = {b"": 0, b"\n": 0, b"\r\n": 0, b" ": 0, b"a": 1, b"a\n": 1, b"a\n\n": 1, b"a\n \n": 1,
               b"a\n\r\n": 1, b"a\nb": 2, b"a\n  ": 1, b"a\n x": 2, b"{}\n{}\n": 2}  # fmt: skip
    for data, lines in counted.items():
        assert views.host_lines(data) == lines
        file.write_whole(data)
        assert file.lines() == lines, data
        # What follows the committed bytes (an append not committed yet, padding) is no part of the view.
        for after in [b" ", b"x", b"\n"]:
            file.write_whole(data)
            with open(file.path, "ab") as f:
                f.write(after)
            assert file.lines() == lines, (data, after)

    def no_count(data: bytes) -> int:
        raise AssertionError("a view not ending in a blank line is read whole to count its lines")

    monkeypatch.setattr("entire_core.views.frames.host_lines", no_count)
    for data in [b"a", b"a\n", b"a\nb", b"a\n x", b"{}\n{}\n"]:
        file.write_whole(data)
        assert file.lines() == counted[data]


def test_a_resume_line_written_into_the_marker_keeps_the_usage_it_carries_and_every_other_byte(
    tmp_path: Path,
) -> None:
    file = ViewFile(str(tmp_path / "views" / "s.jsonl"), ".jsonl")
    cut = {"from": 1, "tokens": {"input": 5}, "total": {"input": 9}}
    for before, after in [
        (views.marker(4, 2, cut), views.marker(4, 5, cut)),
        (views.marker(4), views.marker(4, 5)),
    ]:
        data = b"".join(
            line + b"\n" for line in [FIRST, b"", before, b'{"upto": 3}', record(4, 60), record(5, 60)]
        )
        file.write_whole(data)
        file.set_resume(5)
        assert Path(file.path).read_bytes() == data.replace(before, after)
        assert file.lines() == 6


def test_the_cli_s_record_of_the_session_is_read_only_when_it_is_about_this_view(tmp_path: Path) -> None:
    t = small_session(tmp_path)
    file = views.View.for_session(t.owner, t.fmt, SESSION).file
    repo = Path(t.owner.repo_root)
    host.session_state(repo, SESSION, transcript_path=t.path)  # not condensed yet: the CLI omits a start of 0
    assert file.host_start(t.owner.repo_root) == 0
    host.session_state(repo, SESSION, transcript_path=t.path, checkpoint_transcript_start=3)
    assert file.host_start(t.owner.repo_root) == 3
    for other in [str(tmp_path / "other.jsonl"), "", None, 5, [t.path]]:
        host.session_state(repo, SESSION, transcript_path=other, checkpoint_transcript_start=3)
        assert file.host_state(t.owner.repo_root) is None and file.host_start(t.owner.repo_root) is None, (
            other
        )
    # A state file is read up to 1 MiB, no further: a larger one is none.
    state = repo / ".git" / "entire-sessions" / f"{SESSION}.json"
    for size, start in [(1 << 20, 3), ((1 << 20) + 1, None)]:
        text = json.dumps({"transcript_path": t.path, "checkpoint_transcript_start": 3, "x": ""})
        state.write_text(text[:-2] + "x" * (size - len(text)) + '"}')
        assert state.stat().st_size == size
        assert file.host_start(t.owner.repo_root) == start, size


def test_a_turn_end_that_cut_off_an_uncommitted_append_pads_the_view_past_the_size_the_cli_stored(
    tmp_path: Path,
) -> None:
    t = small_session(tmp_path)
    size = len(t.view())
    host.session_state(Path(t.owner.repo_root), SESSION, transcript_path=t.path, checkpoint_transcript_start=1,
                       checkpoint_transcript_size=size)  # fmt: skip
    with open(t.path, "ab") as f:
        f.write(b'{"i": 3, "half')
    t.hook(EventType.TURN_END, check=False)
    assert t.view() == t.native.read_bytes() + b" "  # one byte past it: the CLI sees new work


def test_a_turn_end_pads_a_view_it_rewrote_to_fit_past_the_size_the_cli_stored(tmp_path: Path) -> None:
    sizes: list[int] = []
    for kind in [EventType.TOOL_USE, EventType.TURN_END]:  # the size the call leaves; then a TurnEnd after it
        t = Transcript(tmp_path / str(kind), budget=8192, record=3000)
        t.hook()
        t.turn()
        t.append(2900, 2900, 2900)
        host.session_state(Path(t.owner.repo_root), SESSION, transcript_path=t.path, checkpoint_transcript_start=1,
                           checkpoint_transcript_size=sizes[0] if sizes else 1)  # fmt: skip
        t.hook(kind, check=False)
        data = t.view()
        assert b'"cut"' in data  # rewritten to fit
        sizes.append(len(data))
    assert sizes[1] == sizes[0] + 1 and data.endswith(b"\n ")  # one byte past it: the CLI sees new work


def test_views_are_private_and_locked_beside_their_metadata(tmp_path: Path) -> None:
    t = small_session(tmp_path)
    assert views.View.for_session(t.owner, t.fmt, "not-made-yet").end() == 0
    assert os.stat(t.path).st_mode & 0o777 == 0o600  # a transcript holds what the user typed
    assert sorted(os.listdir(Path(t.path).parent / ".meta")) == [SESSION + ".json", SESSION + ".lock"]


def test_a_rewrite_is_committed_durably_before_it_is_renamed_into_place_and_an_append_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from entire_core import fsutil

    t = Transcript(tmp_path)
    t.hook()
    t.fill(3000)
    events: list[tuple[str, object]] = []
    real_write, real_replace = fsutil.atomic_write, os.replace

    def atomic_write(path: str, data: bytes, **kwargs: Any) -> str:
        events.append(("commit", kwargs.get("durable", True)))
        return real_write(path, data, **kwargs)

    def replace(src: Any, dst: Any) -> None:
        if str(src).endswith(".next"):
            events.append(("rename", None))
        real_replace(src, dst)

    monkeypatch.setattr(fsutil, "atomic_write", atomic_write)
    monkeypatch.setattr(os, "replace", replace)
    t.hook()
    assert events == [("commit", False)]  # an append: the next call copies it again if it is lost
    events.clear()
    t.hook(EventType.TURN_START)  # re-based: the metadata names <view>.next, then it is renamed
    assert events == [("commit", True), ("rename", None), ("commit", False)]


# -- old views ---------------------------------------------------------------------------------------

NOW = 2_000_000_000
FOURTEEN_DAYS = 14 * 24 * 3600


def test_views_untouched_for_14_days_are_removed_when_a_session_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    t = small_session(tmp_path)
    directory = Path(t.path).parent
    meta = directory / ".meta"
    ages = {
        "gone": FOURTEEN_DAYS + 1,
        "kept": FOURTEEN_DAYS,
        "fresh": 0,
        "locked-long-ago": 0,
        "stuck": FOURTEEN_DAYS + 1,
        SESSION: 0,
    }
    for name in ages:
        views.attach(t.owner, name, str(t.native), EventType.TOOL_USE)
    monkeypatch.setattr(time, "time", lambda: NOW)  # and every file's age from there
    Path(str(directory / "gone.jsonl") + ".next").write_bytes(b"")
    os.remove(directory / "stuck.jsonl")
    (directory / "stuck.jsonl").mkdir()  # cannot be removed: the others still are
    (meta / "notes.txt").write_bytes(b"")
    for name, age in ages.items():
        os.utime(meta / (name + ".json"), (NOW - age, NOW - age))
    for old in [meta / "locked-long-ago.lock", meta / "notes.txt"]:
        os.utime(old, (0, 0))
    real_listdir = os.listdir
    order = ["fresh.json", "kept.json", "stuck.json", "gone.json"]  # removal goes on past each of these

    def listdir(path: Any) -> list[str]:
        names = real_listdir(path)
        return (
            sorted(names, key=lambda n: order.index(n) if n in order else -1) if path == str(meta) else names
        )

    monkeypatch.setattr(os, "listdir", listdir)
    views.attach(t.owner, "new", str(t.native), EventType.SESSION_START)
    left = sorted(os.listdir(directory)) + sorted(f".meta/{n}" for n in os.listdir(meta))
    assert "gone.jsonl" not in left and "gone.jsonl.next" not in left
    assert ".meta/gone.json" not in left and ".meta/gone.lock" not in left
    for name in ["kept", "fresh", "locked-long-ago", "new", SESSION]:
        assert {f"{name}.jsonl", f".meta/{name}.json"} <= set(left), name
    assert ".meta/notes.txt" in left and ".meta/stuck.json" in left


# -- edges the sessions above do not reach ------------------------------------------------------------


def test_a_view_synced_without_a_start_views_the_file_from_its_first_byte(tmp_path: Path) -> None:
    t = Transcript(tmp_path)
    t.append(100, 200)
    t.path = str(views.View.for_session(t.owner, t.fmt, SESSION).path)
    with views.View(t.owner, t.fmt, t.path) as view:
        view.sync(str(t.native))
    assert t.view() == t.native.read_bytes()


def test_a_hook_before_the_agent_wrote_its_file_gets_an_empty_view_that_then_follows_it(
    tmp_path: Path,
) -> None:
    t = Transcript(tmp_path)
    os.remove(t.native)
    assert t.hook(EventType.TURN_START, check=False) == b""
    t.native.write_bytes(FIRST + b"\n" + record(1, 50) + b"\n")
    assert t.hook(check=False) == t.native.read_bytes()


def test_an_agent_with_views_turned_off_hands_on_even_a_path_of_its_old_views(tmp_path: Path) -> None:
    t = small_session(tmp_path)
    off = Unviewed(tmp_path, t.fmt)  # the same state directory: the view and its metadata are there
    assert views.native_of(off, t.path) == t.path
    assert views.native_of(t.owner, t.path) == str(t.native)


@pytest.mark.parametrize("unit", [views.BYTES, views.LINES])
def test_a_restored_view_ends_at_the_restored_file_s_end_in_the_agent_s_unit(
    tmp_path: Path, unit: str
) -> None:
    t = Transcript(tmp_path, unit=unit)
    t.append(100, 200)
    data = t.native.read_bytes()
    t.path = str(views.View.for_session(t.owner, t.fmt, SESSION).path)
    with views.View(t.owner, t.fmt, t.path) as view:
        view.adopt(str(t.native), data)
    with views.View(t.owner, t.fmt, t.path) as view:
        assert view.end() == 3  # lines, whatever the agent's own unit


def test_a_view_of_exactly_its_budget_is_kept_as_it_is_and_one_byte_more_is_fitted(tmp_path: Path) -> None:
    for extra in (0, 1):
        t = Transcript(tmp_path / str(extra), budget=4096)
        t.append(100)
        t.turn()  # not re-based: the turn starts after the record
        t.fill(4096 + extra)
        data = t.hook()
        if extra:  # re-based at the turn's start
            frame = views.frame_of(data, views.BYTES)
            assert frame.body == 2 and len(data) <= 4096  # the first line and the record: line numbers kept
        else:
            assert data == t.native.read_bytes()


def test_positions_go_on_from_a_view_that_ended_at_position_1(tmp_path: Path) -> None:
    t = Transcript(tmp_path, unit=views.LINES)
    t.hook()  # the session's first line alone: the view ends at line 1
    assert t.end == 1
    t.first = FIRST.replace(b"m-1", b"m-2")  # another session's file: the view is made anew
    t.replace(100)
    made_again(t)


class Padded(ModelFormat):
    """Shortening as real formats do it: to about the limit asked (here exactly), not far under it;
    the records in ``same`` are given back as long as they were."""

    same: frozenset[int] = frozenset()

    def shorten(self, record: bytes, limit: int) -> bytes | None:
        short = super().shorten(record, limit)
        if short is None:
            return None
        return short.ljust(len(record) if json.loads(record)["i"] in self.same else limit)


def padded_turn(
    root: Path, *sizes: int, same: frozenset[int] = frozenset()
) -> tuple[Transcript, list[bytes]]:
    t = Transcript(root, budget=8192, record=8192)
    t.fmt = t.owner.fmt = fmt = Padded()
    fmt.native, fmt.same = str(t.native), same
    t.hook(check=False)
    t.hook(EventType.TURN_START, check=False)
    a = t.count
    t.append(*sizes)
    data = t.hook(check=False)
    body = data.split(b"\n")[:-1][views.head_lines_of(data) or 1 :]
    assert [json.loads(line)["i"] for line in body] == list(range(a, t.count))
    return t, body


def test_a_turn_too_large_has_as_many_records_cut_as_it_takes_to_fit_when_each_keeps_2_kib(
    tmp_path: Path,
) -> None:
    t, body = padded_turn(tmp_path, 4090, 4090, 4090)  # each cut saves 4091 - 2049: the view fits after 3
    assert len(t.view()) <= 8192
    assert body == [shortened(t.count - 3 + n, 4090, 2048).ljust(2048) for n in range(3)]


def test_a_record_the_format_gives_back_no_shorter_stays_as_it_was(tmp_path: Path) -> None:
    _, body = padded_turn(tmp_path, 4999, 3999, 3999, same=frozenset([1]))
    assert body[0] == record(1, 4999)  # the largest, given back as long: kept, the next ones cut
    assert body[1:] == [shortened(n, 3999, 2048).ljust(2048) for n in (2, 3)]


def test_a_turn_past_its_budget_that_nothing_can_shorten_is_appended_to_not_rewritten(tmp_path: Path) -> None:
    t = Transcript(tmp_path, budget=4096)
    t.hook()
    t.turn()
    t.append(3000, 3000, keep=True)
    t.hook()  # re-based at the turn's start, nothing in the turn may be cut
    before = os.stat(t.path)
    t.append(100, keep=True)
    data = t.hook()
    assert os.stat(t.path).st_ino == before.st_ino and len(data) == before.st_size + 101


def test_a_turn_started_on_an_empty_view_and_past_its_budget_has_its_records_cut(tmp_path: Path) -> None:
    t = Transcript(tmp_path, budget=4096, record=3000)
    t.native.write_bytes(b"")  # the agent has not written its session header yet
    assert t.hook(EventType.TURN_START, check=False) == b""
    t.native.write_bytes(FIRST + b"\n")
    t.count = 1
    t.append(3000, 3000)
    data = t.hook(check=False)
    assert data == FIRST + b"\n" + shortened(1, 3000, 2048) + b"\n" + record(2, 3000) + b"\n"


def test_a_file_the_format_does_not_view_is_mirrored_even_when_first_seen_without_a_complete_line(
    tmp_path: Path,
) -> None:
    t = Transcript(tmp_path, budget=4096, accepts=False)
    t.native.write_bytes(FIRST)  # the agent is still writing its first line
    assert t.hook(check=False) == FIRST  # mirrored whole, as it is
    t.native.write_bytes(FIRST + b"\n" + record(1, 3000) + b"\n" + record(2, 3000) + b"\n")
    t.hook(check=False)
    assert (
        t.hook(EventType.TURN_START, check=False) == t.native.read_bytes()
    )  # a mirror: never cut or re-based


def test_a_turn_past_10_mib_whose_first_record_holds_the_newest_half_budget_is_not_rewritten(
    tmp_path: Path,
) -> None:
    t = Transcript(tmp_path, budget=8 << 20)
    t.hook()
    t.turn()
    t.append(7 << 20, keep=True)  # under 8 MiB, so read whole; the view's newest 4 MiB start inside it
    t.append(*[(1 << 20) - 1] * 3, keep=True)
    data = t.hook()
    assert len(data) > HARD_LIMIT  # nothing may be cut, and no line starts in the newest half budget
    before, asked = os.stat(t.path), len(t.fmt.snapshots)
    t.append(100, keep=True)
    data = t.hook()
    assert os.stat(t.path).st_ino == before.st_ino and len(data) == before.st_size + 101
    assert len(t.fmt.snapshots) == asked  # no re-base at the header's end


# -- what a caller of View relies on (mutants of views.view) -------------------------------------------


def as_v1(t: Transcript, *, native: Path | None = None, without: str = "") -> None:
    """Leave ``t``'s view as v1 did: the native file's bytes, and v1 metadata following ``native``."""
    data = t.native.read_bytes()
    Path(t.path).write_bytes(data)
    meta = {"v": 1, "native": str(native or t.native), "native_start": 0, "native_end": len(data),
            "native_id": [0, 0], "native_mark": "", "follow": True, "turn": -1, "view_size": len(data)}  # fmt: skip
    meta.pop(without, None)
    t.meta_path.write_text(json.dumps(meta))


def test_a_view_names_the_native_file_it_follows_before_and_after_a_v1_upgrade(tmp_path: Path) -> None:
    t = small_session(tmp_path)
    with views.View(t.owner, t.fmt, t.path) as view:
        assert view.native == str(t.native)
    as_v1(t)
    with views.View(t.owner, t.fmt, t.path) as view:
        assert view.legacy and view.native == str(t.native)


def test_a_v1_view_is_rebuilt_by_a_refresh_from_the_file_and_start_it_recorded(tmp_path: Path) -> None:
    for without in ["", "native_start"]:  # v1 metadata without a start: the session starts at byte 0
        t = small_session(tmp_path / (without or "whole"))
        as_v1(t, without=without)
        t.append(100)
        assert views.refreshed(t.owner, t.path, sync=False) is not None  # a v1 view is rebuilt even so
        assert t.meta()["v"] == 2 and t.view() == t.native.read_bytes(), without


def test_a_v1_view_handed_another_file_by_a_hook_follows_that_file(tmp_path: Path) -> None:
    t = small_session(tmp_path)
    old = tmp_path / "old.jsonl"
    old.write_bytes(FIRST + b"\n" + record(1, 40) + b"\n")
    as_v1(t, native=old)
    t.append(100)
    assert t.hook(check=False) == t.native.read_bytes()


def test_a_v1_upgrade_removes_the_views_of_sessions_long_untouched(tmp_path: Path) -> None:
    t = small_session(tmp_path)
    stale = t.meta_path.with_name("gone.json")
    stale.write_text("{}")
    os.utime(stale, (0, 0))
    as_v1(t)
    views.refreshed(t.owner, t.path)
    assert not stale.exists()


def test_a_refresh_without_sync_answers_the_view_as_it_stands(tmp_path: Path) -> None:
    t = small_session(tmp_path)
    before = t.view()
    t.append(100)
    assert views.refreshed(t.owner, t.path, sync=False) is not None
    assert t.view() == before
    assert t.refresh() == t.native.read_bytes()


def test_a_turn_end_pads_no_view_already_larger_than_the_cli_stored_and_never_a_mirror(
    tmp_path: Path,
) -> None:
    for accepts in [True, False]:
        t = small_session(tmp_path / str(accepts), accepts=accepts)
        stored = 1 if accepts else 1 << 16  # a mirror is the agent's file as it is: never padded
        host.session_state(Path(t.owner.repo_root), SESSION, transcript_path=t.path, checkpoint_transcript_start=1,
                           checkpoint_transcript_size=stored)  # fmt: skip
        t.append(100)
        t.hook(EventType.TURN_END, check=False)
        assert t.view() == t.native.read_bytes(), accepts


def test_a_turn_end_pads_a_view_whose_metadata_a_version_before_padding_wrote(tmp_path: Path) -> None:
    t = small_session(tmp_path)
    meta = t.meta()
    del meta["pad"]  # written before views were padded: none
    t.meta_path.write_text(json.dumps(meta))
    data = t.view()
    host.session_state(Path(t.owner.repo_root), SESSION, transcript_path=t.path, checkpoint_transcript_start=1,
                       checkpoint_transcript_size=len(data))  # fmt: skip
    t.hook(EventType.TURN_END, check=False)
    assert t.view() == data + b" "


# -- re-bases: the CLI's stored start, the usage they carry, the metadata they keep (mutants of views.rebase) --


def stored_start(t: Transcript, start: int) -> None:
    """The CLI's state after a commit: it counts the session from line ``start`` of the view."""
    host.session_state(
        Path(t.owner.repo_root), SESSION, transcript_path=t.path, checkpoint_transcript_start=start
    )


@pytest.mark.parametrize("first", [FIRST, b""], ids=["first", "empty-first"])
@pytest.mark.parametrize("extra", [0, 1])
def test_a_turn_start_re_bases_at_the_stored_start_when_what_follows_and_a_header_fit_the_budget(
    tmp_path: Path, first: bytes, extra: int
) -> None:
    t = Transcript(tmp_path, budget=8192, record=8192, first=first)
    t.hook()
    t.append(100)
    at = len(first) + 1 + 101  # line 2, the CLI's stored start
    t.fill(at + 8192 - 2048 + extra)  # what follows it and a header of a quarter budget: the budget, + extra
    before = t.hook()
    stored_start(t, 2)
    data = t.hook(EventType.TURN_START, check=False)
    if extra:  # no room: re-based at the turn's start, as without a stored start
        assert data[head_bytes(data) :] == b""
    else:
        assert views.head_lines_of(data) == 2 and data[head_bytes(data) :] == before[at:]


def test_a_turn_start_leaves_a_view_whose_body_starts_at_the_stored_start_while_it_fits(
    tmp_path: Path,
) -> None:
    t = Transcript(tmp_path, budget=8192, record=8192)
    t.hook()
    t.append(100)
    t.fill(len(FIRST) + 1 + 101 + 8192 - 2048)
    t.hook()
    stored_start(t, 2)
    assert views.head_lines_of(t.hook(EventType.TURN_START, check=False)) == 2
    t.append(500)
    before, asked, st = t.hook(check=False), len(t.fmt.snapshots), os.stat(t.path)
    # With a header of a quarter budget it would not fit: the header it has is the one it keeps.
    assert len(before) - head_bytes(before) + 2048 > 8192
    assert t.hook(EventType.TURN_START, check=False) == before
    assert len(t.fmt.snapshots) == asked and os.stat(t.path).st_ino == st.st_ino  # nothing made again


def test_past_10_mib_the_newest_half_budget_is_kept_even_below_the_stored_start(tmp_path: Path) -> None:
    t = Transcript(tmp_path, budget=8 << 20)
    t.hook()
    t.turn()
    stored_start(t, 7)  # what follows line 7 and a header of a quarter budget fit the budget
    t.append(*[(1 << 20) - 1] * 11, keep=True)  # 11 MiB that may not be cut: past the CLI's limit
    data = t.hook(check=False)
    assert views.frame_of(data, views.BYTES).body == 8 and len(data) - head_bytes(data) == 4 << 20


def test_a_re_base_drops_the_padding_after_the_view_s_last_line(tmp_path: Path) -> None:
    t = Transcript(tmp_path, budget=8192, record=8192)
    t.hook()
    t.fill(7000)  # what follows line 1 and a header of a quarter budget: past the budget
    size = len(t.hook())
    host.session_state(Path(t.owner.repo_root), SESSION, transcript_path=t.path, checkpoint_transcript_start=1,
                       checkpoint_transcript_size=size + 10)  # fmt: skip
    t.hook(EventType.TURN_END, check=False)
    assert t.view() == t.native.read_bytes() + b" " * 11
    t.turn()  # re-based to its header alone, the padding gone (checked)
    t.append(100)
    t.hook()  # the record on a line of its own (checked)


def test_a_re_base_at_the_line_where_v1_offsets_resume_keeps_that_line(tmp_path: Path) -> None:
    t = Transcript(tmp_path, budget=8192, record=8192)
    t.hook()
    t.append(1000, 4500)
    t.hook()
    as_v1(t)  # no turn in progress: offsets v1 handed out resume at the end of the view made anew
    t.hook(check=False)
    with views.View(t.owner, t.fmt, t.path) as view:
        frame, meta = view.frame(), dict(view.file.meta)
    assert (frame.body, frame.end, frame.resume) == (2, 3, 3)
    assert meta["head_bytes"] == offsets.line_start(Path(t.path).read_bytes(), 2), (
        "the marker grew by its resume"
    )
    t.hook(EventType.TURN_START, check=False)  # re-based at the view's end: the resume line starts the body
    t.append(100)
    t.hook(check=False)
    with views.View(t.owner, t.fmt, t.path) as view:
        frame, meta = view.frame(), dict(view.file.meta)
    assert (frame.body, frame.end, frame.resume, frame.line(10)) == (3, 4, 3, 3)
    assert meta["head_bytes"] == offsets.line_start(Path(t.path).read_bytes(), 3)
    # The bytes a subcommand gets on stdin carry it too: the new header's marker names the resume line.
    piped = views.frame_of(Path(t.path).read_bytes(), t.fmt.unit)
    assert (piped.body, piped.resume, piped.line(10)) == (3, 3, 3)


class Counting(Owner):
    """An agent that counts tokens: of records ``{"t": own, "s": its subagents'}`` from a byte on, its own
    and (``totals``) theirs too; a record whose ``t`` is no number it cannot count."""

    totals = True
    calls = 0

    def token_counts(self, transcript: bytes, offset: int) -> tuple[TokenUsage, TokenUsage | None]:  # pyright: ignore[reportIncompatibleMethodOverride]
        self.calls += 1
        own = every = 0
        for line in transcript[offset:].split(b"\n"):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict) and "t" in value:
                if not isinstance(value["t"], int):
                    raise ValueError("a record it cannot count")
                own, every = own + value["t"], every + value["t"] + value["s"]
        return TokenUsage(input_tokens=own), TokenUsage(input_tokens=every) if self.totals else None


def counting(root: Path, *, totals: bool = True) -> tuple[Transcript, functools.partial[None]]:
    """A session of an agent that counts tokens, the CLI counting from line 1; and what writes its records."""
    t = Transcript(root, budget=8192, record=8192)
    t.owner = Counting(root, t.fmt, budget=8192, record=8192)
    t.owner.totals = totals

    def write(t: Transcript, own: object, sub: int, count: int) -> None:
        with t.native.open("ab") as f:
            for _ in range(count):
                f.write(json.dumps({"i": t.count, "t": own, "s": sub, "p": "x" * 1150}).encode() + b"\n")
                t.count += 1

    return t, functools.partial(write, t)


@pytest.mark.parametrize("totals", [True, False], ids=["totals", "own-only"])
def test_a_count_from_the_stored_start_is_the_same_after_each_re_base(tmp_path: Path, totals: bool) -> None:
    t, write = counting(tmp_path, totals=totals)
    write(0, 5, 3)  # only subagents' tokens: what the first re-base drops counts none of the agent's own
    t.hook()
    stored_start(t, 1)

    def counted(data: bytes) -> tuple[int, int]:  # what calculate-tokens and calculate-total-tokens answer
        frame = views.frame_of(data, views.BYTES)
        own, every = t.owner.token_counts(data, frame.local(1))
        own += frame.carried(1) or TokenUsage()
        every = own if every is None else every + (frame.carried(1, total=True) or TokenUsage())
        return own.input_tokens, every.input_tokens

    for own, sub, whole in [(2, 1, (8, 27)), (3, 4, (20, 55)), (1, 0, (24, 59))]:
        t.hook(EventType.TURN_START, check=False)
        write(own, sub, 4)
        data = t.hook(check=False)  # past the budget: re-based at the turn's start, far past line 1
        assert views.head_lines_of(data) > 1
        assert counted(data) == (whole if totals else (whole[0], whole[0]))


def test_a_re_base_of_a_view_the_agent_cannot_count_carries_nothing(tmp_path: Path) -> None:
    t, write = counting(tmp_path)
    write(1, 0, 1)
    write("?", 0, 1)
    write(1, 0, 1)
    t.hook()
    stored_start(t, 1)
    t.hook(EventType.TURN_START, check=False)
    write(2, 0, 4)
    frame = views.frame_of(t.hook(check=False), views.BYTES)
    assert frame.body == 4 and frame.cut is None


def test_a_turn_re_based_at_its_start_stays_whole_when_the_agent_then_rewrites_its_file(
    tmp_path: Path,
) -> None:
    t = Transcript(tmp_path, budget=8192, record=8192)
    t.hook()
    t.append(3000)
    t.turn()
    t.append(2500, 2500, 2500)  # past the budget: re-based at the turn's start
    assert views.frame_of(t.hook(), views.BYTES).body == 2
    native = t.native.read_bytes()
    t.native.write_bytes(
        native.replace(b'"i": 1, "p": "x', b'"i": 1, "p": "y')
    )  # not the bytes the view read
    data = t.hook(check=False)  # made anew
    assert data[head_bytes(data) :] == native[len(FIRST) + 1 + 3001 :]  # the turn in progress, whole


def test_a_turn_whose_stored_start_a_re_base_kept_is_re_based_at_its_own_start_next(tmp_path: Path) -> None:
    t = Transcript(tmp_path, budget=8192, record=8192)
    t.hook()
    t.append(3900, 100)
    t.hook()
    stored_start(t, 2)
    t.turn()
    t.append(*[1000] * 5)  # past the budget: re-based at the stored start, a line before the turn
    assert views.frame_of(t.hook(), views.BYTES).body == 2
    t.append(*[1000] * 4)  # past it again: now at the turn's start (checked: the turn kept whole)
    assert views.frame_of(t.hook(), views.BYTES).body == 3


def test_a_view_cut_past_10_mib_keeps_no_turn_when_the_agent_then_starts_its_file_again(
    tmp_path: Path,
) -> None:
    t = Transcript(tmp_path, budget=8 << 20)
    t.hook()
    t.turn()
    t.append(*[(1 << 20) - 1] * 11, keep=True)  # the turn's start cut away with its oldest records
    assert views.frame_of(t.hook(check=False), views.BYTES).body == 8
    t.native.write_bytes(FIRST + b"\n" + b"".join(record(n, (1 << 20) - 1) + b"\n" for n in range(1, 6)))
    data = t.hook(check=False)  # 5 MiB: made anew as a first view is, its newest quarter budget kept
    assert len(data) - head_bytes(data) == 2 << 20


def test_a_re_base_that_keeps_all_from_the_stored_start_asks_the_agent_for_no_count(tmp_path: Path) -> None:
    # Nothing after the start the CLI counts from is dropped: there is no usage to carry, and counting
    # the view twice would only slow the hook down.
    t, write = counting(tmp_path)
    write(1, 0, 1)
    t.hook()
    write(1, 0, 5)
    t.hook()
    stored_start(t, 2)
    data = t.hook(EventType.TURN_START, check=False)
    assert views.head_lines_of(data) == 2 and t.owner.calls == 0
