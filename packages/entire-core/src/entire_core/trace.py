"""``ENTIRE_PLUGIN_TRACE=<file>``: one JSON line per protocol call appended to the file, for the ``host``
tests' recordings (``tests/host/record.py``).

The dispatcher imports this module only when the variable is set (``cli._run_protocol``), so a plugin's
calls pay nothing for it otherwise. The front (``entire_core.front``) writes the same line in ``sh`` for
the calls it answers itself, marked ``"via": "front"``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def files_at_hook(stdin: bytes, output: bytes, keep: str = "") -> dict[str, list[object]]:
    """``{path: [size, sha256]}`` of the payload's ``transcript_path`` and the answer's ``session_ref``;
    with ``keep`` (a directory), their bytes too, as ``keep/<sha256>``: a recording then has each file
    as it stood at its last hook, even one deleted before the end (a resume test's, an agent's own)."""
    import hashlib
    import json

    named: list[object] = []
    for raw in (stdin, output):
        try:
            value = json.loads(raw or b"null")
        except ValueError:
            continue
        if isinstance(value, dict):
            named += [value.get("transcript_path"), value.get("session_ref")]  # pyright: ignore[reportUnknownMemberType]
    found: dict[str, list[object]] = {}
    for path in named:
        if isinstance(path, str) and path and os.path.isfile(path):
            with open(path, "rb") as f:
                data = f.read()
            digest = hashlib.sha256(data).hexdigest()
            found[path] = [len(data), digest]
            if keep:
                try:
                    os.makedirs(keep, exist_ok=True)
                    with open(os.path.join(keep, digest), "wb") as f:
                        f.write(data)
                except OSError:
                    pass  # a copy that cannot be kept: the recording has the final bytes only
    return found


NOT_NATIVE = ("/.entire/", "/entire-agent-", "/.git/")
"""Paths of files a read of which is not of the agent's own: the host's and our state (scratch, views,
install records), git's."""


def note_reads(keep: str) -> dict[str, list[object]]:
    """From now on, note each regular file this process opens to read (``open(path, "rb")`` or ``"r"``)
    outside ``NOT_NATIVE``, Python's own files and ``/proc``, ``/sys``, ``/dev``: ``{path: [size,
    sha256]}`` as it stood when last opened (a call waiting for a file reads it again), its bytes kept
    as ``keep/<sha256>``.

    These are the agent's own files a call read that no payload or answer names (Cline's messages
    document, its manifest, a subagent's file): a recording then has each as the plugin read it at each
    hook, so that a replay can put it back."""
    import builtins
    import hashlib
    import sys

    reads: dict[str, list[object]] = {}
    skip = (*{sys.prefix, sys.base_prefix, sys.exec_prefix}, "/proc/", "/sys/", "/dev/")
    real_open = builtins.open

    def note(path: str, data: bytes) -> None:
        digest = hashlib.sha256(data).hexdigest()
        reads[path] = [len(data), digest]
        os.makedirs(keep, exist_ok=True)
        with real_open(os.path.join(keep, digest), "wb") as out:
            out.write(data)

    class Noted:
        """The file as opened, but a whole read from its start notes the bytes it returns: the file may be
        rewritten in place (Cline's ``writeFileSync``) between the open and the read."""

        def __init__(self, f: Any, path: str) -> None:
            self.f, self.path = f, path

        def read(self, size: int = -1) -> Any:
            at = self.f.tell()
            data = self.f.read(size)
            if size < 0 and at == 0 and isinstance(data, bytes):
                note(self.path, data)
            return data

        def __enter__(self) -> Noted:
            self.f.__enter__()
            return self

        def __exit__(self, *exc: object) -> Any:
            return self.f.__exit__(*exc)

        def __iter__(self) -> Any:
            return iter(self.f)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.f, name)

    def traced_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        f = real_open(file, mode, *args, **kwargs)
        try:
            path = os.path.abspath(file) if isinstance(file, str) else ""
            native = path and not path.startswith(skip) and not any(p in path for p in NOT_NATIVE)
            if native and not path.endswith(".lock") and set(mode) <= set("rbt") and os.path.isfile(path):
                note(path, os.pread(f.fileno(), os.fstat(f.fileno()).st_size, 0))
                return Noted(f, path) if "b" in mode else f
        except (OSError, ValueError):
            pass  # a file not noted: the recording lacks it, the call goes on
        return f

    builtins.open = traced_open
    return reads


def write(
    agent: str, name: str, args: list[str], seen: dict[str, bytes], code: int, reads: dict[str, list[object]]
) -> None:
    """Append the line of this call to ``$ENTIRE_PLUGIN_TRACE``: the subcommand, its flags, a digest of
    stdin and the answer (each whole when small), its exit status and the host process that called."""
    import hashlib
    import json
    import time

    reads = dict(reads)  # what the call read, not what this function reads next
    stdin, output = seen.get("stdin", b""), seen.get("output", b"")
    record: dict[str, object] = {
        "time": time.time(),
        "agent": agent,
        "host_pid": os.getppid(),  # the host process that called: its calls told apart from a concurrent one's
        "subcommand": name,
        "args": args,
        "stdin_sha256": hashlib.sha256(stdin).hexdigest(),
        "stdin_len": len(stdin),
        "code": code,
        "answer_sha256": hashlib.sha256(output).hexdigest(),
        "via": "python",  # the front (entire_core.front) writes its own calls' lines, marked "front"
    }
    if len(output) <= 4096:
        record["answer"] = output.decode("utf-8", "replace")
    if name == "parse-hook" or len(stdin) <= 4096:
        record["stdin"] = stdin.decode("utf-8", "replace")
    if name == "parse-hook":  # the files as they stood at this hook: the agent's own, and the view answered
        record["files"] = files_at_hook(stdin, output, os.environ["ENTIRE_PLUGIN_TRACE"] + ".files")
    if reads:  # the agent's files the call read besides (note_reads)
        record["reads"] = reads
    try:
        with open(os.environ["ENTIRE_PLUGIN_TRACE"], "a", encoding="utf-8") as trace:
            trace.write(json.dumps(record, sort_keys=True) + "\n")
    except OSError:
        pass
