"""Running the agent's own binary (``generate-text``, ``doctor``) with a bound and a clear failure."""

from __future__ import annotations

import subprocess

from entire_core.errors import AgentError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence


def run_tool(
    argv: Sequence[str],
    *,
    name: str,
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run ``argv`` to completion, output captured; a timeout or a binary that cannot start is an AgentError.

    ``name`` is how the error names the tool (``codex exec``). stdin is the given bytes, or nothing at
    all: the plugin's own stdin belongs to the Entire CLI. A non-zero exit is the caller's to explain.
    """
    try:
        return subprocess.run(
            list(argv),
            input=stdin,
            stdin=subprocess.DEVNULL if stdin is None else None,
            capture_output=True,
            cwd=cwd,
            env=dict(env),
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise AgentError(f"{name} did not answer within {timeout:.0f} s") from None
    except OSError as exc:
        raise AgentError(f"cannot run {name}: {exc.strerror or exc}") from None
