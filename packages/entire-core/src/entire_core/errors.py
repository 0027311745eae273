"""Errors a plugin reports to the Entire CLI: one line on stderr and a non-zero exit."""


class AgentError(Exception):
    """A failure the caller should see: printed as one line on stderr, exit status 1.

    The message says what is wrong; ``fix``, when given, what to do about it. The dispatcher prints
    both in core's one format (``entire_core.cli_stdio.error_line``), after the program and subcommand.
    """

    exit_code = 1

    def __init__(self, message: str = "", fix: str = "") -> None:
        super().__init__(message)
        self.fix = fix


class UsageError(AgentError):
    """The command line itself is wrong (unknown subcommand or flag): exit status 2."""

    exit_code = 2


class InvalidInput(AgentError):
    """Input from outside (stdin, flags, ids, paths) that we refuse to act on."""


class ConfigError(AgentError):
    """Another tool's config file that we cannot parse or must not write."""
