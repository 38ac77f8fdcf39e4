"""Errors raised by Slurm transports, carrying what Slurm said so operators can act on it."""

from __future__ import annotations

from collections.abc import Sequence


class SlurmError(Exception):
    """A Slurm command or API call failed; ``str(err)`` is Slurm's own message."""

    def __init__(
        self,
        message: str,
        *,
        command: Sequence[str] | None = None,
        stderr: str = "",
        returncode: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.command: tuple[str, ...] = tuple(command or ())
        self.stderr = stderr
        self.returncode = returncode


class SlurmUnavailable(SlurmError):
    """Slurm cannot be used at all: binary missing, controller unreachable, auth or config broken."""


#: Message fragments meaning "Slurm cannot be reached or used", not "this request was refused".
UNAVAILABLE_PATTERNS: tuple[str, ...] = (
    "unable to contact slurm controller",
    "zero bytes were transmitted or received",
    "socket timed out on send/recv",
    "communication connection failure",
    "connection refused",
    "munge",
    "invalid authentication credential",
    "authentication failure",
    "could not establish a configuration source",
    "unable to process configuration file",
    "s_p_parse_file: unable to",
)


def looks_unavailable(message: str) -> bool:
    """True if Slurm's message says it cannot be reached or used (rather than a refusal)."""
    lowered = message.lower()
    return any(pattern in lowered for pattern in UNAVAILABLE_PATTERNS)
