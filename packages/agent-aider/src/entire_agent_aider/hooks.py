"""Our notification hook in the repository's ``.aider.conf.yml``: install, uninstall, recognise.

Aider has no hooks; its one external command that follows the chat loop is ``notifications-command``
(run with ``shell=True``, so ``sh -c`` or, on Windows, ``cmd.exe /c``, at the first prompt after each
model call, with no payload, Aider's stdin and Aider's environment). We install, in a marked block of the repository's ``.aider.conf.yml``, a
command that runs ``entire-agent-aider notify``: that builds the JSON payload (history file, Aider's
pid, the time, the launcher's session id) and feeds it to ``entire hooks <agent> <hook>`` once per
pending event. ``parse-hook`` maps those payloads to events in ``entire_agent_aider.events``.

Whether install created the file is kept in core's install records (``entire_core.installs``), so
uninstall deletes the file only when we created it and nothing of the user's is in it.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from entire_core.agent import Agent

CONF_FILE = ".aider.conf.yml"
BEGIN = "# >>> entire-agent-aider: managed by Entire, do not edit by hand >>>"
END = "# <<< entire-agent-aider <<<"
CREATED = "# (entire-agent-aider created this file; removing the block deletes it when nothing else is left)"
"""How 0.1.0 marked, inside its block, a file it created; later installs keep that in core's install
records instead, and still honour this line in a block 0.1.0 wrote."""
NOTIFY_COMMAND = 'command -v entire-agent-aider >/dev/null 2>&1 || exit 0; exec entire-agent-aider notify --aider-pid "$PPID" </dev/null'
"""The ``notifications-command`` for ``sh -c``: quiet when the plugin is missing, never reads Aider's
stdin, and names Aider's pid (the shell's parent) so the history file can be found from Aider's
command line."""
NOTIFY_COMMAND_CMD = "(where /q entire-agent-aider || exit 0) && entire-agent-aider notify <NUL"
"""The same for ``cmd.exe /c``, which Aider's ``shell=True`` uses on Windows: ``where /q`` finds the
plugin quietly, ``exit 0`` ends cmd.exe when it is missing, ``<NUL`` keeps Aider's console input. cmd.exe
has no parent pid to pass; ``notify`` does without it (see ``notify.notify``)."""


def notify_command() -> str:
    """The ``notifications-command`` for the platform this runs on."""
    import sys

    return NOTIFY_COMMAND_CMD if sys.platform == "win32" else NOTIFY_COMMAND


OUR_KEYS = ("notifications", "notifications-command")


# -- .aider.conf.yml ------------------------------------------------------------------------------------


def conf_path(repo_root: str) -> str:
    """The repository's Aider config file (Aider reads it from the git root)."""
    return os.path.join(repo_root, CONF_FILE)


def block_body() -> str:
    """The YAML lines we keep between our markers."""
    command = notify_command().replace("'", "''")
    return f"notifications: true\nnotifications-command: '{command}'\n"


def install(agent: Agent, *, force: bool = False) -> int:
    """Add or refresh our block in ``.aider.conf.yml``; 1 when written (or forced), 0 when already there.

    Whether the file is ours goes to core's install records: a new file, or one an install of 0.1.0
    created (its block still holds ``CREATED``, which the refreshed block drops).
    """
    from entire_core import installs
    from entire_core.config.textblock import edit_text_block

    path = conf_path(agent.repo_root)
    # What earlier installs created counts only while the file is still what they wrote.
    earlier = installs.recall(agent.env, agent.name, path)
    with edit_text_block(
        path, begin=BEGIN, end=END, validate=lambda text: _check_result(path, text), place=before_document_end
    ) as doc:
        _refuse_user_keys(path, doc.text_outside)
        created = not doc.existed or _marked_created(doc.block) or earlier.get("created_file", False)
        wanted = block_body()
        changed = doc.block != wanted or force
        doc.block = wanted
        if created:  # the record first: killed after the write, it is still there
            doc.before_write = lambda data: installs.remember(
                agent.env, agent.name, path, written=data, created_file=True
            )
    if created:
        installs.remember(agent.env, agent.name, path, created_file=True)
    else:
        installs.forget(agent.env, agent.name, path)
    return 1 if changed else 0


def uninstall(agent: Agent) -> None:
    """Remove our block; delete the file when our install created it and nothing else is left."""
    from entire_core import installs
    from entire_core.config.textblock import edit_text_block

    path = conf_path(agent.repo_root)
    if not os.path.lexists(path):
        installs.forget(agent.env, agent.name, path)
        return
    created = installs.recall(agent.env, agent.name, path).get("created_file", False)
    with edit_text_block(path, begin=BEGIN, end=END, create=False) as doc:
        if doc.block is not None:
            created = created or _marked_created(doc.block)
            doc.block = None
            if created and not doc.text_outside.strip():
                doc.delete()
    installs.forget(agent.env, agent.name, path)


def _marked_created(block: str | None) -> bool:
    """True for a block written by 0.1.0 into a file it created (it said so in the block)."""
    return block is not None and CREATED in block.splitlines()


def installed(repo_root: str) -> bool:
    """True when our block is in ``.aider.conf.yml``."""
    try:
        with open(conf_path(repo_root), encoding="utf-8-sig", errors="replace") as f:
            return any(line.rstrip("\r\n").startswith(BEGIN) for line in f)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return False


def before_document_end(lines: list[str]) -> int | None:
    """Where a new block goes: before YAML's ``...`` document end marker, if the file has one, else at the end.

    Appended after ``...``, the block would start a second document, which Aider's ``safe_load`` refuses.
    """
    for index, line in enumerate(lines):
        rest = line.rstrip("\r\n")
        if rest.startswith("...") and (len(rest) == 3 or rest[3] in " \t"):
            return index
    return None


def load_yaml(path: str, text: str) -> dict[str, Any]:
    """Parse config text the way Aider does (PyYAML ``safe_load``); it must be a mapping or empty."""
    import yaml
    from entire_core.errors import ConfigError

    try:
        value: object = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(
            f"{path} is not valid YAML{where}: {problem}: fix it (Aider cannot read it either) and run again"
        ) from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(
            f"{path} must hold a mapping of Aider options (key: value lines), not a {type(value).__name__}"
        )
    return value  # pyright: ignore[reportUnknownVariableType]


def user_keys(path: str, text: str) -> list[str]:
    """Our keys (``notifications``, ``notifications-command``) the user sets outside our block.

    Install refuses while there are any: ours and the user's would fight over the one command.
    """
    return _keys_in(path, user_text(path, text))


def _keys_in(path: str, outside: str) -> list[str]:
    user = load_yaml(path, outside)
    return [key for key in OUR_KEYS if key in user]


def _refuse_user_keys(path: str, outside: str) -> None:
    from entire_core.errors import ConfigError

    taken = _keys_in(path, outside)
    if taken:
        keys = " and ".join(f"'{key}'" for key in taken)
        raise ConfigError(
            f"{path} already sets {keys}; Entire needs its own notifications-command there. Remove "
            f"{'them' if len(taken) > 1 else 'it'} (or move your command elsewhere) and run "
            "'entire enable --agent aider' again"
        )


def _check_result(path: str, text: str) -> None:
    """Refuse the edited text unless Aider reads our settings from it; say whose fault it is if not.

    The user's own file parsed before the edit (``_refuse_user_keys``), so a text that does not parse
    now is one that cannot take a block of lines where it goes: say so, and how to make room for it.
    """
    from entire_core.errors import ConfigError

    try:
        value = load_yaml(path, text)
    except ConfigError:
        outside = user_text(path, text)
        first = next(
            (ln.strip() for ln in outside.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), ""
        )
        if first.startswith("{"):
            shape = "it is one flow-style mapping ({...}), which a block of 'key: value' lines cannot join"
        else:
            shape = "its top level is not a block of 'key: value' lines that more such lines can follow"
        raise ConfigError(
            f"{path} is valid YAML, but Entire's block cannot be added to it: {shape}: write it in block "
            "style, one 'key: value' per line (model: sonnet), and run again"
        ) from None
    if value.get("notifications") is not True or value.get("notifications-command") != notify_command():
        raise ConfigError(
            f"cannot write {path}: after the edit Aider would not read our notification settings"
        )


def user_text(path: str, text: str) -> str:
    """``text`` without our block: what the user wrote."""
    from entire_core.config.textblock import TextBlockDocument

    return TextBlockDocument(path, True, text, BEGIN, END).text_outside
