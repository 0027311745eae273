"""Running one plugin subcommand exactly as the Entire CLI does, and noting every way it went wrong."""

from __future__ import annotations

import os
import subprocess
import time
from typing import Any

from entire_sim import godecode

OUTPUT_LIMIT = 10 * 1024 * 1024
RSS_LOG_ENV = "ENTIRE_SIM_RSS_LOG"
"""When set, each plugin call's peak resident set (KiB) is appended to this file (benchmarks)."""
GNU_TIME = "/usr/bin/time"
DEFAULT_TIMEOUT = 30.0
INFO_TIMEOUT = 10.0
CLI_VERSION = "0.0.0-entire-sim"


class Violation:
    """Something the real CLI would reject, fail on, or silently lose."""

    def __init__(self, subcommand: str, message: str, output: bytes = b"", severity: str = "error") -> None:
        self.subcommand = subcommand
        self.message = message
        self.output = output
        self.severity = severity

    def to_json(self) -> dict[str, Any]:
        """A record for the violations log."""
        return {
            "subcommand": self.subcommand,
            "message": self.message,
            "output": self.output[:600].decode("utf-8", errors="replace"),
            "severity": self.severity,
        }

    def __str__(self) -> str:
        shown = self.output[:200].decode("utf-8", errors="replace")
        return f"{self.subcommand}: {self.message}" + (f" (output: {shown!r})" if shown else "")


class CallFailed(Exception):
    """A plugin call the CLI treats as an error: non-zero exit, timeout, oversized or undecodable answer."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(str(violation))
        self.violation = violation


class Call:
    """One finished plugin process."""

    def __init__(
        self, subcommand: str, args: list[str], code: int, stdout: bytes, stderr: bytes, ms: float,
        stdin_bytes: int = 0,
    ) -> None:  # fmt: skip
        self.subcommand = subcommand
        self.stdin_bytes = stdin_bytes
        self.args = args
        self.code = code
        self.stdout = stdout
        self.stderr = stderr
        self.ms = ms

    def to_json(self) -> dict[str, Any]:
        """A record for the hook-calls log (stdout cut short)."""
        return {
            "subcommand": self.subcommand,
            "args": self.args,
            "stdin_bytes": self.stdin_bytes,
            "exit": self.code,
            "stdout": self.stdout[:400].decode("utf-8", errors="replace"),
            "stdout_bytes": len(self.stdout),
            "stderr": self.stderr[:400].decode("utf-8", errors="replace"),
            "ms": round(self.ms, 1),
        }


class Plugin:
    """An ``entire-agent-<name>`` executable, called once per subcommand with the CLI's environment."""

    def __init__(self, path: str, name: str, repo_root: str | None, env: dict[str, str]) -> None:
        self.path = path
        self.name = name
        self.repo_root = repo_root
        self.base_env = env
        self.calls: list[Call] = []
        self.violations: list[Violation] = []
        self.info: dict[str, Any] = {}

    def fresh(self) -> Plugin:
        """The same discovered plugin with empty call and violation logs (one per hook run)."""
        copy = Plugin(self.path, self.name, self.repo_root, self.base_env)
        copy.info = self.info
        return copy

    def env(self) -> dict[str, str]:
        """The caller's environment plus the protocol's variables."""
        env = dict(self.base_env)
        env["ENTIRE_PROTOCOL_VERSION"] = "1"
        env["ENTIRE_CLI_VERSION"] = CLI_VERSION
        if self.repo_root:
            env["ENTIRE_REPO_ROOT"] = self.repo_root
        else:
            env.pop("ENTIRE_REPO_ROOT", None)
        return env

    def capability(self, name: str) -> bool:
        """Whether ``info`` declared the capability."""
        caps: dict[str, bool] = self.info.get("capabilities") or {}
        return bool(caps.get(name))

    def run(
        self, subcommand: str, *args: str, stdin: bytes | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> Call:
        """Run the subcommand; raise ``CallFailed`` for anything the CLI treats as an error."""
        argv = [self.path, subcommand, *args]
        rss_log = os.environ.get(RSS_LOG_ENV, "")
        if rss_log and os.path.exists(GNU_TIME):
            # GNU time forks the plugin from its own small process, so the peak it reports is the
            # plugin's alone (a child forked from this process would count ours as its own).
            argv = [GNU_TIME, "-a", "-o", rss_log, "-f", "%M", *argv]
        started = time.perf_counter()
        try:
            proc = subprocess.run(
                argv,
                input=stdin,
                stdin=subprocess.DEVNULL if stdin is None else None,
                capture_output=True,
                cwd=self.repo_root or os.getcwd(),
                env=self.env(),
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            call = Call(subcommand, list(args), -9, exc.stdout or b"", exc.stderr or b"", timeout * 1000)
            self.calls.append(call)
            raise self._fail(
                subcommand, f"timed out after {timeout:.0f}s (the CLI kills it)", call.stdout
            ) from None
        call = Call(
            subcommand,
            list(args),
            proc.returncode,
            proc.stdout,
            proc.stderr,
            (time.perf_counter() - started) * 1000,
            len(stdin or b""),
        )
        self.calls.append(call)
        if len(proc.stdout) > OUTPUT_LIMIT:
            raise self._fail(subcommand, f"output exceeded {OUTPUT_LIMIT} byte limit", proc.stdout)
        if proc.returncode != 0:
            message = proc.stderr.strip().decode("utf-8", errors="replace")
            if not message:
                raise self._fail(
                    subcommand, f"exit status {proc.returncode} with nothing on stderr", proc.stdout
                )
            if "Traceback (most recent call last)" in message or len(message.splitlines()) > 1:
                self.violations.append(
                    Violation(subcommand, "error message is not one line", proc.stderr, "warning")
                )
            raise self._fail(subcommand, message.splitlines()[-1] if message else "", b"", record=False)
        return call

    def _fail(self, subcommand: str, message: str, output: bytes, *, record: bool = True) -> CallFailed:
        violation = Violation(subcommand, message, output)
        if record:
            self.violations.append(violation)
        return CallFailed(violation)

    def json(
        self, subcommand: str, *args: str, stdin: bytes | None = None, timeout: float = DEFAULT_TIMEOUT
    ) -> dict[str, Any]:
        """Run a JSON-answering subcommand and decode its answer with Go's rules."""
        call = self.run(subcommand, *args, stdin=stdin, timeout=timeout)
        try:
            return godecode.decode(subcommand, call.stdout)
        except godecode.GoDecodeError as exc:
            raise self._fail(subcommand, f"invalid JSON answer: {exc}", call.stdout) from None

    def load_info(self, timeout: float = INFO_TIMEOUT) -> dict[str, Any]:
        """``info`` with the discovery budget and the protocol-version check."""
        info = self.json("info", timeout=timeout)
        if info["protocol_version"] != 1:
            message = f"protocol version mismatch: binary reports {info['protocol_version']}, expected 1"
            raise self._fail("info", message, b"")
        if info["name"] != self.name:
            self.violations.append(
                Violation(
                    "info",
                    f"info.name {info['name']!r} differs from the binary's name {self.name!r}",
                    b"",
                    "warning",
                )
            )
        for hook in info["hook_names"] or []:
            if not hook or hook.startswith("-") or any(c.isspace() for c in hook):
                self.violations.append(Violation("info", f"hook name {hook!r} is not a single CLI token"))
        self.info = info
        return info
