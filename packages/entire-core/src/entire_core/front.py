"""The front: a POSIX ``sh`` script that answers the host's discovery calls without starting Python.

Every ``entire`` process runs ``info`` on every ``entire-agent-*`` on ``PATH``, and ``get-session-dir``
on every plugin of ours, before the one call it came for: seven Pythons of eight, with four plugins. The
answers are fixed for a release (``info``, ``--version``) or a pure function of a path and the
environment (``get-session-dir``: ``views.views_dir``), so a shell script can give them in about a
millisecond. It gives them byte for byte as Python would, and hands every other call, and every input
it is not sure of (a path outside a small set of characters, a directory that does not exist, no
``sha256sum``), to Python unchanged.

How it gets installed: the console script the installer wrote (``entire-agent-<name>``, a Python
launcher) is replaced by the front the first time it runs (``adopt``). Every installer makes that
launcher, old or new, so the plugin works everywhere before the swap and wherever it cannot happen
(Windows, a read-only ``bin``, an editable install); a wheel data script would not do, because every
installer lets a console script of the same name win over it, and one under another name is missing
from ``PATH`` wherever an installer ignores data scripts. An upgrade writes a new launcher, which is
swapped again; a front whose packages changed under it (``entire-core`` upgraded alone, a reinstall)
hands every call to Python, which writes it anew. ``ENTIRE_AGENT_FRONT=0`` hands every call to Python
and keeps a launcher from being swapped: what ``make bench`` compares the front against.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from entire_core.agent import Agent

MARK = "# entire-core front"
"""The second line of every front: how ``adopt`` and the tests tell a front from a Python launcher."""

SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._+@~,:=% -"
"""The characters of a path the front answers for itself: none that JSON escapes or ``sh`` expands, and
ASCII only, so a character is a byte and ``str.isalnum`` is ``[A-Za-z0-9]``. Anything else: Python."""

EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def _quote(text: str) -> str:
    """``text`` as one single-quoted ``sh`` word."""
    return "'" + text.replace("'", "'\\''") + "'"


def _dist_info(module_file: str, package: str) -> str:
    """The ``<package>-<version>.dist-info`` directory beside ``package`` (at ``module_file``), or ""."""
    site = os.path.dirname(os.path.dirname(os.path.abspath(module_file)))
    prefix = package + "-"
    try:
        found = [n for n in os.listdir(site) if n.startswith(prefix) and n.endswith(".dist-info")]
    except OSError:
        return ""
    return os.path.join(site, found[0]) if len(found) == 1 else ""


def site_path() -> tuple[str, ...] | None:
    """The directories ``site`` put on this process's ``sys.path``, for a Python started without it
    (``-S``), or None where skipping ``site`` would change more than the path.

    ``site`` costs a call about 2.5 ms of its 20. What it does besides the path: runs a ``.pth`` file's
    ``import`` lines (editable finders, ``_virtualenv``, coverage) and imports ``sitecustomize`` or
    ``usercustomize``. Where any of them exists, Python keeps ``site``.
    """
    if "sitecustomize" in sys.modules or "usercustomize" in sys.modules:
        return None
    import site

    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    for directory in dirs:
        try:
            names = sorted(n for n in os.listdir(directory) if n.endswith(".pth"))
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(directory, name), "rb") as f:
                    lines = f.read().splitlines()
            except OSError:
                return None
            if any(line.startswith((b"import ", b"import\t")) for line in lines):
                return None
    without_site = set(os.environ.get("PYTHONPATH", "").split(os.pathsep)) | {
        "",
        os.path.dirname(sys.argv[0]),
    }
    return tuple(p for p in sys.path[1:] if p not in without_site)


def script(
    agent_cls: type[Agent],
    python: str,
    path: str,
    dists: tuple[str, ...],
    site: tuple[str, ...] | None = None,
) -> str:
    """The front of ``agent_cls`` at ``path``, handing calls to ``python``.

    ``dists`` are the ``.dist-info`` directories of the installed packages it answers for: when one is
    gone or newer than the front, the packages changed under it and every call goes to Python. With
    ``site`` (``site_path``), Python is started without ``site`` and given those directories instead.
    """
    from entire_core import PROTOCOL_VERSION, __version__, _json, commands, program_name
    from entire_core.agent import Agent as BaseAgent
    from entire_core.cli_stdio import encode_answer

    agent = agent_cls()
    program = program_name(agent_cls.name)
    info = encode_answer(commands.info(agent, None, b"")).decode("utf-8")  # pyright: ignore[reportArgumentType]
    version = f"{program} {agent_cls.version} (entire-core {__version__}, protocol {PROTOCOL_VERSION})"
    module = agent_cls.__module__.split(".")[0]
    views = agent.view_format() is not None and type(agent).get_session_dir is BaseAgent.get_session_dir
    head, tail = _json.dumps({"session_dir": "@DIR@"}).split("@DIR@")
    fresh = " && ".join(
        f"[ -d {_quote(d)} ] && ! [ {_quote(d + '/RECORD')} -nt {_quote(path)} ]" for d in dists
    )
    import hashlib
    import json

    values = {
        "program": program,
        "mark": MARK,
        "python": _quote(python),
        "module": module,
        "fresh": fresh or "false",
        "stale": _quote(f"import sys; sys.argv[0] = {path!r}; from {module} import main; main()"),
        "flags": "-P" if site is None else "-S -P",
        "code": _quote(
            f"from {module} import main; main()"
            if site is None
            else f"import sys; sys.path += [p for p in {list(site)!r} if p not in sys.path]; "
            f"from {module} import main; main()"
        ),
        "info": _quote(info.rstrip("\n")),
        "info_json": _quote(json.dumps(info)[1:-1]),
        "info_sha256": hashlib.sha256(info.encode("utf-8")).hexdigest(),
        "version": _quote(version),
        "name": _quote(agent_cls.name),
        "views": "true" if views else "false",
        "safe": _quote(SAFE),
        "head": _quote(head),
        "tail": _quote(tail),
        "head_json": _quote(json.dumps(head)[1:-1]),
        "tail_json": _quote(json.dumps(tail + "\n")[1:-1]),
        "empty": EMPTY_SHA256,
    }
    return _TEMPLATE.format(**values)


# Written for dash, bash (also as macOS's /bin/sh 3.2) and busybox sh: POSIX only, plus `test -nt`.
# Builtins only on the answering paths, but the digest (`sha256sum`, one fork).
_TEMPLATE = r"""#!/bin/sh
{mark}: {program}, written over the installer's Python launcher (entire_core/front.py).
# It answers info, --version and get-session-dir itself, byte for byte as Python would; every other
# call, and any input it is not sure of, goes to Python as it came.
handoff() {{ exec {python} {flags} -c {code} "$@"; }}
# Packages changed under the front: Python answers, started as from this file, so it writes it anew.
{fresh} || exec {python} -P -c {stale} "$@"
[ "${{ENTIRE_AGENT_FRONT-}}" != 0 ] || handoff "$@"

safe={safe}
name={name}
letters=ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-

# views.views_dir: $XDG_STATE_HOME (else ~/.local/state)/entire-agent-<name>/views/<base>-<digest>,
# where <base> is the real path's last component, [A-Za-z0-9._-] kept and the rest "_", 40 at most,
# and <digest> the first 16 hex digits of the real path's SHA-256. Returns 1 where Python must answer.
session_dir() {{
    case $1 in /*) ;; *) return 1 ;; esac
    case $1 in //* | *[!$safe]* | */../* | */..) return 1 ;; esac  # bash keeps a leading //
    cd -P -- "$1" 2>/dev/null || return 1
    real=$PWD
    case $real in //* | *[!$safe]*) return 1 ;; /*) ;; *) return 1 ;; esac
    case ${{XDG_STATE_HOME-}} in
    /*) state=$XDG_STATE_HOME ;;
    *) [ -n "${{HOME-}}" ] || return 1
       case $HOME in */) state=$HOME.local/state ;; *) state=$HOME/.local/state ;; esac ;;
    esac
    case $state in *[!$safe]*) return 1 ;; esac
    case $state in */) ;; *) state=$state/ ;; esac
    command -v sha256sum >/dev/null 2>&1 || return 1
    digest=$(printf '%s' "$real" | sha256sum) || return 1
    digest=${{digest%%[!0-9a-f]*}}
    [ ${{#digest}} -eq 64 ] || return 1
    rest=${{digest#????????????????}}
    digest=${{digest%"$rest"}}
    base=${{real##*/}}
    short=
    while [ -n "$base" ] && [ ${{#short}} -lt 40 ]; do
        rest=${{base#?}}
        char=${{base%"$rest"}}
        base=$rest
        case $char in [$letters]) short=$short$char ;; *) short=${{short}}_ ;; esac
    done
    dir=${{state}}entire-agent-$name/views/$short-$digest
}}

# What Python's trace (ENTIRE_PLUGIN_TRACE, entire_core.trace.write) writes for a call, marked "front".
trace() {{
    [ -n "${{ENTIRE_PLUGIN_TRACE-}}" ] || return 0
    printf '{{"agent": "%s", "answer": "%s", "answer_sha256": "%s", "args": [%s], "code": 0, "host_pid": %s, "stdin": "", "stdin_len": 0, "stdin_sha256": "{empty}", "subcommand": "%s", "time": %s, "via": "front"}}\n' \
        "$name" "$2" "$3" "$4" "$PPID" "$1" "$(date +%s)" >>"$ENTIRE_PLUGIN_TRACE"
}}

case $#:${{1-}}:${{2-}} in
1:info:)
    printf '%s\n' {info}
    trace info {info_json} {info_sha256} ""
    exit 0 ;;
1:--version: | 1:-version: | 1:version:)
    printf '%s\n' {version}
    exit 0 ;;
3:get-session-dir:--repo-path)
    if {views} && session_dir "$3"; then
        printf '%s%s%s\n' {head} "$dir" {tail}
        if [ -n "${{ENTIRE_PLUGIN_TRACE-}}" ]; then
            sum=$(printf '%s%s%s\n' {head} "$dir" {tail} | sha256sum)
            trace get-session-dir {head_json}"$dir"{tail_json} "${{sum%%[!0-9a-f]*}}" "\"--repo-path\", \"$3\""
        fi
        exit 0
    fi ;;
esac
handoff "$@"
"""


def adopt(agent_cls: type[Agent]) -> bool:
    """Write the front over the Python launcher this process was started from; True when it did.

    Only a launcher an installer wrote for this agent, naming this interpreter, in an installed (not
    editable) package, on a system with ``/bin/sh``. Any failure leaves the launcher as it was: the
    plugin then keeps answering from Python.
    """
    if sys.platform == "win32" or not os.path.exists("/bin/sh"):
        return False
    if not sys.argv or sys.argv[0] in ("", "-c"):
        return False  # started by a front (python -c), or embedded; a stale front names itself instead
    launcher = os.path.realpath(sys.argv[0])
    package = agent_cls.__module__.split(".")[0]
    import entire_core

    packages = [(sys.modules[package].__file__ or "", package), (entire_core.__file__ or "", "entire_core")]
    if not launcher or not os.path.isfile(launcher) or not all(_installed(f) for f, _ in packages):
        return False
    try:
        with open(launcher, "rb") as f:
            text = f.read(16385)
    except OSError:
        return False
    first_line = text.split(b"\n", 1)[0]
    ours = f"from {packages[0][1]} import main".encode()
    if len(text) > 16384 or not first_line.startswith(b"#!") or ours not in text:
        return False
    python = sys.executable
    if not python or os.fsencode(python) not in text:
        return False  # a relocatable launcher, or another interpreter: not ours to pin
    dists = tuple(_dist_info(f, n) for f, n in packages)
    if not all(dists):
        return False
    from entire_core import fsutil

    try:
        text = script(agent_cls, python, launcher, dists, site_path())
        fsutil.atomic_write(launcher, text.encode("utf-8"), durable=False)
    except Exception:  # the call was answered; a front that could not be written changes nothing
        return False
    return True


def _installed(module_file: str) -> bool:
    """True when the package of ``module_file`` lies in a site directory (not an editable checkout)."""
    site = os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(module_file))))
    return site in ("site-packages", "dist-packages")
