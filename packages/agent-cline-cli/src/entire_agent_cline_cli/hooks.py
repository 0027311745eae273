"""Our hooks for Cline CLI: one small script per event in the workspace's ``.cline/hooks``.

Cline has no hook config to edit: every file in a hook directory whose base name (case-insensitive,
no extension or a script one) is an event is run with that event's payload on stdin
(``paths``). So install writes, per event that matters, a ``sh`` script that runs ``entire hooks
cline-cli <hook>``, then acknowledges the event that call took (``entire_core.hooks.delivering_script``),
quiet when ``entire`` is missing; install writes an older release's script anew. A user's own hook keeps
its file, and ours takes the next free name (``TaskStart.sh`` beside ``TaskStart``). Ours are
recognised by the command they contain, never by their name. What install created (the folders) is
kept in core's install records (``entire_core.installs``), so uninstall leaves the repository byte for
byte as it found it: our files go, and the folders only when install made them and they are empty.

Which events: the turn's start (``TaskStart``, ``TaskResume`` for a resumed session) and its end
(``TaskComplete``, or ``TaskCancel`` / ``TaskError`` when it stops short). Cline runs all of these
detached, their output ignored. The tool hooks (``PreToolUse``, ``PostToolUse``) would block Cline
120 s at most and be read as control JSON, and bring nothing the session's messages lack: none are
installed. ``UserPromptSubmit`` and ``SessionShutdown`` never fired in 3.0.64 and 3.0.65.
"""

from __future__ import annotations

import os

from entire_agent_cline_cli import paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

NATIVE_EVENTS = {
    "task-start": "TaskStart",
    "task-resume": "TaskResume",
    "task-complete": "TaskComplete",
    "task-cancel": "TaskCancel",
    "task-error": "TaskError",
}
"""Our hook name (``entire hooks cline-cli <hook>``) -> the hook file's base name, Cline's event."""
SUFFIXES = ("", ".sh", ".bash", ".zsh")
"""The names our script may take, in order: Cline runs each with the interpreter of its shebang."""
_DIRS = ("cline", "hooks")
"""The install record's keys for the folders install created: ``.cline`` and ``.cline/hooks``."""


def script(agent_name: str, hook: str) -> bytes:
    """The hook file we write for ``hook``: a deliverer of ours (``entire_core.hooks.delivering_script``)."""
    from entire_core import hooks

    return hooks.delivering_script(agent_name, hook).encode()


class HookFiles:
    """Our hook files in one repository's ``.cline/hooks``."""

    def __init__(self, repo_root: str, agent_name: str, env: Mapping[str, str]) -> None:
        self.dir = paths.hooks_dir(repo_root)
        self.agent_name = agent_name
        self.env = env

    def check(self) -> None:
        """Refuse (``ConfigError``) where ``.cline`` or ``.cline/hooks`` is something other than a folder."""
        from entire_core.errors import ConfigError

        for folder in (os.path.dirname(self.dir), self.dir):
            if os.path.lexists(folder) and not os.path.isdir(folder):
                raise ConfigError(
                    f"{folder} is not a folder, so Cline reads no hooks there; nothing was written"
                )

    def installed(self) -> dict[str, str]:
        """Our hook -> the file of ours that runs it."""
        from entire_core import hooks

        found: dict[str, str] = {}
        events = {event.lower(): hook for hook, event in NATIVE_EVENTS.items()}
        try:
            names = sorted(os.listdir(self.dir))
        except OSError:
            return found
        for name in names:
            base, ext = os.path.splitext(name)
            path = os.path.join(self.dir, name)
            if ext.lower() not in SUFFIXES or base.lower() not in events or not os.path.isfile(path):
                continue
            try:
                with open(path, "rb") as f:
                    text = f.read(4096).decode("utf-8", "replace")
            except OSError:
                continue
            if hooks.hook_of(text, self.agent_name) == events[base.lower()]:
                found.setdefault(events[base.lower()], path)
        return found

    def install(self, *, force: bool = False) -> int:
        """Write our hook files (again, with ``force``); the number written."""
        from entire_core import fsutil, installs
        from entire_core.offsets import read_all

        self.check()
        have = self.installed()
        created = installs.recall(self.env, self.agent_name, self.dir)
        made = {"cline": not os.path.isdir(os.path.dirname(self.dir)), "hooks": not os.path.isdir(self.dir)}
        record = {key: created.get(key, False) or made[key] for key in _DIRS}
        os.makedirs(self.dir, exist_ok=True)
        installs.remember(self.env, self.agent_name, self.dir, cline=record["cline"], hooks=record["hooks"])
        written = 0
        for hook, event in NATIVE_EVENTS.items():
            if hook in have and not force and read_all(have[hook]) == script(self.agent_name, hook):
                continue  # an older release's script is written anew
            if hook in have:
                os.remove(have[hook])
            names = (os.path.join(self.dir, event + suffix) for suffix in SUFFIXES)
            target = next((p for p in names if not os.path.lexists(p)), None)
            if target is None:
                continue  # every name is the user's: Cline runs their hooks there, never ours
            fsutil.atomic_write(target, script(self.agent_name, hook), mode=0o755)
            written += 1
        return written

    def uninstall(self) -> None:
        """Remove our hook files, and the folders install created once they are empty."""
        from entire_core import installs

        for path in self.installed().values():
            os.remove(path)
        created = installs.recall(self.env, self.agent_name, self.dir)
        for key, folder in (("hooks", self.dir), ("cline", os.path.dirname(self.dir))):
            if created.get(key):
                try:
                    os.rmdir(folder)
                except OSError:
                    break  # the user's files are in it: it stays, and so does the folder above
        installs.forget(self.env, self.agent_name, self.dir)
