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
from collections.abc import Container, Mapping
from pathlib import Path

from srt_tui.monitor.model import FINAL_STAGES, JobSnapshot
from srt_tui.slurm.client import UNKNOWN_STATE, JobState

#: what a job's stamp stats, under its directory ("" is the directory itself: a file added, removed or replaced
#: by a rename, as srt-tui writes job.json, plan.json and endpoints.json); status.jsonl grows in place
STAMPED = ("", "logs", "relay", "status.jsonl")
#: an ended job's stamp is taken every this many refreshes (20 s at the Monitor's 2 s: a change in an ended job
#: directory, such as results arriving late, shows within that)
EVERY = 10

Stamp = tuple[tuple[int, int] | None, ...]


def stamp(job_dir: Path) -> Stamp:
    """(mtime_ns, size) of each stamped path, None where it is missing."""
    base = os.fspath(job_dir)
    out: list[tuple[int, int] | None] = []
    for name in STAMPED:
        try:  # plain strings: building four Paths per job cost more than the stats themselves
            st = os.stat(f"{base}/{name}" if name else base)
        except OSError:
            out.append(None)
            continue
        out.append((st.st_mtime_ns, st.st_size))
    return tuple(out)


class FrozenJobs:
    """Final snapshots by job id, each with the stamp its files had before they were read."""

    def __init__(self, every: int = EVERY) -> None:
        self.every = every
        #: job id → (its directory, the stamp before it was read, its final snapshot, its slot among `every`)
        self._kept: dict[str, tuple[Path, Stamp, JobSnapshot, int]] = {}
        self._tick = 0

    def split(self, jobs: Mapping[str, Path]) -> tuple[dict[str, Stamp], dict[str, JobSnapshot]]:
        """One pass over the tracked jobs, once per refresh: (the jobs to read, in order, each with its stamp
        taken before reading; the kept snapshots still valid). A kept job's stamp is taken only on its
        slot (every `every`-th refresh, slots spread over the jobs); a changed one is forgotten and read."""
        self._tick += 1
        tick, every, frozen = self._tick, self.every, self._kept
        stamps: dict[str, Stamp] = {}
        kept: dict[str, JobSnapshot] = {}
        for job_id, job_dir in jobs.items():
            was = frozen.get(job_id)
            if was is not None:
                where, before, snap, slot = was
                same_dir = where is job_dir or where == job_dir
                if same_dir and ((tick + slot) % every or stamp(job_dir) == before):
                    kept[job_id] = snap
                    continue
                del frozen[job_id]
            stamps[job_id] = stamp(job_dir)
        return stamps, kept

    def keep(self, snap: JobSnapshot, job_dir: Path, before: Stamp, state: JobState | None) -> None:
        """Freeze `snap` if the job has ended for good (final stage, and Slurm done with it or not asked)."""
        if snap.stage not in FINAL_STAGES:
            return
        if state is not None and not state.is_terminal and state.state != UNKNOWN_STATE:
            return  # still running (a local job's script stops its steps after writing its final stage)
        # first checked 1 to `every` refreshes from now (the first job kept at the very next), then every `every`
        slot = -(self._tick + 1 + len(self._kept) % self.every) % self.every
        self._kept[snap.job_id] = (job_dir, before, snap, slot)

    def prune(self, tracked: Container[str]) -> None:
        """Forget jobs no longer tracked."""
        for job_id in [j for j in self._kept if j not in tracked]:
            del self._kept[job_id]

    def __len__(self) -> int:
        return len(self._kept)
