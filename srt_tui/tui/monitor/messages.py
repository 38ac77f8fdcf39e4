"""Typed messages of Monitor mode (tests assert on them through `run_test(message_hook=...)`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.message import Message

from srt_tui.monitor.model import JobSnapshot


@dataclass
class SnapshotsUpdated(Message):
    """A poll finished with fresh snapshots (``took_s``: how long the refresh took)."""

    snapshots: list[JobSnapshot]
    took_s: float


@dataclass
class JobsListed(Message):
    """The job index was read (before the first refresh answered): its jobs, listed while their files and Slurm's
    states are read."""

    jobs: dict[str, Path]


@dataclass
class PollFailed(Message):
    """A poll raised (the feed itself failed, not one of its sources)."""

    error: str


@dataclass
class JobAdded(Message):
    """A job launched elsewhere is now tracked."""

    job_id: str
    job_dir: Path


@dataclass
class JobCancelled(Message):
    """The operator confirmed and the cancel call returned (`detail`: what it did, if it said)."""

    job_id: str
    detail: str = ""


@dataclass
class CancelFailed(Message):
    """The cancel call raised."""

    job_id: str
    error: str


@dataclass
class AddFailed(Message):
    """No job directory was found for what the operator typed."""

    ref: str
    error: str


@dataclass
class SmokeDone(Message):
    """A smoke test of a job finished (`line`: its figures, or why it could not run; `ok`: all answered)."""

    job_id: str
    line: str
    ok: bool
