"""Errors raised by Slurm transports, carrying what Slurm said so operators can act on it."""

from __future__ import annotations

import re
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


#: how `select.get_client` starts the reason no transport answered, then each transport's own (`cli: …`)
NO_TRANSPORT = "no Slurm transport can reach a controller; tried "
_TRANSPORT_PART = re.compile(r";\s*(?=(?:pyslurm|cli): )")
#: where srt-tui's words end a message and its hint begins (`…; check SLURM_CONF …`, `…: install the Slurm client …`)
_HINT = re.compile(r"; |\. It said: |: (?:check|install|fix|point|set|load|ask) ")
#: a Slurm command's own prefix on its lines (`scontrol: error: `, `srun: fatal: `)
_COMMAND_PREFIX = re.compile(r"^(?:[\w-]+: )?(?:error|fatal): ")
FIRST_LINE_MAX = 100
#: what follows a Slurm command's name before its own output in the transports' messages (`scontrol ping` said: …)
SAID = "` said: "


def first_line(reason: str) -> str:
    """The one line of why Slurm cannot be used that says what is wrong, for a screen with room for one line (the
    Submit step; the whole text stays in `srt-tui doctor`): of several transports' reasons the command line's, of
    what a Slurm command said its fatal line (else its first) without its `scontrol: error:` prefix, and none of
    srt-tui's hint (`check SLURM_CONF …`). `Could not establish a configuration source`, not 14 lines."""
    text = " ".join(reason.split()) if SAID not in reason else reason.strip()
    if text.startswith(NO_TRANSPORT):
        parts = _TRANSPORT_PART.split(text[len(NO_TRANSPORT) :])
        text = next((p for p in parts if p.startswith("cli: ")), parts[-1]).split(": ", 1)[-1]
    if SAID in text:  # a command's own lines (a timeout's `. It said:` follows srt-tui's first line, kept)
        said = [ln.strip() for ln in re.split(r"\n|; ", text.split(SAID, 1)[1]) if ln.strip()]
        said = [ln for ln in said if not ln.startswith("check ")] or said
        text = next((ln for ln in said if "fatal" in ln.lower()), said[0] if said else text)
    else:
        text = _HINT.split(text, maxsplit=1)[0]
        head, _, rest = text.partition("slurmctld not reachable: ")
        text = rest if not head and rest else text
    text = " ".join(_COMMAND_PREFIX.sub("", text).split())
    return text if len(text) <= FIRST_LINE_MAX else text[: FIRST_LINE_MAX - 1] + "…"
