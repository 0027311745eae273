"""Bounded transcript views (v2): what the Entire CLI sees of a session, whatever the size of the agent's file.

The CLI refuses any answer over 10 MiB, and ``read-transcript`` must print the whole transcript, so a
session past that size would get no checkpoint ever again. Instead of the agent's native file the CLI
is handed a *view*: a file kept beside the plugin's other state (outside the repository) that never
grows past a budget (``ENTIRE_VIEW_BUDGET``, 8 MiB by default).

Positions are lines, as the CLI counts them (split on ``\\n``, trailing blank lines dropped): every
position we answer and every ``--offset`` we take is a line index of the view. The CLI stores such a
count as ``checkpoint_transcript_start`` and slices the view by it itself.

- One view line per native line, appended incrementally: each call reads only the native bytes
  written since the last one. The native file is only ever read.
- A *native* view (``ViewFormat.wrap = False``, e.g. Codex rollouts, which the CLI's compactor
  reads) copies the agent's lines as they are. A *wrapped* view (``wrap = True``) is for formats the
  CLI's compactor cannot read: each native line becomes one generic-JSONL line
  ``{"type":"user"|"assistant"|"native","timestamp":...,"message":{"role":...,"content":[blocks]},
  "native":<the native JSON value>}`` (``"native_text"`` for a line that is not JSON or would not
  re-serialise to the same bytes, ``"native_b64"`` for bytes that are not UTF-8). ``unwrap`` gives the
  native line back; ``native_bytes`` the agent's whole file (``write-session``).
- A record larger than the per-record budget is shortened as it is copied, by the agent, with a
  visible marker that says what was cut.
- At a turn boundary, a view holding more than half its budget is *re-based*, keeping line numbers:
  its first K lines are replaced by a header of exactly K lines,
  ``[the first line][blank padding][{"type":"entire_view","v":2,"body":K}][snapshot records]``,
  where the snapshot is the agent's own restatement of what came before (Codex's ``compacted``
  record, Gemini's ``$set.messages``). Line N stays line N. A re-base never cuts below the
  ``checkpoint_transcript_start`` the CLI stored for the session while what follows it fits the budget;
  when it must, the marker carries the token usage a count from that start loses (``"cut"``), which
  ``calculate-tokens`` adds back (a session committed only at its end, far past the budget).
- An offset inside the header means the body's start; one past the end means the end (or, for a
  view upgraded from v1 while a turn was in progress, that turn's first line: ``resume``).
- A turn never starts at line 0 of a wrapped view, which the CLI reads as no start at all: a wrapped
  view that holds nothing when a turn starts (the agent writes its file after the prompt's hook) gets
  ``LEAD``, a line of its own, first; line N is then the session's line N - 1, and a header keeps
  ``LEAD`` as its first line, the session's first line as its first snapshot record. Views that started
  with a line of the agent's (all those of earlier releases) keep line N = line N.
- At TurnEnd a view may end with spaces after its last line (``View.turn_ended``): the CLI judges an
  idle session's new work by the view's size in bytes, and a re-based view is smaller than the one it
  last stored. The CLI counts no line there; every reader here reads lines, and the next append
  writes over them.

How an agent declares its format (``Agent.view_format`` returns an instance)::

    class MyView(views.ViewFormat):
        wrap = True                                   # generic JSONL around my native lines
        def record(self, value):                      # one parsed native JSON line
            if value.get("type") == "user":
                return "user", [{"type": "text", "text": value["text"]}], value.get("ts")
            return "native", [], value.get("ts")      # or None: the same
        def snapshot(self, path, end, limit): ...     # native records restating path[:end]
        def shorten(self, record, limit): ...         # a native record cut to about limit bytes

Blocks are ``{"type":"text","text"}``, ``{"type":"tool_use","id","name","input"}`` and
``{"type":"tool_result","tool_use_id","content"}``; an assistant record may carry ``id`` and
``usage`` through ``message_extra``. Parsers read the view with ``native_lines`` (or ``unwrap`` a
line), so they see the agent's own records. ``snapshot`` always receives a file of native lines.

Crash safety: the view's metadata (``.meta/<key>.json``) is the commit point. An append that was not
committed is cut off again; a rewritten view is prepared as ``<view>.next``, the metadata names it,
and only then is it renamed into place. Concurrent hooks are serialised by ``.meta/<key>.lock``.
Metadata lost while the view is there (deleted, or torn) is read back from the view and the native file,
the view going on exactly as it stands (``views.reclaim``); a view that no longer matches the native
file then fails every call on it, so that the CLI stores no checkpoint rather than one of another view.
A view written by v1 (byte positions, a tag in its header) is rebuilt on first touch.

The package: ``view`` (``View`` and what the subcommands call), ``reclaim`` (a view's lost metadata read
back), ``follow`` (keeping up with the native file), ``rebase`` (keeping within the budget), ``header`` (a header's lines), ``store`` (the view file
and its metadata, where views live), ``frames`` and ``wire`` (reading view bytes), ``legacy`` (v1),
``format`` (what an agent declares: ``ViewFormat``, the budgets). Each uses only those after it, and
is loaded when first used.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    # The tools a ViewFormat cuts with, re-exported (loaded only when a record is cut).
    from entire_core.cutting import MARKER as MARKER
    from entire_core.cutting import MIN_KEEP as MIN_KEEP
    from entire_core.cutting import Path as Path
    from entire_core.cutting import StringCutter as StringCutter
    from entire_core.cutting import TextCutter as TextCutter
    from entire_core.cutting import cut_text as cut_text
    from entire_core.cutting import shorten_json as shorten_json
    from entire_core.cutting import shorten_value as shorten_value

    # What the package hands on, each from the module that holds it (loaded on first use by ``__getattr__``).
    from entire_core.views.format import ASSISTANT as ASSISTANT
    from entire_core.views.format import BUDGET_ENV as BUDGET_ENV
    from entire_core.views.format import BYTES as BYTES
    from entire_core.views.format import DEFAULT_BUDGET as DEFAULT_BUDGET
    from entire_core.views.format import DEFAULT_RECORD_BUDGET as DEFAULT_RECORD_BUDGET
    from entire_core.views.format import HARD_LIMIT as HARD_LIMIT
    from entire_core.views.format import HUGE_KEEP as HUGE_KEEP
    from entire_core.views.format import HUGE_RECORD as HUGE_RECORD
    from entire_core.views.format import KEEP_SECONDS as KEEP_SECONDS
    from entire_core.views.format import LINES as LINES
    from entire_core.views.format import MIN_BUDGET as MIN_BUDGET
    from entire_core.views.format import NATIVE as NATIVE
    from entire_core.views.format import REBASE_AT as REBASE_AT
    from entire_core.views.format import RECORD_BUDGET_ENV as RECORD_BUDGET_ENV
    from entire_core.views.format import SHRINK_TO as SHRINK_TO
    from entire_core.views.format import SNAPSHOT_SHARE as SNAPSHOT_SHARE
    from entire_core.views.format import USER as USER
    from entire_core.views.format import Budget as Budget
    from entire_core.views.format import Mapped as Mapped
    from entire_core.views.format import ViewFormat as ViewFormat
    from entire_core.views.format import ViewOwner as ViewOwner
    from entire_core.views.frames import Frame as Frame
    from entire_core.views.frames import file_starts as file_starts
    from entire_core.views.frames import frame_of as frame_of
    from entire_core.views.frames import frame_of_file as frame_of_file
    from entire_core.views.frames import host_lines as host_lines
    from entire_core.views.header import snapshot_of as snapshot_of
    from entire_core.views.legacy import TAG_PREFIX as TAG_PREFIX
    from entire_core.views.store import VERSION as VERSION
    from entire_core.views.store import is_view_path as is_view_path
    from entire_core.views.store import views_dir as views_dir
    from entire_core.views.view import View as View
    from entire_core.views.view import attach as attach
    from entire_core.views.view import native_of as native_of
    from entire_core.views.view import native_subagents_dir as native_subagents_dir
    from entire_core.views.view import refreshed as refreshed
    from entire_core.views.wire import LEAD as LEAD
    from entire_core.views.wire import MARKER_PREFIX as MARKER_PREFIX
    from entire_core.views.wire import VIEW_LINE as VIEW_LINE
    from entire_core.views.wire import head_lines_of as head_lines_of
    from entire_core.views.wire import lines_as_native as lines_as_native
    from entire_core.views.wire import marker as marker
    from entire_core.views.wire import native_bytes as native_bytes
    from entire_core.views.wire import native_lines as native_lines
    from entire_core.views.wire import record_of as record_of
    from entire_core.views.wire import rewrap as rewrap
    from entire_core.views.wire import unpadded as unpadded
    from entire_core.views.wire import unwrap as unwrap
    from entire_core.views.wire import wrap as wrap

_HOMES = {
    "format": ["ASSISTANT", "BUDGET_ENV", "BYTES", "DEFAULT_BUDGET", "DEFAULT_RECORD_BUDGET", "HARD_LIMIT",
               "HUGE_KEEP", "HUGE_RECORD", "KEEP_SECONDS", "LINES", "MIN_BUDGET", "NATIVE", "REBASE_AT",
               "RECORD_BUDGET_ENV", "SHRINK_TO", "SNAPSHOT_SHARE", "USER", "Budget", "ViewFormat"],
    "frames": ["Frame", "file_starts", "frame_of", "frame_of_file", "host_lines"],
    "header": ["snapshot_of"],
    "legacy": ["TAG_PREFIX"],
    "store": ["VERSION", "is_view_path", "views_dir"],
    "view": ["View", "attach", "native_of", "native_subagents_dir", "refreshed"],
    "wire": ["LEAD", "MARKER_PREFIX", "VIEW_LINE", "head_lines_of", "lines_as_native", "marker", "native_bytes",
             "native_lines", "record_of", "rewrap", "unpadded", "unwrap", "wrap"],
}  # fmt: skip
"""The module of the package that holds each name this package hands on."""
_HOME = {name: module for module, names in _HOMES.items() for name in names}
_CUTTING = frozenset(
    ["MARKER", "MIN_KEEP", "Path", "StringCutter", "TextCutter", "cut_text", "shorten_json", "shorten_value"]
)


def __getattr__(name: str) -> object:
    """A name of the package, loaded from its module on first use: a subcommand loads only the parts it uses.

    The cutting tools are re-exported so that an agent imports ``views`` alone, loaded only when a record is cut.
    """
    if name in _CUTTING:
        from entire_core import cutting

        return getattr(cutting, name)
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(__import__(f"{__name__}.{home}", fromlist=[name]), name)
    globals()[name] = value
    return value
