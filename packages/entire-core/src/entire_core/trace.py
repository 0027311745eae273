"""``ENTIRE_PLUGIN_TRACE=<file>``: one JSON line per protocol call appended to the file, for the ``host``
tests' recordings (``tests/host/record.py``).

The dispatcher imports this module only when the variable is set (``cli._run_protocol``), so a plugin's
calls pay nothing for it otherwise. The front (``entire_core.front``) writes the same line in ``sh`` for
the calls it answers itself, marked ``"via": "front"``.
"""

from __future__ import annotations

import os


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


def write(agent: str, name: str, args: list[str], seen: dict[str, bytes], code: int) -> None:
    """Append the line of this call to ``$ENTIRE_PLUGIN_TRACE``: the subcommand, its flags, a digest of
    stdin and the answer (each whole when small), its exit status and the host process that called."""
    import hashlib
    import json
    import time

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
    try:
        with open(os.environ["ENTIRE_PLUGIN_TRACE"], "a", encoding="utf-8") as trace:
            trace.write(json.dumps(record, sort_keys=True) + "\n")
    except OSError:
        pass
