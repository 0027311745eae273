"""Where Codex keeps its files: ``CODEX_HOME``, the dated rollout tree, and finding a thread's rollout.

Codex writes each thread (a session or a subagent) to
``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<thread id>.jsonl``, dated in local time
when the thread was created. Thread ids are UUIDv7, whose first 48 bits are that creation time in
milliseconds, so a thread's directory can be computed from its id instead of searched for.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from datetime import datetime

ROLLOUT_PREFIX = "rollout-"
ROLLOUT_SUFFIX = ".jsonl"


def codex_home(env: Mapping[str, str]) -> str:
    """``$CODEX_HOME``, else ``~/.codex`` of the home the environment names (``USERPROFILE`` on Windows)."""
    home = env.get("CODEX_HOME", "")
    if home:
        return home
    from entire_core.paths import home_dir

    return os.path.join(home_dir(env), ".codex")


def sessions_dir(env: Mapping[str, str]) -> str:
    """The root of Codex's live rollouts."""
    return os.path.join(codex_home(env), "sessions")


def uuid7_time(thread_id: str) -> datetime | None:
    """The creation time a UUIDv7 thread id encodes (aware, UTC), or None for any other id."""
    from datetime import UTC, datetime

    hex_digits = thread_id.replace("-", "")
    if len(thread_id) != 36 or len(hex_digits) != 32 or hex_digits[12] != "7":
        return None
    try:
        millis = int(hex_digits[:12], 16)
    except ValueError:
        return None
    return datetime.fromtimestamp(millis / 1000, UTC)


def rollout_name(thread_id: str, created: datetime) -> str:
    """The file name Codex gives a rollout created at ``created`` (formatted as given)."""
    return f"{ROLLOUT_PREFIX}{created.strftime('%Y-%m-%dT%H-%M-%S')}-{thread_id}{ROLLOUT_SUFFIX}"


def rollout_path(root: str, thread_id: str, created: datetime) -> str:
    """``<root>/YYYY/MM/DD/rollout-...-<id>.jsonl`` for a thread created at ``created`` (local time)."""
    local = created.astimezone()
    return os.path.join(root, f"{local:%Y}", f"{local:%m}", f"{local:%d}", rollout_name(thread_id, local))


def candidate_days(thread_id: str) -> Iterator[str]:
    """``YYYY/MM/DD`` directories the thread's rollout may be in, most likely first."""
    from datetime import timedelta

    created = uuid7_time(thread_id)
    if created is None:
        return
    seen: set[str] = set()
    # Codex dates in local time; a machine that moved time zones, or a clock at midnight, may differ.
    for moment in (created.astimezone(), created, created - timedelta(days=1), created + timedelta(days=1)):
        day = os.path.join(f"{moment:%Y}", f"{moment:%m}", f"{moment:%d}")
        if day not in seen:
            seen.add(day)
            yield day


def match_in(directory: str, thread_id: str) -> str | None:
    """The newest rollout of ``thread_id`` directly in ``directory``, or None."""
    suffix = f"-{thread_id}{ROLLOUT_SUFFIX}"
    try:
        names = sorted(
            n for n in os.listdir(directory) if n.startswith(ROLLOUT_PREFIX) and n.endswith(suffix)
        )
    except OSError:
        return None
    return os.path.join(directory, names[-1]) if names else None


def find_rollout(thread_id: str, env: Mapping[str, str], *, near: str = "") -> str | None:
    """The rollout file of ``thread_id``, or None.

    ``near`` is a directory to look in first (the parent's rollout directory: children are usually
    created the same day). Then the days the id's timestamp points at, then every day directory of
    the live and the archived trees. ``thread_id`` must already be validated as a path component.
    """
    if near:
        found = match_in(near, thread_id)
        if found:
            return found
    home = codex_home(env)
    roots = [os.path.join(home, "sessions"), os.path.join(home, "archived_sessions")]
    for day in candidate_days(thread_id):
        found = match_in(os.path.join(roots[0], day), thread_id)
        if found:
            return found
    import glob

    pattern = f"{ROLLOUT_PREFIX}*-{thread_id}{ROLLOUT_SUFFIX}"
    for root in roots:
        matches = sorted(glob.glob(os.path.join(glob.escape(root), "*", "*", "*", pattern)))
        matches += sorted(glob.glob(os.path.join(glob.escape(root), pattern)))
        if matches:
            return matches[-1]
    return None
