"""What the Results view shows, read from job directories (file I/O: called from a worker, never the UI thread).

A job that belongs to a sweep (``group`` in its job.json) is compared with every tracked member of that
group, ordered by what the sweep varies (job.json's `group_values`); the Pareto frontier (output tok/s per GPU
against tok/s per user, both higher is better) marks the levels no other level beats on both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from srt_tui.core.jobdir.contract import JobDirError, JobMeta, SweptValue, read_job_meta
from srt_tui.core.results.read import job_identity, read_results, runs_no_benchmark
from srt_tui.core.results.swept import order_key, varied
from srt_tui.core.results.table import LabelledResults, Swept


@dataclass(frozen=True)
class Comparison:
    """The job asked for (first) and, for a sweep, the group's other tracked members (in member order)."""

    job_id: str
    group: str | None
    jobs: tuple[LabelledResults, ...]
    #: the job runs no benchmark (`manual`): it will never have results, whatever the wait
    manual: bool = False
    #: each job's swept values (job.json's `group_values`; empty when it has none), in the order of ``jobs``
    values: tuple[Mapping[str, SweptValue], ...] = ()

    @property
    def params(self) -> tuple[str, ...]:
        """The swept parameters whose values differ between the jobs shown (each a column of the table)."""
        return varied(self.values)

    @property
    def swept(self) -> list[Swept]:
        """Each job with its swept values."""
        return list(zip(self.jobs, self.values or ({},) * len(self.jobs), strict=True))

    @property
    def has_results(self) -> bool:
        """Whether any job shown has at least one level."""
        return any(job.results.levels for job in self.jobs)


def _meta(job_dir: Path) -> JobMeta | None:
    try:
        return read_job_meta(job_dir)
    except JobDirError:
        return None  # srtctl's directories and damaged ones: no group, read as a single job


def _labelled(job_id: str, job_dir: Path) -> LabelledResults:
    ident, name = job_identity(job_dir)
    return LabelledResults(job_id or ident, name, read_results(job_dir))


def load_comparison(job_id: str, job_dir: Path, tracked: Mapping[str, Path]) -> Comparison:
    """The results of ``job_id`` and, when it is a sweep member, of its tracked siblings."""
    meta = _meta(job_dir)
    group = meta.group if meta is not None else None
    if meta is None or group is None:
        return Comparison(job_id, None, (_labelled(job_id, job_dir),), runs_no_benchmark(job_dir))
    members: list[tuple[JobMeta, str, Path]] = []
    for other, path in tracked.items():
        other_meta = meta if other == job_id else _meta(path)
        if other_meta is not None and other_meta.group == group:
            members.append((other_meta, other, path))
    if not any(other == job_id for _, other, _ in members):
        members.append((meta, job_id, job_dir))
    params = varied([m.group_values or {} for m, _, _ in members])
    # by what the sweep varies (osl 128 before 1024), then in member order
    members.sort(key=lambda m: (order_key(m[0].group_values or {}, params), _member_key(m[0].group_member or m[1])))
    jobs = tuple(_labelled(other, path) for _, other, path in members)
    return Comparison(job_id, group, jobs, values=tuple(m.group_values or {} for m, _, _ in members))


def _member_key(member: str) -> tuple[int, str]:
    """`sweep[2]` before `sweep[10]`: the index inside the brackets, else the text."""
    inside = member.rsplit("[", 1)[-1].rstrip("]")
    return (int(inside), member) if inside.isdigit() else (1 << 30, member)


def pareto_frontier(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """The points no other point beats on both axes (higher is better), in increasing x."""
    frontier: list[tuple[float, float]] = []
    best_y = float("-inf")
    for x, y in sorted(set(points), key=lambda p: (-p[0], -p[1])):
        if y > best_y:
            frontier.append((x, y))
            best_y = y
    return sorted(frontier)
