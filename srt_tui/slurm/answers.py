"""Whether a Slurm controller answers, asked without the submission code: the app checks it at start-up, and
`slurm.submit` (the job models, pydantic) took ~0.3 s of the interpreter to import while the first frame painted."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple

from srt_tui.slurm.errors import SlurmError, SlurmUnavailable

if TYPE_CHECKING:
    from srt_tui.slurm.client import SlurmClient


def reachable_client(transport: str = "auto") -> tuple[SlurmClient | None, str]:
    """A client whose controller just answered one ping, or None; a one-line reason either way."""
    from srt_tui.slurm.select import get_client

    try:
        client = get_client(transport)  # pings the controller once
    except SlurmUnavailable as exc:
        return None, str(exc)
    return client, f"slurmctld answers ({client.name} transport)"


class SlurmAnswer(NamedTuple):
    """Whether a Slurm controller answers, a one-line reason either way, and the cluster that answered ('' when
    none did or it gave no name)."""

    reachable: bool
    reason: str
    cluster: str = ""


def slurm_reachable(transport: str = "auto") -> SlurmAnswer:
    """Whether a Slurm controller answers, and a one-line reason either way that names the cluster which answered
    (a login node's default slurm.conf may be another cluster's than the operator meant)."""
    client, why = reachable_client(transport)
    if client is None:
        return SlurmAnswer(False, why)
    try:
        name = client.controller_info().cluster_name
    except (SlurmError, OSError):  # it answered the ping: reachable, its name unknown
        name = None
    where = os.environ.get("SLURM_CONF") or "the default slurm.conf"
    return SlurmAnswer(True, f"cluster {name or '(unnamed)'} answers ({client.name} transport, {where})", name or "")
