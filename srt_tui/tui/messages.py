"""Messages every mode may send the app (the launch pipeline's own are in `launch.messages`)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message


@dataclass
class SlurmStatus(Message):
    """Result of the Slurm reachability check (run in a worker, never on the UI thread)."""

    reachable: bool | None
    reason: str
