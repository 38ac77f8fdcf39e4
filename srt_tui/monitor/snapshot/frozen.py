"""Ended jobs cost nothing: a final snapshot is kept and reused until one of the job's files changes.

A job that ended changes only when someone writes into its directory (results arriving late, a log, a
resubmission in the same place). Its stamp is a handful of `stat` calls: the directory, its `logs/` and
`relay/` folders (a file added, removed or replaced there) and `status.jsonl`; never a glob or a read, and
taken only every `every`-th refresh per job (spread over the refreshes), so 300 ended jobs cost a few dozen
stats a refresh. While the stamp holds, the refresh neither reads nor rebuilds the job. A job is frozen only
when its stage is final and its launcher no longer runs it (Slurm, or the local launcher's process groups; or
Slurm forgot it), so no later state is missed.
"""

from __future__ import annotations

import os
from pathlib import Path

from srt_tui.monitor.model import FINAL_STAGES, JobSnapshot
from srt_tui.slurm.client import UNKNOWN_STATE, JobState

#: what a job's stamp stats, under its directory ("" is the directory itself: a file added, removed or replaced
#: by a rename, as srt-tui writes job.json, plan.json and endpoints.json); status.jsonl grows in place
STAMPED = ("", "logs", "relay", "status.jsonl")
#: an ended job's stamp is taken every this many refreshes (10 s at the Monitor's 2 s)
EVERY = 5

Stamp = tuple[tuple[int, int] | None, ...]


def stamp(job_dir: Path) -> Stamp:
    """(mtime_ns, size) of each stamped path, None where it is missing."""
    out: list[tuple[int, int] | None] = []
    for name in STAMPED:
        try:
            st = os.stat(job_dir / name) if name else os.stat(job_dir)
        except OSError:
            out.append(None)
            continue
        out.append((st.st_mtime_ns, st.st_size))
    return tuple(out)


class FrozenJobs:
    """Final snapshots by job id, each with the stamp its files had before they were read."""

    def __init__(self, every: int = EVERY) -> None:
        self.every = every
        self._kept: dict[str, tuple[Path, Stamp, JobSnapshot]] = {}
        #: refreshes until each kept job's stamp is taken again (spread so they do not all fall together)
        self._wait: dict[str, int] = {}

    def due(self, job_id: str) -> bool:
        """Is this job's stamp to be taken this refresh? (Always for a job not kept.)"""
        left = self._wait.get(job_id)
        if left is None:
            return True
        if left > 1:
            self._wait[job_id] = left - 1
            return False
        self._wait[job_id] = self.every
        return True

    def get(self, job_id: str, job_dir: Path, now_stamp: Stamp | None) -> JobSnapshot | None:
        """The kept snapshot when the job's files are as they were (`None` stamp: not due, not checked);
        else None, and it is forgotten."""
        kept = self._kept.get(job_id)
        if kept is None:
            return None
        if kept[0] != job_dir or (now_stamp is not None and kept[1] != now_stamp):
            self._forget(job_id)
            return None
        return kept[2]

    def keep(self, snap: JobSnapshot, job_dir: Path, before: Stamp, state: JobState | None, local: bool) -> None:
        """Freeze `snap` if the job has ended for good (final stage, and Slurm done with it or not asked)."""
        if snap.stage not in FINAL_STAGES:
            return
        if state is not None and not state.is_terminal and state.state != UNKNOWN_STATE:
            return  # still running (a local job's script stops its steps after writing its final stage)
        if snap.job_id not in self._wait:
            self._wait[snap.job_id] = 1 + len(self._kept) % self.every
        self._kept[snap.job_id] = (job_dir, before, snap)

    def _forget(self, job_id: str) -> None:
        self._kept.pop(job_id, None)
        self._wait.pop(job_id, None)

    def prune(self, tracked: set[str]) -> None:
        """Forget jobs no longer tracked."""
        for job_id in [j for j in self._kept if j not in tracked]:
            self._forget(job_id)

    def __len__(self) -> int:
        return len(self._kept)
