"""Every Slurm job of this user, not only srt-tui's: one user-scoped Slurm query, each job mapped to its
output directory when srt-tui or srtctl launched it, and whether the operator hid it from the list."""

from __future__ import annotations

import getpass
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from srt_tui.core.jobdir.discovery import FoundDir, find_output_dir
from srt_tui.slurm.client import JobState, SlurmClient


def current_user() -> str:
    """The login name Slurm knows this user by (from the password database when $USER is unset)."""
    return getpass.getuser()


@dataclass(frozen=True)
class MyJob:
    """One Slurm job of the user: Slurm's record, its output directory (if srt-tui's or srtctl's), hidden?"""

    job: JobState
    found: FoundDir | None = None
    hidden: bool = False

    @property
    def job_id(self) -> str:
        """Slurm's job id."""
        return self.job.job_id

    @property
    def kind(self) -> str:
        """`srt-tui`, `srtctl`, or '' for a job launched some other way (a plain sbatch)."""
        return self.found.kind if self.found else ""

    @property
    def job_dir(self) -> Path | None:
        """The output directory to open the job view from (None: Slurm facts only)."""
        return self.found.path if self.found else None

    def run_seconds(self, now: datetime) -> float | None:
        """How long it has run (until it ended); None before it starts."""
        start = self.job.start_time
        if start is None:
            return None
        end = self.job.end_time if self.job.is_terminal and self.job.end_time else now.timestamp()
        return max(0.0, end - start)


@dataclass(frozen=True)
class MyJobs:
    """One refresh of the all-jobs view: the jobs, for whom, and why Slurm did not answer (if it did not)."""

    user: str
    jobs: tuple[MyJob, ...] = ()
    error: str = ""
    took_s: float = 0.0

    def shown(self, with_hidden: bool = False) -> list[MyJob]:
        """The jobs of the list: hidden ones only when asked for."""
        return [j for j in self.jobs if with_hidden or not j.hidden]


def map_jobs(
    jobs: list[JobState], hidden: frozenset[str] = frozenset(), indexed: Mapping[str, Path] | None = None
) -> tuple[MyJob, ...]:
    """Each job with its output directory (job index first, then its stdout/work-dir paths) and hidden flag; the
    jobs that still run or wait first, then the ended ones, newest first in each (as an operator scans them)."""
    ordered = sorted(jobs, key=lambda j: (j.is_terminal, -job_number(j.job_id)))
    return tuple(
        MyJob(j, find_output_dir(j.job_id, j.stdout, j.work_dir, indexed), j.job_id in hidden) for j in ordered
    )


def job_number(job_id: str) -> int:
    """The job number of `12`, `12_3` or `12+1` (0 when there is none): newer jobs have larger ones."""
    digits = ""
    for ch in job_id:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits) if digits else 0


def my_jobs(
    client: SlurmClient,
    user: str | None = None,
    hidden: frozenset[str] = frozenset(),
    indexed: Mapping[str, Path] | None = None,
) -> MyJobs:
    """One user-scoped query; Slurm failing is returned as ``error`` (the caller shows it, never waits)."""
    from srt_tui.slurm.errors import SlurmError

    who = user or current_user()
    started = time.monotonic()
    try:
        rows = client.user_jobs(who)
    except SlurmError as exc:
        return MyJobs(who, (), str(exc) or type(exc).__name__, time.monotonic() - started)
    return MyJobs(who, map_jobs(rows, hidden, indexed), "", time.monotonic() - started)
