"""What ``install-hooks`` created, remembered so that ``uninstall-hooks`` removes exactly that.

"Delete the file only if we created it and it is now empty" needs a memory across processes: the
record is kept per user in ``$XDG_DATA_HOME/entire-agent-<name>/installs.json`` (``%LOCALAPPDATA%``
on Windows; not in the repository, so nothing of ours shows up in ``git status``), keyed by the real
path of the edited file.
Forgetting is safe: without a record, uninstall leaves the file and directories in place.

A record says what we wrote, so it is trusted only while the file is still that: ``remember`` stores a
fingerprint (SHA-256) of the file as the install left it, and ``recall`` returns nothing when the file
on disk is anything else (edited, deleted and written again by hand, committed by the user). From then
on the user owns the file, and uninstall removes only our own entries.

An uninstall is marked under way (``uninstalling``) from before its first change until after its last
(the agent's config restored, the record dropped, every lock released): killed in between, it has
taken the hooks out but left its bookkeeping (a lock file in the temporary directory, the record), and
``are-hooks-installed`` answers true while the mark is there (``uninstall_unfinished``), so that the
retried ``entire disable`` calls ``uninstall-hooks`` again, which finishes it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


def _records_file(env: Mapping[str, str], agent_name: str) -> str:
    from entire_core.paths import xdg_home

    return os.path.join(
        xdg_home(env, "XDG_DATA_HOME", ".local", "share"), f"entire-agent-{agent_name}", "installs.json"
    )


def _key(path: str) -> str:
    # normcase: on Windows C:\Repo and c:\repo are one file, and realpath keeps the caller's spelling
    # of a file that does not exist yet.
    return os.path.normcase(os.path.realpath(path))


def fingerprint(path: str, ignore: tuple[str, ...] = ()) -> str:
    """The SHA-256 of the file's bytes (``""`` when there is no such file).

    ``ignore`` names top-level keys an agent writes into its JSON(C) file itself when it loads it (Qwen
    Code adds ``"$version"``, and before 0.23 writes the whole file anew, without comments): the
    fingerprint is then of the file's data without those keys, so the agent's own writes do not make
    the record stale, while any change of the user's data still does.
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return ""
    return _digest(data, ignore)


def _digest(data: bytes, ignore: tuple[str, ...]) -> str:
    import hashlib

    if ignore:
        data = _data_without(data, ignore)
    return hashlib.sha256(data).hexdigest()


def _data_without(data: bytes, keys: tuple[str, ...]) -> bytes:
    """The JSONC object in ``data`` without the top-level ``keys``, canonically; ``data`` when it does not parse."""
    import json

    from entire_core.config.json import parse_json_text
    from entire_core.errors import ConfigError

    try:
        value = parse_json_text(data.decode("utf-8"), comments=True)
    except (UnicodeDecodeError, ConfigError, RecursionError):
        return data
    if not isinstance(value, dict):
        return data
    kept = {k: v for k, v in value.items() if k not in keys}  # pyright: ignore[reportUnknownVariableType]
    return json.dumps(kept, sort_keys=True, ensure_ascii=False).encode("utf-8")


FINGERPRINT = "sha256"
"""The record's key for the fingerprint of the file as the install left it."""


ORIGINAL = "original"
"""The record's key for the text of a file that held nothing before the install (see ``remember``)."""

NEXT = "next"
"""The record's key for the record of a write under way: trusted once the file is what it describes."""


def _record(
    env: Mapping[str, str], agent_name: str, path: str, ignore: tuple[str, ...] = ()
) -> dict[str, object]:
    """The record of ``path`` while the file is still what we wrote; ``{}`` otherwise."""
    import json

    from entire_core import jsonvalues

    try:
        with open(_records_file(env, agent_name), encoding="utf-8") as f:
            records = jsonvalues.obj(json.load(f))
    except (OSError, ValueError):
        return {}
    record = jsonvalues.obj(records.get(_key(path)))
    sha = fingerprint(path, ignore)
    if record.get(FINGERPRINT) == sha:
        return record
    pending = jsonvalues.obj(record.get(NEXT))
    return pending if pending.get(FINGERPRINT) == sha else {}


def recall(
    env: Mapping[str, str], agent_name: str, path: str, ignore: tuple[str, ...] = ()
) -> dict[str, bool]:
    """What our installs created for ``path``: ``{}`` when nothing, when we do not know, or when the
    file is no longer what we wrote (the record is stale and the user owns the file)."""
    return {k: v for k, v in _record(env, agent_name, path, ignore).items() if isinstance(v, bool)}


def recall_folder(env: Mapping[str, str], agent_name: str, path: str) -> bool:
    """Whether our install created the folder of ``path``, once ``path`` itself is gone: nothing of the
    user's is in a file that is not there, so the record counts without its fingerprint, and the
    folder goes when it is empty (an uninstall killed between deleting the file and its folder)."""
    import json

    from entire_core import jsonvalues

    if os.path.lexists(path):
        return False
    try:
        with open(_records_file(env, agent_name), encoding="utf-8") as f:
            records = jsonvalues.obj(json.load(f))
    except (OSError, ValueError):
        return False
    record = jsonvalues.obj(records.get(_key(path)))
    return record.get("created_dir") is True or jsonvalues.obj(record.get(NEXT)).get("created_dir") is True


def recall_original(
    env: Mapping[str, str], agent_name: str, path: str, ignore: tuple[str, ...] = ()
) -> str | None:
    """The text ``path`` held before our first install when it held nothing (``remember``'s ``original``);
    None when it held something, or when the record is stale."""
    original = _record(env, agent_name, path, ignore).get(ORIGINAL)
    return original if isinstance(original, str) else None


def remember(
    env: Mapping[str, str],
    agent_name: str,
    path: str,
    *,
    original: str | None = None,
    ignore: tuple[str, ...] = (),
    written: bytes | None = None,
    **created: bool,
) -> None:
    """Record what the installs created for ``path``, with the fingerprint of the file as it is now, or
    as it will be: ``written``, the bytes about to be written (an editor's ``before_write``).

    Call it with ``written`` before the write, so that an install killed after writing the file still
    left its record (otherwise the file it created would be the user's from then on), and again after
    it, which also covers an edit that wrote nothing. The record made before the write is kept beside
    the earlier one (``NEXT``), which stays trusted while the file is still what it describes: killed
    before its write, the install changed nothing. The record made after replaces any earlier one:
    an install merges what ``recall`` returned before its edit (still trusted then) with what it
    created itself. ``original`` is the text of a file that existed but held nothing (empty, only
    whitespace), which uninstall gives back as it was: no editor writes ``{}`` back as an empty file.
    """
    from entire_core import jsonvalues
    from entire_core.config.json import edit_json

    key = _key(path)
    with edit_json(_records_file(env, agent_name)) as doc:
        records = jsonvalues.obj(doc.data)
        sha = fingerprint(path, ignore) if written is None else _digest(written, ignore)
        record: dict[str, object] = {**created, FINGERPRINT: sha}
        if original is not None:
            record[ORIGINAL] = original
        if written is not None:
            record = {**jsonvalues.obj(records.get(key)), NEXT: record}
        records[key] = record
        doc.data = records


def forget(env: Mapping[str, str], agent_name: str, path: str) -> None:
    """Drop the record of ``path`` (after uninstalling); the records file goes when it is empty."""
    from entire_core import jsonvalues
    from entire_core.config.json import edit_json

    # No look for the file first: another uninstall may take it out while this one waits for its lock,
    # and a missing file (read as no records) is then nothing to forget, not an error.
    records_file = _records_file(env, agent_name)
    with edit_json(records_file) as doc:
        records = jsonvalues.obj(doc.data)
        records.pop(_key(path), None)
        doc.data = records
        if not records:
            doc.delete()
    if not os.path.exists(records_file):
        try:  # noqa: SIM105 - contextlib would be one more import
            os.rmdir(
                os.path.dirname(records_file)
            )  # ours alone: nothing may be left after the last uninstall
        except OSError:
            pass  # not empty: something else of ours or the user's is in it


def _uninstall_mark(env: Mapping[str, str], agent_name: str, repo_root: str) -> str:
    """The file that says an uninstall in ``repo_root`` began and has not finished, beside the records."""
    from entire_core._digest import sha256_hex

    real = os.path.normcase(os.path.realpath(repo_root))
    digest = sha256_hex(real.encode("utf-8", "surrogateescape"))[:32]
    return os.path.join(os.path.dirname(_records_file(env, agent_name)), f"uninstalling-{digest}")


def uninstall_unfinished(env: Mapping[str, str], agent_name: str, repo_root: str) -> bool:
    """Whether an uninstall in ``repo_root`` began and did not finish (killed): hooks, a record or a lock
    of ours may still be there, and only ``uninstall-hooks`` takes them out. Reads, never writes."""
    return os.path.lexists(_uninstall_mark(env, agent_name, repo_root))


class uninstalling:  # lower case: a context manager, as locks.exclusive
    """Mark an uninstall in ``repo_root`` under way for the ``with`` block; the mark goes only when the
    block ends without an error, after everything in it (records, locks) is done.

    The mark is an empty file, made and removed each in one step: killed before it is made, nothing has
    changed yet (the hooks are in, ``are-hooks-installed`` says so); killed after it is removed, nothing
    is left to do. A failed uninstall keeps it: the hooks may still be in.
    """

    def __init__(self, env: Mapping[str, str], agent_name: str, repo_root: str) -> None:
        self.mark = _uninstall_mark(env, agent_name, repo_root)

    def __enter__(self) -> uninstalling:
        os.makedirs(os.path.dirname(self.mark), exist_ok=True)
        os.close(os.open(self.mark, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600))
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is not None:
            return
        try:  # noqa: SIM105 - contextlib would be one more import
            os.unlink(self.mark)
        except FileNotFoundError:
            pass  # another uninstall of the same repository finished first
        try:  # noqa: SIM105
            os.rmdir(os.path.dirname(self.mark))  # ours alone: nothing may be left after the last uninstall
        except OSError:
            pass  # not empty: the records of other files, or another uninstall under way
