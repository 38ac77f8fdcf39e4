"""The all-jobs view as text, shared by `srt-tui jobs` and the Monitor: squeue's columns (JOBID, NAME,
STATE, TIME, NODES, NODELIST(REASON)) plus who launched the job (FROM: srt-tui, srtctl, or `-`)."""

from __future__ import annotations

from datetime import datetime

from srt_tui.core.text.words import matches_words
from srt_tui.monitor import cells
from srt_tui.monitor.alljobs.query import MyJob, job_number

#: header of each column, by key, in order; the TUI gives widths, the CLI sizes to the content
HEADERS: dict[str, str] = {
    "job": "JOBID",
    "name": "NAME",
    "state": "STATE",
    "time": "TIME",
    "nodes": "NODES",
    "where": "NODELIST(REASON)",
    "from": "FROM",
}


def where(job: MyJob) -> str:
    """squeue's NODELIST(REASON): the nodes once it runs, else why it waits (or why it ended)."""
    from srt_tui.slurm.parse import compress_hostlist

    if job.job.nodes and job.job.state != "PENDING":
        return compress_hostlist(job.job.nodes)
    reason = job.job.reason_worth_showing  # a cancelled pending job: no stale `(Resources)`
    return f"({reason})" if reason else ""


def cell(job: MyJob, key: str, now: datetime) -> str:
    """The plain text of one cell."""
    if key == "job":
        return job.job_id
    if key == "name":
        return job.job.name
    if key == "state":
        return job.job.state
    if key == "time":
        return cells.duration(job.run_seconds(now)) if job.job.start_time else "-"
    if key == "nodes":
        return str(job.job.node_count or len(job.job.nodes) or "-")
    if key == "where":
        return where(job)
    if key == "from":
        return (job.kind or "-") + (" (hidden)" if job.hidden else "")
    raise KeyError(key)


def row(job: MyJob, now: datetime, keys: tuple[str, ...] = tuple(HEADERS)) -> tuple[str, ...]:
    """One job's cells."""
    return tuple(cell(job, key, now) for key in keys)


#: the orders `s` steps through: Slurm's listing order (queued and running first, newest first), then by
#: column; each with the direction an operator expects first (names A→Z, the longest-running first)
SORTS: tuple[str, ...] = ("squeue", "job", "name", "state", "time")
#: the arrow the sorted column's header carries (none for the listing's own order): ↓ largest or newest first
SORT_ARROWS = {"job": " ↓", "name": " ↑", "state": " ↑", "time": " ↓"}


#: the cells the `/` filter reads: every one but TIME, which ticks (a filter `8` kept a job while it had run `18s`,
#: then dropped it: the Monitor's jobs list did the same with its ELAPSED, issue 21 op11)
FILTERED = tuple(key for key in HEADERS if key != "time")


def arrange(jobs: list[MyJob], query: str, sort: str, now: datetime) -> list[MyJob]:
    """The rows shown: those whose cells but TIME (and output directory) match the `/` filter, in the order chosen."""
    rows = [
        j for j in jobs if not query or matches_words(" ".join((*row(j, now, FILTERED), str(j.job_dir or ""))), query)
    ]
    if sort == "job":
        return sorted(rows, key=lambda j: job_number(j.job_id), reverse=True)  # the newest first
    if sort == "name":
        return sorted(rows, key=lambda j: (j.job.name.lower(), -job_number(j.job_id)))
    if sort == "state":
        return sorted(rows, key=lambda j: (j.job.state, -job_number(j.job_id)))
    if sort == "time":
        return sorted(rows, key=lambda j: -(j.run_seconds(now) or 0.0))
    return rows  # "squeue": the listing's own order
