"""Ended jobs cost nothing: a final snapshot is kept and reused until one of the job's files changes.

A job that ended changes only when someone writes into its directory (results arriving late, a log, a
resubmission in the same place). Its stamp is a handful of `stat` calls: the directory, its `logs/` and
`relay/` folders (a file added, removed or replaced there) and the job's own documents; never a glob or a
read. While the stamp holds, the refresh neither reads nor rebuilds the job. A job is frozen only when its
stage is final and Slurm no longer runs it (or is not asked: a local job, or one Slurm forgot), so no later
Slurm state is missed.
"""

from __future__ import annotations

import os
from pathlib import Path

from srt_tui.core.jobdir.contract import ENDPOINTS_FILE, JOB_FILE, PLAN_FILE
from srt_tui.monitor.model import FINAL_STAGES, JobSnapshot
from srt_tui.slurm.client import UNKNOWN_STATE, JobState

#: what a job's stamp stats, under its directory ("" is the directory itself: files added or removed)
STAMPED = ("", "logs", "relay", JOB_FILE, PLAN_FILE, ENDPOINTS_FILE, "status.jsonl")

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

    def __init__(self) -> None:
        self._kept: dict[str, tuple[Path, Stamp, JobSnapshot]] = {}

    def get(self, job_id: str, job_dir: Path, now_stamp: Stamp) -> JobSnapshot | None:
        """The kept snapshot when the job's files are as they were; else None (and it is forgotten)."""
        kept = self._kept.get(job_id)
        if kept is None:
            return None
        if kept[0] != job_dir or kept[1] != now_stamp:
            del self._kept[job_id]
            return None
        return kept[2]

    def keep(self, snap: JobSnapshot, job_dir: Path, before: Stamp, state: JobState | None, local: bool) -> None:
        """Freeze `snap` if the job has ended for good (final stage, and Slurm done with it or not asked)."""
        if snap.stage not in FINAL_STAGES:
            return
        if not local and state is not None and not state.is_terminal and state.state != UNKNOWN_STATE:
            return
        self._kept[snap.job_id] = (job_dir, before, snap)

    def prune(self, tracked: set[str]) -> None:
        """Forget jobs no longer tracked."""
        for job_id in [j for j in self._kept if j not in tracked]:
            del self._kept[job_id]

    def __len__(self) -> int:
        return len(self._kept)
