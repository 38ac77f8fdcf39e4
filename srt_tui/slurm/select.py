"""Pick the Slurm transport: pyslurm when it imports safely, matches the controller's Slurm and reaches
slurmctld, else the command line; ``$SRT_TUI_SLURM_TRANSPORT`` forces one for "auto"."""

from __future__ import annotations

import os

from srt_tui.slurm.cli_transport import CliTransport
from srt_tui.slurm.client import SlurmClient
from srt_tui.slurm.errors import SlurmUnavailable
from srt_tui.slurm.pyslurm_probe import NOT_INSTALLED, probe_pyslurm
from srt_tui.slurm.pyslurm_transport import PyslurmTransport

#: Environment variable that chooses the transport when ``get_client(None)`` or ``"auto"`` is called
#: (CI runs the same tests once per transport with it; an explicit ``--transport cli|pyslurm`` wins).
TRANSPORT_ENV = "SRT_TUI_SLURM_TRANSPORT"
TRANSPORTS = ("auto", "pyslurm", "cli")


def _pyslurm() -> tuple[SlurmClient | None, str]:
    """A PyslurmTransport, or None and why it cannot be used (asked of a child process first:
    ``import pyslurm`` without a Slurm configuration ends the process)."""
    probe = probe_pyslurm()
    if not probe.usable:
        return None, f"pyslurm: {probe.problem}"
    try:
        client = PyslurmTransport()
    except Exception as exc:  # noqa: BLE001 - a pyslurm built for another Slurm failing on load
        return None, f"pyslurm: `import pyslurm` failed ({type(exc).__name__}: {exc})"
    return client, ""


def get_client(
    transport: str | None = "auto", *, require_reachable: bool = True, timeout: float | None = None
) -> SlurmClient:
    """The SlurmClient to use: "auto" (pyslurm if importable and reachable, else CLI), "cli" or "pyslurm".

    ``None`` and "auto" read ``$SRT_TUI_SLURM_TRANSPORT`` (default "auto"). With ``require_reachable``
    the chosen client must answer ``ping``; otherwise SlurmUnavailable names everything that was tried ("auto" does
    not name a pyslurm that is not installed: the commands' reason is the operator's).
    """
    choice = (transport or "auto").strip().lower()
    if choice == "auto":
        choice = (os.environ.get(TRANSPORT_ENV) or "auto").strip().lower()
    if choice not in TRANSPORTS:
        raise ValueError(f"unknown Slurm transport {choice!r}: use one of {', '.join(TRANSPORTS)}")
    tried: list[str] = []
    candidates: list[str] = ["pyslurm", "cli"] if choice == "auto" else [choice]
    if choice == "auto" and probe_pyslurm().unreachable:
        # pyslurm imported but could not talk to slurmctld (down, or another Slurm release): the command
        # line first, so an unpinged client (require_reachable=False) is one that can tell which
        candidates.reverse()
    for name in candidates:
        client: SlurmClient | None
        if name == "pyslurm":
            client, why = _pyslurm()
            if client is None:
                if not (choice == "auto" and why == f"pyslurm: {NOT_INSTALLED}"):  # not installed: not tried
                    tried.append(why)
                continue
        else:
            client = CliTransport() if timeout is None else CliTransport(timeout=timeout)
        if not require_reachable or client.ping():
            return client
        tried.append(f"{name}: {client.last_error or 'slurmctld did not answer'}")
    raise SlurmUnavailable("no Slurm transport can reach a controller; tried " + "; ".join(tried))
