"""Messages every mode may send the app (the launch pipeline's own are in `launch.messages`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from srt_tui.core.api import Prepared
    from srt_tui.core.jobdir.clone import ClonedJob


@dataclass
class SlurmStatus(Message):
    """Result of the Slurm reachability check (run in a worker, never on the UI thread)."""

    reachable: bool | None
    reason: str
    #: the cluster that answered, when the check learnt its name
    cluster: str = ""


@dataclass
class CloneJob(Message):
    """Monitor read a job back for the wizard (`C`): the app opens Launch on its preview."""

    cloned: ClonedJob
    prepared: Prepared
    #: the launcher the job ran with (`slurm`, `local`): the clone's Submit step offers the same one
    launcher: str = "slurm"


@dataclass
class HoldKeys(Message):
    """A screen's answer to a key comes from a worker (``hold``) or is in (not ``hold``): the keys typed meanwhile
    wait for it, then are handed out in order (`key_order`)."""

    hold: bool
