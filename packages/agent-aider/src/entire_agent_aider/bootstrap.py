"""Runs Aider in Aider's own interpreter with Entire's turn hooks at the exact points (the launcher's child).

usage: ``<Aider's python> bootstrap.py <aider arguments>``, with ``ENTIRE_AIDER_INPROC`` (JSON, written by
``entire_agent_aider.launcher``) naming the ``entire`` binary, the history file, the session and the plugin.

This file is run by Aider's interpreter (a uv tool or pipx environment), where neither ``entire_core``
nor this package is importable: it uses the standard library and Aider only. It wraps three of
Aider's functions, and calls ``entire hooks aider <hook>`` from Aider's own process (so the process
the Entire CLI records as the session's owner is Aider, alive as long as the session):

- ``Coder.send_message`` (a model call): the first one of a turn delivers TurnStart and waits for
  Entire to finish, so Entire has the turn before Aider edits or commits anything;
- ``Coder.get_input`` (Aider asks for the next input): the open turn is over, TurnEnd. A confirmation
  inside a turn ("Add file to the chat?", "Create new file?") asks through ``confirm_ask``, not here;
- ``GitRepo.commit``: before Aider commits, the session's view is brought up to everything Aider has
  written (Entire reads it at the commit), and Entire's commit hooks are told there is no one to ask
  (``GIT_TERMINAL_PROMPT=0``): Aider holds the terminal.

If one of them is missing (an Aider outside the tested window), none is wrapped: Aider runs, and
Entire records no turn rather than a wrong one. If Aider cannot be imported here at all, the real
``aider`` executable runs instead, unwrapped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any, cast

ENV = "ENTIRE_AIDER_INPROC"
DELIVERY_ENV = "ENTIRE_EVENT_DELIVERY"
"""``entire_core.eventqueue.DELIVERY_ENV``: this process, which acknowledges the events its calls take."""
MARK = "answering"
"""``entire_core.eventqueue.MARK``: the key of a queued event that names who answers it."""
HOOK_TIMEOUT = 120.0
HOOK_POINTS = (("aider.coders.base_coder", "Coder", "send_message"),
               ("aider.coders.base_coder", "Coder", "get_input"),
               ("aider.repo", "GitRepo", "commit"))  # fmt: skip


class Hooks:
    """Delivers our payloads to ``entire hooks`` from this process, one call per queued event."""

    def __init__(self, config: dict[str, object]) -> None:
        self.config = config
        self.turn_open = False
        self.failures: list[str] = []

    def _text(self, key: str) -> str:
        value = self.config.get(key)
        return value if isinstance(value, str) else ""

    def payload(self, hook: str, **extra: object) -> dict[str, object]:
        body: dict[str, object] = {
            "hook": hook,
            "source": "launcher",
            "history_file": self._text("history"),
            "cwd": os.getcwd(),
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "session": self._text("session"),
            "aider_pid": os.getpid(),
        }
        body.update(extra)
        return body

    def _progress(self) -> tuple[int, int, object]:
        try:
            with open(self._text("state"), "rb") as f:
                state = _obj(json.loads(f.read()))
        except (OSError, ValueError):
            return 0, 0, None
        found = state.get("queue")
        queue = cast("list[object]", found) if isinstance(found, list) else []
        head = _obj(queue[0]).get("type") if queue else None
        delivered = state.get("delivered")
        return (delivered if isinstance(delivered, int) else 0), len(queue), head

    def deliver(self, hook: str, **extra: object) -> None:
        """``entire hooks <agent> <hook>`` with our payload, again while events stay queued; never raises."""
        try:
            self._deliver(hook, extra)
        except Exception as exc:  # Aider's session matters more than our bookkeeping
            self.failures.append(f"{hook}: {exc}")

    def _deliver(self, hook: str, extra: dict[str, object]) -> None:
        entire = self._text("entire")
        if not entire:
            return
        hook_of_type = _obj(self.config.get("hook_of_type"))
        body = self.payload(hook, **extra)
        with _Lock(self._text("drain_lock")):
            for _ in range(64):
                before = self._progress()[0]
                result = _run(
                    [entire, "hooks", self._text("agent") or "aider", hook], body, self._text("root"),
                    {**os.environ, DELIVERY_ENV: _token()},
                )  # fmt: skip
                self.settle(result)
                if result != 0:
                    self.failures.append(f"{hook}: entire exited with status {result}")
                    return
                delivered, queued, head = self._progress()
                if delivered == before or not queued or head is None:
                    return
                hook = str(hook_of_type.get(str(head), "turn-end"))
                body = {**body, "hook": hook, "turn_over": False}

    def settle(self, status: int) -> None:
        """The event our ``entire hooks`` call took leaves the queue when it exited 0 (the host has it), and is
        answered again by the next call when it failed (the plugin's ``delivered``; ``entire_core.eventqueue``)."""
        try:
            with open(self._text("state"), "rb") as f:
                found = _obj(json.loads(f.read())).get("queue")
        except (OSError, ValueError):
            return
        queue = cast("list[object]", found) if isinstance(found, list) else []
        if not any(_obj(event).get(MARK) == _token() for event in queue):
            return  # the call took no event (Entire not enabled here, or it failed before the plugin)
        self._plugin("delivered", "--delivery", _token(), "--status", str(status))

    def sync_view(self) -> None:
        """Bring the session's view up to everything Aider has written (the plugin's ``sync`` command)."""
        self._plugin("sync", "--session", self._text("session"))

    def _plugin(self, command: str, *args: str) -> None:
        """The plugin's ``command`` about our history file (``sync``, ``delivered``); a failure is noted."""
        found = self.config.get("plugin")
        plugin = [str(a) for a in cast("list[object]", found)] if isinstance(found, list) else []
        if not plugin:
            return
        argv = [*plugin, command, "--history", self._text("history"), *args]
        try:
            done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, cwd=self._text("root") or None,
                                  timeout=HOOK_TIMEOUT, check=False)  # fmt: skip
        except (OSError, subprocess.SubprocessError) as exc:
            self.failures.append(f"{command}: {exc}")
            return
        if done.returncode != 0:
            self.failures.append(f"{command}: " + done.stderr.decode("utf-8", "replace").strip()[-300:])


def _obj(value: object) -> dict[str, object]:
    return cast("dict[str, object]", value) if isinstance(value, dict) else {}


_mine = ""


def _token() -> str:
    """This process's ``entire_core.liveness`` token, ``<pid>.<start>`` (its start time from ``/proc``)."""
    global _mine
    if not _mine:
        start = "0"
        try:
            with open(f"/proc/{os.getpid()}/stat", "rb") as f:
                start = f.read().rsplit(b")", 1)[1].split()[19].decode("ascii")
        except (OSError, IndexError):
            pass
        _mine = f"{os.getpid()}.{start}"
    return _mine


def _run(argv: list[str], body: dict[str, object], cwd: str, env: dict[str, str] | None = None) -> int:
    try:
        done = subprocess.run(argv, input=json.dumps(body).encode("utf-8"), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, cwd=cwd or None, timeout=HOOK_TIMEOUT, env=env,
                              check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return 127
    return done.returncode


class _Lock:
    """The plugin's drain lock (``flock``), so our calls never interleave with the launcher's own."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> _Lock:
        if not self.path:
            return self
        try:
            import fcntl
        except ImportError:  # Windows: the launcher and Aider take turns anyway
            return self
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        except OSError:
            self.fd = -1
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # closing releases the lock


def _resolve(module: str, cls: str, name: str) -> tuple[type, Any] | None:
    import importlib

    try:
        owner: Any = getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError):
        return None
    function = owner.__dict__.get(name)
    return (owner, function) if callable(function) else None


def wrap(hooks: Hooks) -> bool:
    """Wrap Aider's three hook points; False (and nothing wrapped) when one of them is missing."""
    found = [_resolve(*point) for point in HOOK_POINTS]
    if any(f is None for f in found):
        return False
    (coder, send_message), (_, get_input), (git_repo, commit) = found  # type: ignore[misc]

    def send_message_hooked(self: object, *args: object, **kwargs: object) -> object:
        if not hooks.turn_open:
            hooks.turn_open = True
            hooks.deliver("turn-start")
        return send_message(self, *args, **kwargs)  # type: ignore[operator]

    def get_input_hooked(self: object, *args: object, **kwargs: object) -> object:
        if hooks.turn_open:
            hooks.turn_open = False
            hooks.deliver("turn-end", turn_over=True)
        return get_input(self, *args, **kwargs)  # type: ignore[operator]

    def commit_hooked(self: object, *args: object, **kwargs: object) -> object:
        if hooks.turn_open:
            hooks.sync_view()
        previous = os.environ.get("GIT_TERMINAL_PROMPT")
        os.environ["GIT_TERMINAL_PROMPT"] = "0"
        try:
            return commit(self, *args, **kwargs)  # type: ignore[operator]
        finally:
            if previous is None:
                os.environ.pop("GIT_TERMINAL_PROMPT", None)
            else:
                os.environ["GIT_TERMINAL_PROMPT"] = previous

    wrappers: list[tuple[Any, str, Any]] = [(coder, "send_message", send_message_hooked),
                                            (coder, "get_input", get_input_hooked),
                                            (git_repo, "commit", commit_hooked)]  # fmt: skip
    for owner, name, function in wrappers:
        function.__wrapped__ = owner.__dict__[name]
        setattr(owner, name, function)
    return True


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    # Run as a script, this file's directory would come first on sys.path and shadow Aider's imports.
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    try:
        config = _obj(json.loads(os.environ.get(ENV) or "{}"))
    except ValueError:
        config = {}
    args = sys.argv[1:]
    aider = config.get("aider")
    sys.argv = [aider if isinstance(aider, str) and aider else "aider", *args]
    try:
        from aider.main import main as aider_main  # pyright: ignore[reportMissingImports,reportUnknownVariableType]
    except ImportError:
        if isinstance(aider, str) and aider:
            os.environ.pop(ENV, None)
            os.execvp(aider, [aider, *args])
        sys.stderr.write("entire-agent-aider run: Aider cannot be imported by this interpreter\n")
        sys.exit(127)
    hooks = Hooks(config)
    if not wrap(hooks):
        sys.stderr.write(
            "entire-agent-aider run: this Aider lacks the functions Entire hooks into; "
            "Entire records no turns of this session\n"
        )
    try:
        code: object = aider_main(args)  # pyright: ignore[reportUnknownVariableType]
    finally:
        if hooks.turn_open:
            hooks.turn_open = False
            hooks.deliver("turn-end", turn_over=True)
        if hooks.failures:
            sys.stderr.write(
                f"entire-agent-aider run: Entire did not record everything: {hooks.failures[0]}\n"
            )
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
